/** Bad flags, a bad config, a missing tool: exit code 2, whichever adapter (CLI, Action) was used. */
export class UsageError extends Error {}

/** A value that must be one of a few, or a usage error naming them. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}
