import type { Config, FunctionConfig } from "./config/config.js";
import type { Finding } from "./core/finding.js";
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
 * The config an untrusted head is checked with. The base ref's config decides the gate: what is
 * checked (ignores, size limit, tests, definitions said to be in the cluster) and how severe it is
 * (rules, missing schemas, the Crossplane version), so a pull request cannot turn off its own
 * check. Settings that make the run execute, connect or read (schema locations, function
 * runtimes, trusted packages, packages) are kept only where the base has them too, exactly. The
 * head may only add protection (secret fields) and schemas or mounts inside the repository.
 */
export function narrowToBase(head: Config, base: Config): Config {
  const functions: Record<string, FunctionConfig> = {};
  for (const [name, f] of Object.entries(head.functions)) {
    if (base.functions[name] && JSON.stringify(base.functions[name]) === JSON.stringify(f)) functions[name] = f;
  }
  return {
    ...head,
    ...gateOf(base),
    schemaLocations: head.schemaLocations.filter((l) => base.schemaLocations.includes(l)),
    functions,
    trustedFunctions: head.trustedFunctions.filter((t) => base.trustedFunctions.includes(t)),
    packages: head.packages.filter((p) => base.packages.includes(p)),
    secretFields: [...new Set([...base.secretFields, ...head.secretFields])],
  };
}

type Gate = Pick<
  Config,
  | "ignore"
  | "rules"
  | "maxFileBytes"
  | "missingSchemas"
  | "crossplaneVersion"
  | "crossplaneRelease"
  | "clusterDefinitions"
  | "parameterSchemas"
  | "tests"
  | "policies"
  | "crossplaneServiceAccount"
  | "diff"
>;

function gateOf(c: Config): Gate {
  return {
    ignore: c.ignore,
    rules: c.rules,
    maxFileBytes: c.maxFileBytes,
    missingSchemas: c.missingSchemas,
    crossplaneVersion: c.crossplaneVersion,
    crossplaneRelease: c.crossplaneRelease,
    clusterDefinitions: c.clusterDefinitions,
    parameterSchemas: c.parameterSchemas,
    tests: c.tests,
    policies: c.policies,
    crossplaneServiceAccount: c.crossplaneServiceAccount,
    diff: c.diff,
  };
}

/**
 * What the head's config would change in the gate, said as a finding: it is not applied to the
 * pull request's own check and takes effect after merge. Undefined when the gate is the same.
 */
export function headConfigChange(head: Config, base: Config): Finding | undefined {
  const headGate = gateOf(head);
  const baseGate = gateOf(base);
  const changed = (Object.keys(baseGate) as (keyof Gate)[]).filter((k) => JSON.stringify(headGate[k]) !== JSON.stringify(baseGate[k]));
  if (!changed.length) return undefined;
  const effects = [...gateEffects(head, base)];
  const file = head.file ?? base.file;
  return {
    rule: "config/head-not-applied",
    severity: "warning",
    message:
      `this pull request changes ${changed.join(", ")} in ${file ?? "the config"}` +
      (effects.length ? ` (${effects.join("; ")})` : "") +
      ": this check uses the base branch's config; the change takes effect after merge",
    ...(head.file ? { file: head.file } : {}),
  };
}

const LEVELS = ["off", "info", "warning", "error"];

/** The ways the head's gate is weaker than the base's, in words. */
function* gateEffects(head: Config, base: Config): Generator<string> {
  for (const [rule, level] of Object.entries(head.rules)) {
    const was = base.rules[rule];
    if (level === was) continue;
    if (LEVELS.indexOf(level) < LEVELS.indexOf(was ?? "error")) yield level === "off" ? `turns off ${rule}` : `lowers ${rule} to ${level}`;
  }
  const added = head.ignore.filter((g) => !base.ignore.includes(g));
  if (added.length) yield `ignores ${added.join(", ")}`;
  if (head.maxFileBytes !== undefined && head.maxFileBytes < (base.maxFileBytes ?? Infinity)) yield `lowers maxFileBytes to ${head.maxFileBytes}`;
  if (head.missingSchemas !== base.missingSchemas && head.missingSchemas !== undefined) yield `sets missingSchemas to ${head.missingSchemas}`;
  const dropped = base.policies.filter((p) => !head.policies.includes(p));
  if (dropped.length) yield `stops reading the policies of ${dropped.join(", ")}`;
  const definitions = head.clusterDefinitions.filter((d) => !base.clusterDefinitions.includes(d));
  if (definitions.length) yield `says ${definitions.join(", ")} are in the cluster`;
}

/**
 * Function packages composition-ci pulls and runs as processes without --allow-exec: the
 * crossplane-contrib functions that only transform data, vetted one by one. They run on the host
 * (no container), so a function that evaluates code or reads files or the network from its input
 * (function-kcl, function-shell, function-pythonic, function-cue, upstream function-go-templating's
 * FileSystem source, Upbound's API functions) is never trusted by default: a pull request could
 * make it run anything. The functions built in here (patch-and-transform, auto-ready,
 * go-templating, environment-configs, extra-resources, cel-filter, kro) run in-process anyway.
 * `functions.trusted` of the base branch's config adds more, knowingly.
 */
const VETTED_FUNCTIONS =
  "{function-sequencer,function-status-transformer,function-patch-and-transform,function-auto-ready,function-environment-configs,function-extra-resources,function-cel-filter}";
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
