import type { Manifest } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";

export const INTERNAL_ERROR = "internal/error";

/**
 * An unexpected exception while handling one file or source: a finding that names it, so the run
 * goes on. It is composition-ci's fault, not the repository's, hence a warning; the stack is kept
 * in `detail` (JSON output, and text output with --debug).
 */
export function internalError(file: string | undefined, doing: string, err: unknown, line = 1): Finding {
  const e = err instanceof Error ? err : new Error(String(err));
  const finding: Finding = {
    rule: INTERNAL_ERROR,
    severity: "warning",
    message: `composition-ci failed while ${doing} (${e.message}); this is a composition-ci bug, not a problem of the file: please report it with the --debug output`,
    line,
    column: 1,
  };
  if (file !== undefined) finding.file = file;
  if (e.stack) finding.detail = e.stack;
  return finding;
}

/** Runs `fn` for one manifest; an exception becomes an internal/error finding on that manifest, pushed to `out`. */
export function guarded<T>(manifest: Manifest, doing: string, out: Finding[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    out.push(internalErrorAt(manifest, doing, err));
    return undefined;
  }
}

/** The same, for async work (rendering a source). */
export async function guardedAsync<T>(manifest: Manifest, doing: string, out: Finding[], fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    out.push(internalErrorAt(manifest, doing, err));
    return undefined;
  }
}

export function internalErrorAt(manifest: Manifest, doing: string, err: unknown): Finding {
  let line = 1;
  try {
    line = manifest.locate("").line;
  } catch {
    // the position is a nicety; the file name is what matters
  }
  const f = internalError(manifest.file, `${doing} ${manifest.kind} ${manifest.name ?? ""}`.trimEnd(), err, line);
  return { ...f, apiVersion: manifest.apiVersion, kind: manifest.kind, ...(manifest.name !== undefined ? { name: manifest.name } : {}) };
}
