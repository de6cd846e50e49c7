import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";

export type RuntimeKind = "builtin" | "Development" | "process" | "module" | "Docker";

/** One way of running a composition function; the pipeline knows nothing else about it. */
export interface FunctionRuntime {
  readonly kind: RuntimeKind;
  /** Runs the function once; rejects with FunctionFailure on a crash, hang or bad response. */
  run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse>;
  /** Releases what the runtime started (a process, a channel). Safe to call twice. */
  close(): Promise<void>;
}

/** A function that could not produce a response; `detail` carries the stderr tail when known. */
export class FunctionFailure extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** A runtime that cannot be used at all (refused, unavailable); every call fails the same way. */
export class UnavailableRuntime implements FunctionRuntime {
  constructor(
    readonly kind: RuntimeKind,
    readonly reason: string,
  ) {}

  run(): Promise<RunFunctionResponse> {
    return Promise.reject(new FunctionFailure(this.reason));
  }

  async close(): Promise<void> {}
}

/** Rejects after `ms` with a FunctionFailure; the timer does not keep the process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionFailure(`${what} timed out after ${ms / 1000}s`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
