import fs from "node:fs";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";
import { parseDevelopmentTargets, TrustError } from "../trust.js";
import { packageSettings, type PackageSettings } from "../runtimes/package.js";
import { defaultCacheDir } from "../validate/compile.js";

/** Flags every command that renders a tree takes (diff, drift). */
export const TREE_OPTIONS = {
  offline: { type: "boolean" },
  format: { type: "string" },
  output: { type: "string" },
  "max-chars": { type: "string" },
  "allow-exec": { type: "boolean" },
  "development-target": { type: "string", multiple: true },
  timeout: { type: "string" },
  "max-nested-depth": { type: "string" },
  "crossplane-version": { type: "string" },
  config: { type: "string" },
  crds: { type: "string", multiple: true },
  policies: { type: "string", multiple: true },
  "schema-location": { type: "string", multiple: true },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** --max-nested-depth: how deep composed XRs render with their own Compositions (undefined: the default). */
export function nestedDepthOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError("--max-nested-depth needs a whole number of 0 or more");
  return n;
}

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

/** `--development-target` values, or a usage error. */
export function targetsOrUsage(values: string[] | undefined): Record<string, string> {
  try {
    return parseDevelopmentTargets(values);
  } catch (err) {
    if (err instanceof TrustError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * The package settings of a command: the cache of `--cache-dir` (default the usual cache; with
 * `--no-cache` a throw-away one), `--offline`, and a progress line per pull on a terminal.
 */
export function commandPackageSettings(io: CommandIO, values: { "cache-dir"?: string; "no-cache"?: boolean; offline?: boolean }): PackageSettings {
  return packageSettings({
    cacheDir: values["no-cache"] ? null : values["cache-dir"] ? path.resolve(io.cwd, values["cache-dir"]) : defaultCacheDir(),
    offline: values.offline || undefined,
    onPull: io.isTTY ? (reference) => io.stderr(`pulling ${reference}\n`) : undefined,
  });
}

/** `--cache-dir`, `--no-cache` and `--offline` among flags another parser owns (check hands the rest to validate). */
export function packageFlags(argv: string[]): { "cache-dir"?: string; "no-cache"?: boolean; offline?: boolean } {
  const out: { "cache-dir"?: string; "no-cache"?: boolean; offline?: boolean } = {};
  argv.forEach((a, i) => {
    if (a === "--cache-dir") out["cache-dir"] = argv[i + 1];
    else if (a.startsWith("--cache-dir=")) out["cache-dir"] = a.slice("--cache-dir=".length);
    else if (a === "--no-cache") out["no-cache"] = true;
  });
  return out;
}
