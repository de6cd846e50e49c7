// config/: .composition-ci.yaml read and checked with its lines (its tests: and golden flags too).
import fs from "node:fs";
import path from "node:path";
import * as YAML from "yaml";
import { staysInside } from "../manifest/discover.js";
import { parseFieldPath } from "../manifest/fieldpath.js";
import { causeLine } from "../manifest/yaml-cause.js";
import { isSeverity, type Severity } from "../core/finding.js";
import { parseTestsConfig, type TestsConfig } from "./tests.js";

export type RuleLevel = Severity | "off";
export type MissingSchemaPolicy = "error" | "warning" | "ignore";

/** `.composition-ci.yaml`: what a repository says about how it is checked. */
export interface Config {
  /** Where the config came from, if anywhere. */
  file?: string;
  ignore: string[];
  rules: Record<string, RuleLevel>;
  schemaLocations: string[];
  crds: string[];
  /** More admission policies (files or directories inside the repository) than the scanned paths hold. */
  policies: string[];
  missingSchemas?: MissingSchemaPolicy;
  maxFileBytes?: number;
  /** How functions named here run: a command (process), a JS module, or a built-in. */
  functions: Record<string, FunctionConfig>;
  /**
   * `functions.trusted`: more function packages (registry/repository globs, optionally pinned
   * `@sha256:…`) pulled and run as processes without --allow-exec.
   */
  trustedFunctions: string[];
  /** `packages:`: more Crossplane packages whose CRDs validate the repository (references, tags or digests). */
  packages: string[];
  /** 1 keeps Crossplane v1 semantics where v2 removed them (e.g. `mode: Resources`). */
  crossplaneVersion?: 1 | 2;
  /** `crossplaneVersion: v2.3.4` (a release, not only a major): whose `crossplane render` output is printed. */
  crossplaneRelease?: string;
  /** OAM / KubeVela definitions installed in the cluster rather than kept in the repository. */
  clusterDefinitions: string[];
  /** JSON schemas of KubeVela definitions' parameters, by definition name (paths from the root). */
  parameterSchemas: Record<string, string>;
  /** More field names whose values are secret, masked in every output (besides password, token, …). */
  secretFields: string[];
  /**
   * Where function-go-templating's FileSystem templates are: the path the Function sees (a
   * DeploymentRuntimeConfig mounts a ConfigMap there) → a directory of the repository.
   */
  templateMounts: Record<string, string>;
  /**
   * `crossplaneServiceAccount: <namespace>/<name>`: who creates composed resources, as admission
   * policies see them (`request.userInfo`); crossplane-system/crossplane by default.
   */
  crossplaneServiceAccount?: string;
  /** `diff:`: what the rendered diff leaves out (`ignore`: fields, by kind or of every object; whole kinds) and its context lines. */
  diff?: DiffConfig;
  /** `tests:`: golden files mapped from example XRs (`composition-ci test`, docs/testing.md). */
  tests?: TestsConfig;
}

export interface DiffConfig {
  ignore: { kind?: string; path?: string }[];
  context?: number;
}

export interface FunctionConfig {
  command?: string[];
  module?: string;
  builtin?: string;
  /** Start-up allowance for a process function, in seconds. */
  startTimeout?: number;
}

export const CONFIG_FILE = ".composition-ci.yaml";

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(line ? `${file}:${line}: ${message}` : `${file}: ${message}`);
  }
}

const KNOWN_KEYS = [
  "ignore",
  "rules",
  "schemaLocations",
  "crds",
  "policies",
  "missingSchemas",
  "maxFileBytes",
  "functions",
  "crossplaneVersion",
  "clusterDefinitions",
  "parameterSchemas",
  "secretFields",
  "templateMounts",
  "tests",
  "packages",
  "crossplaneServiceAccount",
  "diff",
] as const;

export function emptyConfig(): Config {
  return {
    ignore: [],
    rules: {},
    schemaLocations: [],
    crds: [],
    policies: [],
    functions: {},
    trustedFunctions: [],
    packages: [],
    clusterDefinitions: [],
    parameterSchemas: {},
    secretFields: [],
    templateMounts: {},
  };
}

/** Reads `--config FILE`, or `.composition-ci.yaml` at the root when there is one. */
export function loadConfig(root: string, explicit?: string): Config {
  const file = explicit ? path.resolve(root, explicit) : path.join(root, CONFIG_FILE);
  if (!fs.existsSync(file)) {
    if (explicit) throw new ConfigError("config file not found", explicit);
    return emptyConfig();
  }
  const name = path.relative(root, file) || file;
  // The repository's own config must be a regular file in it: a link to /proc/self/status or to
  // a file elsewhere on the runner is not read. A --config named on the command line may be anywhere.
  if (!explicit) {
    const real = fs.realpathSync(file);
    const realRoot = fs.realpathSync(root);
    if (!real.startsWith(realRoot + path.sep)) throw new ConfigError("leads outside the repository (a symbolic link?); not read", name);
  }
  if (!fs.statSync(file).isFile()) throw new ConfigError("is not a regular file; not read", name);
  return parseConfig(fs.readFileSync(file, "utf8"), name, root);
}

/**
 * Parses a config. With `root`, the local paths it names (crds, schemaLocations, parameterSchemas)
 * must stay inside it: the config is part of the repository, and a pull request that changes it
 * must not get files from elsewhere on the runner read. Command-line flags may name any path.
 */
export function parseConfig(text: string, file: string, root?: string): Config {
  const lineCounter = new YAML.LineCounter();
  // Keys are checked for uniqueness below, in one pass (the parser's own check is quadratic).
  const doc = YAML.parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const lineOf = (node: unknown) => {
    const range = (node as { range?: number[] } | null)?.range;
    return range ? lineCounter.linePos(range[0]).line : undefined;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
    const message = e.message.split("\n")[0]!;
    // An unclosed quote is noticed where the text ends: said at the line that opens it.
    throw new ConfigError(message, file, causeLine(text, message, at.line, at.col));
  }
  const repeated = repeatedKey(doc);
  if (repeated) throw new ConfigError(`the key "${repeated.key}" is repeated (map keys must be unique)`, file, lineOf(repeated.node));
  const config = emptyConfig();
  config.file = file;
  if (doc.contents === null) return config;
  if (!YAML.isMap(doc.contents)) throw new ConfigError("the config must be a mapping of settings", file, 1);
  for (const pair of doc.contents.items) {
    const key = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const line = lineOf(pair.key);
    const fail = (msg: string): never => {
      throw new ConfigError(`${key}: ${msg}`, file, lineOf(pair.value) ?? line);
    };
    const value = settingValue(pair.value, doc, text, (msg, at) => {
      throw new ConfigError(`${key}: ${msg}`, file, at ?? lineOf(pair.value) ?? line);
    });
    switch (key as (typeof KNOWN_KEYS)[number]) {
      case "ignore":
      case "schemaLocations":
      case "crds":
      case "policies":
      case "clusterDefinitions":
      case "secretFields":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) fail("must be a list of strings");
        if (root && (key === "crds" || key === "policies" || key === "schemaLocations")) (value as string[]).forEach((p) => checkInside(root, p, fail));
        config[key as "ignore"] = value;
        break;
      case "parameterSchemas":
        if (!value || typeof value !== "object" || Array.isArray(value) || !Object.values(value).every((v) => typeof v === "string")) {
          fail("must map definition names to JSON schema files");
        }
        if (root) Object.values(value as Record<string, string>).forEach((p) => checkInside(root, p, fail));
        config.parameterSchemas = value;
        break;
      case "templateMounts":
        if (
          !value ||
          typeof value !== "object" ||
          Array.isArray(value) ||
          !Object.entries(value).every(([k, v]) => k.startsWith("/") && typeof v === "string")
        ) {
          fail("must map absolute paths the function sees (/templates) to directories of the repository");
        }
        if (root) Object.values(value as Record<string, string>).forEach((p) => checkInside(root, p, fail));
        config.templateMounts = value;
        break;
      case "rules":
        config.rules = parseRules(value, fail);
        break;
      case "missingSchemas":
        if (value !== "error" && value !== "warning" && value !== "ignore") fail("must be error, warning or ignore");
        config.missingSchemas = value;
        break;
      case "maxFileBytes":
        if (!Number.isInteger(value) || value <= 0) fail("must be a positive whole number of bytes");
        config.maxFileBytes = value;
        break;
      case "functions":
        config.functions = parseFunctions(value, fail);
        config.trustedFunctions = parseTrusted((value as Record<string, unknown>).trusted, fail);
        break;
      case "tests":
        config.tests = parseTestsConfig(value, fail);
        break;
      case "packages":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.trim() && !/\s/.test(v.trim())))
          fail("must be a list of package references (xpkg.upbound.io/upbound/provider-aws-s3:v1.20.0)");
        config.packages = (value as string[]).map((v) => v.trim());
        break;
      case "diff":
        config.diff = parseDiffConfig(value, fail);
        break;
      case "crossplaneServiceAccount":
        if (typeof value !== "string" || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(value))
          fail("must be <namespace>/<name> of the service account Crossplane runs as (crossplane-system/crossplane)");
        config.crossplaneServiceAccount = value;
        break;
      case "crossplaneVersion": {
        const release = /^v?([12])(?:\.(\d+)(?:\.(\d+))?)?$/.exec(String(value ?? "").trim());
        if ((typeof value !== "number" && typeof value !== "string") || !release) fail("must be 1, 2 or a release (v2.3.4, v2.5)");
        config.crossplaneVersion = Number(release![1]) as 1 | 2;
        if (release![2] !== undefined) config.crossplaneRelease = String(value).trim();
        break;
      }
      default:
        throw new ConfigError(`unknown key "${key}" (known keys: ${KNOWN_KEYS.join(", ")})`, file, line);
    }
  }
  return config;
}

/** The config's aliases expand to at most this many nodes: an alias bomb is a usage error, not a hang. */
const CONFIG_MAX_ALIASES = 100;

/**
 * A setting's value as plain data. An alias bomb, or an alias without its anchor, is the config's
 * fault, said at its line (`fail`), never an internal error.
 */
// `any`, as the parser's toJS gives it: each setting's case below checks what it holds.
function settingValue(node: unknown, doc: YAML.Document.Parsed, text: string, fail: (msg: string, line?: number) => never): any {
  if (!YAML.isNode(node)) return node;
  try {
    return node.toJS(doc, { maxAliasCount: CONFIG_MAX_ALIASES });
  } catch (err) {
    const message = (err as Error).message;
    if (/alias count/i.test(message)) return fail(`expands more than ${CONFIG_MAX_ALIASES} aliases (an anchor/alias bomb?); not read`);
    if (/^Unresolved alias/.test(message)) {
      const start = node.range ? text.slice(0, node.range[0]).split("\n").length : undefined;
      return fail(`${message} (an alias names an anchor set before it)`, causeLine(text, message, start, 1));
    }
    return fail(message);
  }
}

/** The first key a mapping of the config repeats, found in one pass with a set per mapping. */
function repeatedKey(doc: YAML.Document.Parsed): { key: string; node: unknown } | undefined {
  let found: { key: string; node: unknown } | undefined;
  YAML.visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!YAML.isScalar(pair.key)) continue;
        const name = String(pair.key.value);
        if (seen.has(name)) {
          found = { key: name, node: pair.key };
          return YAML.visit.BREAK;
        }
        seen.add(name);
      }
      return undefined;
    },
  });
  return found;
}

/** A local path (or the fixed part of a location template) must stay inside the repository; URLs are not paths. */
function checkInside(root: string, p: string, fail: (msg: string) => never): void {
  if (/^https?:\/\//.test(p)) return;
  const fixed = p.split("{{")[0]!;
  if (!staysInside(root, fixed || ".")) {
    fail(`"${p}" leads outside the repository; name such paths on the command line (--crds, --schema-location) or in the Action's inputs instead`);
  }
}

function parseFunctions(value: unknown, fail: (msg: string) => never): Record<string, FunctionConfig> {
  if (!value || typeof value !== "object" || Array.isArray(value)) fail("must map function names to { command | module | builtin }");
  const out: Record<string, FunctionConfig> = {};
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    if (name === "trusted") continue;
    const f = (raw ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(f).filter((k) => !["command", "module", "builtin", "startTimeout"].includes(k));
    if (unknown.length) fail(`${name}: unknown key "${unknown[0]}" (known: command, module, builtin, startTimeout)`);
    const ways = ["command", "module", "builtin"].filter((k) => f[k] !== undefined);
    if (ways.length > 1) fail(`${name}: give only one of command, module and builtin`);
    if (f.command !== undefined && (!Array.isArray(f.command) || f.command.length === 0 || !f.command.every((c) => typeof c === "string"))) {
      fail(`${name}: command must be a non-empty list of strings`);
    }
    if (f.module !== undefined && typeof f.module !== "string") fail(`${name}: module must be a path`);
    if (f.builtin !== undefined && typeof f.builtin !== "string") fail(`${name}: builtin must be a built-in function name`);
    if (f.startTimeout !== undefined && (typeof f.startTimeout !== "number" || f.startTimeout <= 0)) {
      fail(`${name}: startTimeout must be a positive number of seconds`);
    }
    out[name] = f as FunctionConfig;
  }
  return out;
}

/** `functions.trusted`: a list of `registry/repository` globs, each optionally `@sha256:<hex>`. */
function parseTrusted(value: unknown, fail: (msg: string) => never): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail("functions.trusted must be a list of package globs (registry/repository, optionally @sha256:…)");
  return value.map((entry, i) => {
    if (typeof entry !== "string" || !entry.trim()) fail(`functions.trusted[${i}] must be a package glob such as ghcr.io/acme/function-*`);
    const [glob, digest, extra] = entry.trim().split("@");
    if (extra !== undefined || (digest !== undefined && !/^sha256:[a-f0-9]{64}$/.test(digest)))
      fail(`functions.trusted[${i}]: "${entry}": a pin must be @sha256:<64 hex digits>`);
    if (!glob!.includes("/") || /[*?[\]{}!\\]/.test(glob!.split("/")[0]!))
      fail(`functions.trusted[${i}]: "${entry}" must name a registry host and a repository (trusting every registry is what allow-exec is for)`);
    return entry.trim();
  });
}

function parseRules(value: unknown, fail: (msg: string) => never): Record<string, RuleLevel> {
  if (!value || typeof value !== "object" || Array.isArray(value)) fail("must map rule ids (or `family/*`) to off, info, warning or error");
  const out: Record<string, RuleLevel> = {};
  for (const [rule, level] of Object.entries(value as Record<string, unknown>)) {
    if (typeof level !== "string" || !(level === "off" || isSeverity(level))) fail(`"${rule}" must be off, info, warning or error`);
    out[rule] = level as RuleLevel;
  }
  return out;
}

/** The level a config gives a rule: an exact id beats `family/*`, which beats nothing. */
export function ruleLevel(rules: Record<string, RuleLevel>, rule: string): RuleLevel | undefined {
  if (rule in rules) return rules[rule];
  const family = rule.split("/")[0];
  return rules[`${family}/*`];
}

/** `diff: {ignore: [{kind, path}], context: N}`: each ignore entry names a kind, a field path, or both. */
function parseDiffConfig(value: unknown, fail: (msg: string) => never): DiffConfig {
  if (!value || typeof value !== "object" || Array.isArray(value)) return fail("must be a mapping {ignore: [{kind, path}], context: N}");
  const v = value as Record<string, unknown>;
  const extra = Object.keys(v).filter((k) => k !== "ignore" && k !== "context");
  if (extra.length) fail(`unknown key "${extra[0]}" (known: ignore, context)`);
  const out: DiffConfig = { ignore: [] };
  if (v.ignore !== undefined) {
    if (!Array.isArray(v.ignore)) fail("ignore must be a list of {kind, path}");
    (v.ignore as unknown[]).forEach((entry, i) => {
      const e = (entry ?? {}) as Record<string, unknown>;
      if (typeof entry !== "object" || Array.isArray(entry) || (e.kind === undefined && e.path === undefined))
        fail(`ignore[${i}] must name a kind, a field path, or both: {kind: Deployment, path: "spec.template.metadata.annotations[checksum/config]"}`);
      if ((e.kind !== undefined && typeof e.kind !== "string") || (e.path !== undefined && typeof e.path !== "string"))
        fail(`ignore[${i}]: kind and path are strings`);
      if (typeof e.path === "string") {
        try {
          parseFieldPath(e.path);
        } catch (err) {
          fail(`ignore[${i}].path: ${(err as Error).message}`);
        }
      }
      out.ignore.push({ ...(typeof e.kind === "string" ? { kind: e.kind } : {}), ...(typeof e.path === "string" ? { path: e.path } : {}) });
    });
  }
  if (v.context !== undefined) {
    if (!Number.isInteger(v.context) || (v.context as number) < 0 || (v.context as number) > 100) fail("context must be a whole number of lines from 0 to 100");
    out.context = v.context as number;
  }
  return out;
}
