import { NotFoundError, isNotFound } from "../../../manifest/fieldpath.js";

/**
 * Wraps an error as Go's errors.Wrap does (`outer: inner`), keeping whether it is a
 * field-path not-found error, which callers test through the wrap chain.
 */
export function wrapError(err: unknown, outer: string): Error {
  const inner = err instanceof Error ? err.message : String(err);
  const message = `${outer}: ${inner}`;
  return isNotFound(err) ? new NotFoundError(message) : new Error(message);
}

/** Runs `fn`, wrapping any error it throws with `outer`. */
export function wrapping<T>(outer: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw wrapError(err, outer);
  }
}
