import type { Config, FunctionConfig } from "./config/config.js";
import { globMatcher } from "./manifest/glob.js";
import { parseReference, ReferenceError } from "./oci/reference.js";

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
  return {
    ...head,
    schemaLocations: head.schemaLocations.filter((l) => base.schemaLocations.includes(l)),
    functions,
    trustedFunctions: head.trustedFunctions.filter((t) => base.trustedFunctions.includes(t)),
    packages: head.packages.filter((p) => base.packages.includes(p)),
  };
}

/**
 * Function packages composition-ci pulls and runs as processes without --allow-exec: the
 * crossplane-contrib functions that only transform data, vetted one by one. They run on the host
 * (no container), so a function that evaluates code or reads files or the network from its input
 * (function-kcl, function-shell, function-pythonic, function-cue, upstream function-go-templating's
 * FileSystem source, Upbound's API functions) is never trusted by default: a pull request could
 * make it run anything. The functions built in here (patch-and-transform, auto-ready,
 * go-templating, environment-configs, extra-resources, cel-filter) run in-process anyway.
 * `functions.trusted` of the base branch's config adds more, knowingly.
 */
const VETTED_FUNCTIONS = "{function-sequencer,function-status-transformer,function-patch-and-transform,function-auto-ready,function-environment-configs,function-extra-resources,function-cel-filter}";
export const DEFAULT_TRUSTED_PACKAGES = [`xpkg.crossplane.io/crossplane-contrib/${VETTED_FUNCTIONS}`, `xpkg.upbound.io/crossplane-contrib/${VETTED_FUNCTIONS}`];

/**
 * Whether a Function's package may be pulled and run: it matches a default or configured
 * `registry/repository` glob (an entry pinned `@sha256:…` trusts only a reference to that
 * digest), or the caller allows every execution. Registry and repository are compared as
 * parsed, so `docker.io/x` and `index.docker.io/x` are one.
 */
export function isTrustedPackage(reference: string, trusted: readonly string[], allowExec: boolean): boolean {
  if (allowExec) return true;
  const ref = parsedOrNone(reference);
  if (!ref) return false;
  const name = `${ref.registry}/${ref.repository}`;
  for (const entry of [...DEFAULT_TRUSTED_PACKAGES, ...trusted]) {
    const at = entry.indexOf("@");
    const glob = at >= 0 ? entry.slice(0, at) : entry;
    if (at >= 0 && entry.slice(at + 1) !== ref.digest) continue;
    if (globMatcher([normalisedGlob(glob)])(name)) return true;
  }
  return false;
}

/** A reference as parsed, or none when it is not one (never trusted). */
function parsedOrNone(reference: string) {
  try {
    return parseReference(reference);
  } catch (err) {
    if (err instanceof ReferenceError) return undefined;
    throw err;
  }
}

/** `docker.io/…` written in the trust list means Docker Hub as references parse it. */
function normalisedGlob(glob: string): string {
  return glob.replace(/^docker\.io\//, "index.docker.io/");
}

/** Registries whose packages' schemas (data, never run) are fetched without configuration. */
export const DEFAULT_SCHEMA_SOURCES = ["xpkg.crossplane.io/**", "xpkg.upbound.io/**"];

/**
 * Whether the run may fetch a package's `package.yaml` for its CRDs: the Crossplane and Upbound
 * registries, the trusted function globs and the config's `packages:`, or anything with allowExec.
 */
export function isSchemaSource(reference: string, trusted: readonly string[], allowExec: boolean): boolean {
  if (allowExec) return true;
  const ref = parsedOrNone(reference);
  if (!ref) return false;
  const name = `${ref.registry}/${ref.repository}`;
  const globs = [...DEFAULT_SCHEMA_SOURCES, ...trusted.map((t) => normalisedGlob(t.split("@")[0]!.replace(/:[^/]*$/, "")))];
  return globMatcher(globs)(name);
}
