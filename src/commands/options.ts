import fs from "node:fs";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError, type CommandIO } from "./io.js";
import { parseDevelopmentTargets, TrustError } from "../trust.js";

/** Flags every command that renders a tree takes (diff, drift). */
export const TREE_OPTIONS = {
  format: { type: "string" },
  output: { type: "string" },
  "max-chars": { type: "string" },
  "allow-exec": { type: "boolean" },
  "development-target": { type: "string", multiple: true },
  timeout: { type: "string" },
  config: { type: "string" },
  crds: { type: "string", multiple: true },
  "schema-location": { type: "string", multiple: true },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** parseArgs with positionals, strict, its errors as usage errors (exit 2). */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** `--max-chars`: a markdown size limit of at least 1,000 characters. */
export function maxCharsOption(value: string | undefined, fallback: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 1000) throw new UsageError("--max-chars must be a whole number of at least 1000");
  return n;
}

/** A report to `--output FILE` (directories created), or to stdout. */
export function writeOutput(io: CommandIO, file: string | undefined, text: string): void {
  if (!file) return io.stdout(text);
  const target = path.resolve(io.cwd, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
}

/** A flag's value when it is one of the allowed ones; a usage error naming them otherwise. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}

/** `--development-target` values, or a usage error. */
export function targetsOrUsage(values: string[] | undefined): Record<string, string> {
  try {
    return parseDevelopmentTargets(values);
  } catch (err) {
    if (err instanceof TrustError) throw new UsageError(err.message);
    throw err;
  }
}
