/** What a command may touch of the outside world; tests pass their own. */
export interface CommandIO {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  /** All of stdin (commands that read a request from it); defaults to the process's stdin. */
  readStdin?: () => Promise<string>;
}
