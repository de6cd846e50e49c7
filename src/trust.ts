import type { Config, FunctionConfig } from "./config/config.js";

/**
 * One answer to "may this run execute, connect or read this?". A pull request's head is
 * untrusted: what it contains must not make the run execute code, connect somewhere or read
 * outside the repository. The person running composition-ci widens that, with `--allow-exec` (the
 * Action's `allow-exec`) or by naming Development targets; in the Action's `pr` mode the settings
 * that widen it come from the base ref's config, and the head's config may only narrow them.
 */

/** `NAME=ADDRESS` flags (`--development-target`): Development functions the caller points at. */
export function parseDevelopmentTargets(values: string[] | undefined, what = "--development-target"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const eq = value.indexOf("=");
    if (eq <= 0 || eq === value.length - 1) throw new TrustError(`${what}: "${value}" is not NAME=ADDRESS (host:port or unix:///path)`);
    out[value.slice(0, eq).trim()] = value.slice(eq + 1).trim();
  }
  return out;
}

export class TrustError extends Error {}

/**
 * The head's config as far as the base ref's allows: settings that make the run connect or
 * execute (schema locations, function runtimes) are kept only when the base config has them too,
 * exactly; everything else (rules, ignores, ...) is the head's, because it cannot widen anything.
 */
export function narrowToBase(head: Config, base: Config): Config {
  const functions: Record<string, FunctionConfig> = {};
  for (const [name, f] of Object.entries(head.functions)) {
    if (base.functions[name] && JSON.stringify(base.functions[name]) === JSON.stringify(f)) functions[name] = f;
  }
  return { ...head, schemaLocations: head.schemaLocations.filter((l) => base.schemaLocations.includes(l)), functions };
}
