/** What a report tells its reader to run about the snapshot (no imports: the formatters use it too). */

/**
 * The command that writes (or refreshes) the snapshot: the same paths (and root and config, when
 * named) as the run that compares with it, since a snapshot of other sources would drift at once.
 */
export function updateSnapshotCommand(snapshot: string, run: { paths?: readonly string[]; root?: string; config?: string } = {}): string {
  const paths = (run.paths ?? []).filter((p) => p !== ".");
  const options = [...(run.root ? ["--root", run.root] : []), ...(run.config ? ["--config", run.config] : [])];
  return ["composition-ci", "drift", ...paths, "--snapshot", snapshot, "--update-snapshot", ...options].map(shellWord).join(" ");
}

/** A word a POSIX shell reads back as it is: plain, or single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
