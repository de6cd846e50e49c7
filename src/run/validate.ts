import fs from "node:fs";
import path from "node:path";
import type { Config, MissingSchemaPolicy } from "../config/config.js";
import { DEFAULT_LIMITS, LoadCache, type LoadLimits } from "../manifest/load.js";
import { WorkStore } from "../cache/store.js";
import { KnownClean } from "../validate/known-clean.js";
import { readManifests } from "../manifest/read.js";
import type { Manifest } from "../manifest/manifest.js";
import { compareFindings, type Finding } from "../core/finding.js";
import { ValidatorCompiler, defaultCacheDir } from "../validate/compile.js";
import { SchemaEngine } from "../validate/engine.js";
import type { SchemaProblem } from "../validate/openapi.js";
import { applyPolicy, findingAt, objectSuppressions } from "../validate/findings.js";
import { guarded, internalError } from "../validate/guard.js";
import { kptfileFindings, type KptRepo } from "../kpt/index.js";
import { PackageLayout } from "../manifest/packages.js";
import { isLocalConfig, isToolObject } from "../manifest/roles.js";
import { isPlainObject } from "../core/json.js";
import { explainV1Forms, v1Repository } from "../validate/crossplane-v1.js";
import { withoutPlaceholderPackage } from "../validate/render-config.js";
import { checkManifests, isPolicyObject, repositoryPolicies, type RepositoryPolicies } from "../policy/index.js";
import type { PolicyExplain } from "../policy/index.js";
import { RepoIndex } from "../validate/repo-index.js";
import { dropSuperseded, runRules } from "../validate/rules/index.js";
import { ptInputs, ptRules } from "../render/functions/patch-and-transform/rules.js";
import { builtinNames } from "../render/runner/builtin-names.js";
import { isCrd } from "../validate/schemas/crd.js";
import { SchemaLocations } from "../validate/schemas/locations.js";
import { SchemaRegistry, type SchemaEntry } from "../validate/schemas/registry.js";
import { loadPackageSchemas, type UsedPackage } from "../packages/schemas.js";
import type { PackageSettings } from "../runtimes/package.js";
import { gvkLabel, gvkOf, type Gvk } from "../validate/schemas/types.js";
import { runKubeconform, type Engine } from "../validate/kubeconform.js";
import { isKubernetesCoreKind } from "../validate/schemas/kubernetes.js";
import { missingSchemaMessage } from "../validate/missing-schema.js";
import { Yaml11Ledger, yaml11Findings } from "../validate/yaml11.js";
import type { Violation } from "../validate/messages.js";
import { knownSecrets, type KnownSecrets } from "../rendered/secrets.js";

export interface ValidateOptions {
  /**
   * Where the schemas of the packages the repository depends on come from (src/packages); without
   * it, none are fetched.
   */
  packages?: { settings: PackageSettings; allowExec: boolean };
  root: string;
  paths: string[];
  config: Config;
  /** Extra CRD files or directories (`--crds`), added to the config's. */
  crds?: string[];
  /** Extra admission policy files or directories (`--policies`), added to the config's `policies:`. */
  policies?: string[];
  /**
   * The policies to check against, instead of the tree's own: a pull request is checked against
   * its base's (diff with the base's config), so it cannot switch off the rules it is checked by.
   */
  policiesFrom?: RepositoryPolicies;
  /** The base tree's manifests (diff): an object of the same identity there makes its admission an UPDATE. */
  previous?: Manifest[];
  /** Extra schema locations (`--schema-location`), added to the config's. */
  schemaLocations?: string[];
  missingSchemas?: MissingSchemaPolicy;
  limits?: Partial<LoadLimits>;
  /** Disk cache for compiled validators and downloaded schemas; undefined = default, null = off. */
  cacheDir?: string | null;
  engine?: Engine;
  kubeconformPath?: string;
  fetch?: typeof fetch;
  /** The semantic rules (rules/); off only to measure what they cost. */
  semanticRules?: boolean;
  /** Filled with where the run's time went (the bench prints it). */
  timings?: Partial<Timings>;
  /** Shared by the validations of two trees (diff's base and head): work on what they have in common is done once. */
  reuse?: TreeReuse;
}

/**
 * What validating a second tree takes from the first: files with the same bytes at the same path
 * are parsed once (LoadCache), and an object is checked once against schemas of the same content
 * (one SchemaEngine for both registries). Every finding is still made for each tree, from its own
 * registry and rules, so each result is what a validation of that tree alone gives.
 */
export class TreeReuse {
  readonly scanned: LoadCache;
  readonly library: LoadCache;

  /** With a `store`, what an earlier run parsed and found valid is not done again for either tree. */
  constructor(readonly store?: WorkStore) {
    this.scanned = new LoadCache(store);
    this.library = new LoadCache(store);
  }

  private shared?: { dir: string | undefined; engine: SchemaEngine };

  engine(dir: string | undefined): SchemaEngine {
    if (!this.shared || this.shared.dir !== dir) this.shared = { dir, engine: new SchemaEngine(new ValidatorCompiler(dir), true) };
    return this.shared.engine;
  }
}

/** The work store of `root` in the cache directory; none without one, or with COMPOSITION_CI_WORK_CACHE=0. */
export function openWorkStore(cacheBase: string | undefined, root: string): WorkStore | undefined {
  return cacheBase && process.env.COMPOSITION_CI_WORK_CACHE !== "0" ? WorkStore.open(cacheBase, root) : undefined;
}

/** Milliseconds per phase: reading (discovery and parsing), the registry, schemas, rules, the rest. */
export type Timings = Record<"read" | "registry" | "schemas" | "rules" | "finish", number>;

export interface ValidateResult {
  findings: Finding[];
  files: number;
  documents: number;
  manifests: Manifest[];
  registry: SchemaRegistry;
  /** The packages whose CRDs were used, at which digest. */
  packages: UsedPackage[];
  /** The run's package settings, for rendering to share (one cache, tags resolved once). */
  packageSettings?: PackageSettings;
  /** The secret values of the manifests, for the run's maskers (`maskerFor`). */
  secrets: KnownSecrets;
  /** The index the semantic rules used, reusable for rendering. */
  index: RepoIndex;
  /** The admission policies the tree is checked against (its own, or its base's), for rendered objects too. */
  policies: RepositoryPolicies;
  /** What each policy matched, passed, failed and could not evaluate among the repository's objects. */
  policyExplain: PolicyExplain[];
  /** The engine that validated them, reusable for rendered objects. */
  engine: SchemaEngine;
  config: Config;
}

/** Reads every manifest below the paths and checks each against the schema registry. */
export async function validateRepo(options: ValidateOptions): Promise<ValidateResult> {
  const { config } = options;
  const lap = stopwatch(options.timings);
  const limits = loadLimits(config, options.limits);
  const { reuse } = options;
  const cacheBase = options.cacheDir === null ? undefined : (options.cacheDir ?? defaultCacheDir());
  // Files parsed (and objects found valid) by an earlier run with the same bytes are not parsed (checked) again.
  const store = reuse ? reuse.store : openWorkStore(cacheBase, options.root);
  const loads = reuse?.scanned ?? (store && new LoadCache(store, false));
  const scanned = readManifests(options.paths, options.root, config.ignore, limits, loads);
  const crdPaths = [...config.crds, ...(options.crds ?? [])];
  const library = reuse?.library ?? loads;
  const extra = crdPaths.length ? readManifests(crdPaths, options.root, [], limits, library) : undefined;
  const policyPaths = [...config.policies, ...(options.policies ?? [])];
  const policyFiles = policyPaths.length && !options.policiesFrom ? readManifests(policyPaths, options.root, [], limits, library) : undefined;
  lap("read");

  const validatorDir = cacheBase && path.join(cacheBase, "validators");
  const templates = [...config.schemaLocations, ...(options.schemaLocations ?? [])];
  const locations = templates.length
    ? new SchemaLocations({ templates, cacheDir: cacheBase && path.join(cacheBase, "schemas"), fetch: options.fetch, root: options.root })
    : undefined;
  const registry = new SchemaRegistry(locations, PackageLayout.fromManifests(scanned.manifests));
  for (const m of scanned.manifests) registry.addDefinitions(m);
  for (const m of extra?.manifests ?? []) registry.addDefinitions(m, { library: true });
  const fromPackages = options.packages
    ? await loadPackageSchemas(scanned.manifests, {
        packages: options.packages.settings,
        allowExec: options.packages.allowExec,
        trusted: config.trustedFunctions,
        configPackages: config.packages,
      })
    : { crds: [], used: [], findings: [] };
  for (const m of fromPackages.crds) registry.addDefinitions(m, { fromPackage: true });
  for (const f of fromPackages.findings) if (f.rule === "package/unavailable" && f.file) registry.unavailablePackages.push(f.file);
  registry.addBuiltins();

  const findings: Finding[] = [...scanned.findings, ...(extra?.findings ?? []), ...fromPackages.findings];
  if (scanned.manifests.length === 0 && !scanned.findings.some((f) => f.severity !== "info"))
    findings.push(nothingFound(options.paths, scanned.files, config.ignore));
  // The composed resources' bases too: the pt rules check each against its kind's schema.
  const locationFailures = await registry.prepare([...distinctGvks(scanned.manifests), ...composedBaseGvks(scanned.manifests)]);
  findings.push(...locationFailures.map((message) => ({ rule: "schema/location-failed", severity: "warning" as const, message })));
  for (const note of registry.notes) {
    if (note.manifest) findings.push(findingAt(note.manifest, "/metadata/name", "schema/duplicate-definition", note.severity, note.message));
  }

  lap("registry");
  const engine = options.engine ?? "builtin";
  const policy = options.missingSchemas ?? config.missingSchemas ?? "warning";
  const schemaEngine = reuse ? reuse.engine(validatorDir) : new SchemaEngine(new ValidatorCompiler(validatorDir));
  const missing = { policy, packagesUnavailable: fromPackages.findings.some((f) => f.rule === "package/unavailable") };
  const yaml11 = new Yaml11Ledger();
  const stale = new Set<SchemaEntry>();
  const known = store && new KnownClean(store);
  const coreForKubeconform: Manifest[] = [];
  schemaEngine.remember(() => {
    for (const m of scanned.manifests) {
      const core = isKubernetesCoreKind(m.apiVersion, m.kind);
      if (core && engine !== "builtin") coreForKubeconform.push(m);
      if (!(core && engine === "kubeconform"))
        guarded(m, "validating", findings, () =>
          findings.push(...withoutPlaceholderPackage(m, checkManifest(m, registry, schemaEngine, missing, yaml11, stale, known))),
        );
    }
  });
  findings.push(...staleFindings(stale));
  findings.push(...schemaProblems(registry, (entry) => known?.problems(entry, schemaEngine) ?? schemaEngine.problems(entry)));
  lap("schemas");
  const index = new RepoIndex([...scanned.manifests, ...(extra?.manifests.filter(isCrd) ?? [])], scanned.kptfileDirs, scanned.unread);
  findings.push(...index.failures);
  const ruleFindings =
    options.semanticRules === false
      ? []
      : schemaEngine.remember(() =>
          runRules(
            {
              index,
              registry,
              engine: schemaEngine,
              config,
              yaml11,
              builtinFunctions: new Set(builtinNames()),
              readFile: (file) => fs.readFileSync(path.resolve(options.root, file), "utf8"),
            },
            [ptRules],
          ),
        );
  if (options.semanticRules !== false) ruleFindings.push(...kptChecks(scanned, options.root));
  findings.push(...yaml11.remaining()); // what no embedded object's schema decided
  const policies = options.policiesFrom ?? repositoryPolicies(scanned.manifests, policyFiles?.manifests ?? []);
  const policyRun = checkManifests(policies, scanned.manifests, registry, options.previous);
  findings.push(...(policyFiles?.findings ?? []), ...(options.policiesFrom ? [] : policies.findings), ...policyRun.findings);
  lap("rules");
  if (coreForKubeconform.length) findings.push(...(await runKubeconform(coreForKubeconform, { binary: options.kubeconformPath, schemaLocations: templates })));
  lap("schemas");

  const all = v1Repository(
    explainV1Forms([...dropSuperseded(findings, ruleFindings), ...ruleFindings], config.crossplaneVersion),
    scanned.manifests,
    config.crossplaneVersion,
  );
  // Every finding placed on a repository object gets that object's ignore annotation.
  const suppressions = objectSuppressions(all, scanned.manifests);
  const reported = applyPolicy(all, config.rules, suppressions).sort(compareFindings);
  // The secret values of every object, for the run's maskers: found once, kept for the next run.
  const secrets = knownSecrets(scanned.manifests, config.secretFields, known);
  // What this run learnt (parses, clean checks, the positions its findings needed) for the next run.
  for (const cache of new Set([loads, library])) cache?.keepPositions();
  store?.save();
  lap("finish");
  return {
    findings: reported,
    files: scanned.files,
    documents: scanned.documents,
    manifests: scanned.manifests,
    registry,
    index,
    engine: schemaEngine,
    config,
    policies,
    policyExplain: policyRun.explain,
    packages: fromPackages.used,
    packageSettings: options.packages?.settings,
    secrets,
  };
}

/** The Kptfiles' own checks (kpt packages); a failure here is one internal/error finding, never the end of the run. */
function kptChecks(scanned: KptRepo, root: string): Finding[] {
  try {
    return kptfileFindings(scanned, root);
  } catch (err) {
    return [internalError(undefined, "checking the Kptfiles", err)];
  }
}

/** The loader's limits of a run: the defaults, the config's maxFileBytes, the caller's. */
export function loadLimits(config: Config, limits?: Partial<LoadLimits>): LoadLimits {
  return { ...DEFAULT_LIMITS, ...(config.maxFileBytes ? { maxFileBytes: config.maxFileBytes } : {}), ...limits };
}

/** A run that read no Kubernetes object says so: a clean report of nothing is no report. */
function nothingFound(paths: string[], files: number, ignore: string[]): Finding {
  const where = paths.join(", ");
  const why =
    files === 0
      ? `no *.yaml, *.yml or *.json file below ${where}${ignore.length ? ` (the config ignores ${ignore.join(", ")}; .gitignore files apply too)` : " (.gitignore files apply)"}`
      : `none of the ${files} files below ${where} holds a Kubernetes object (a document with apiVersion and kind)`;
  return { rule: "file/no-manifests", severity: "warning", message: `nothing to check: ${why}` };
}

function checkManifest(
  m: Manifest,
  registry: SchemaRegistry,
  engine: SchemaEngine,
  missing: { policy: MissingSchemaPolicy; packagesUnavailable: boolean },
  yaml11: Yaml11Ledger,
  stale: Set<SchemaEntry>,
  known?: KnownClean,
): Finding[] {
  if (isLocalConfig(m.object)) return []; // a kpt function's config: no API server reads it
  const gvk: Gvk = { group: m.group, version: m.version, kind: m.kind };
  const entry = registry.get(gvk, m.file);
  if (!entry) {
    if (isToolObject(m) || isPolicyObject(m)) return [];
    const ambiguous = yaml11Findings(m, [], undefined, yaml11).findings;
    if (missing.policy === "ignore") return ambiguous;
    return [findingAt(m, "/kind", "schema/missing", missing.policy, missingSchemaMessage(gvk, registry, missing)), ...ambiguous];
  }
  const knownKey = known?.key(m, entry);
  if (knownKey !== undefined && known!.has(knownKey)) return []; // the schema's own problems are said by schemaProblems
  const alternatives = () => registry.alternatives(gvk, m.file);
  const kept = knownKey === undefined ? undefined : known!.checked(knownKey, alternatives);
  if (kept) {
    if (kept.stale) stale.add(entry);
    return kept.findings;
  }
  const raw = engine.validateObject(withoutStatus(m.object), entry);
  const { violations, older } = withAlternatives(m, entry, raw, registry, engine);
  if (older) stale.add(entry);
  const ambiguity = yaml11Findings(m, violations, (object) => engine.validateObject(withoutStatus(object as Manifest["object"]), entry), yaml11);
  const findings = setterPlaceholders(
    m,
    violations.filter((v) => !ambiguity.superseded.has(v)).map((v) => findingAt(m, v.pointer, v.rule, v.severity ?? "error", v.message)),
  );
  findings.push(...ambiguity.findings);
  const absent = missingSpec(m, entry);
  if (absent) findings.push(findingAt(m, "", "schema/required", "error", absent));
  if (!hasName(m) && !isToolObject(m))
    findings.push(
      findingAt(
        m,
        isPlainObject(m.object.metadata) ? "/metadata" : "",
        "schema/required",
        "error",
        "missing required field `metadata.name`: the API server refuses an object with neither a name nor a generateName",
      ),
    );
  if (knownKey !== undefined && raw.length === 0 && findings.length === 0) known!.add(knownKey);
  else if (knownKey !== undefined) known!.keepChecked(knownKey, { findings, stale: older }, alternatives);
  return findings;
}

/**
 * Where the repository offers several definitions of the kind equally near the object (vendored
 * copies of one CRD in sibling packages), which one the cluster holds is a guess: the object is
 * fine if any of them accepts it. A repository's own CRD that refuses what composition-ci's
 * built-in schema of the kind accepts is an older copy: one warning on that CRD, not an error per
 * object (`staleFindings`).
 */
function withAlternatives(
  m: Manifest,
  entry: SchemaEntry,
  violations: Violation[],
  registry: SchemaRegistry,
  engine: SchemaEngine,
): { violations: Violation[]; older: boolean } {
  if (!violations.some((v) => (v.severity ?? "error") === "error") || !entry.definedBy) return { violations, older: false };
  const { tied, builtin } = registry.alternatives(gvkOf(m.apiVersion, m.kind), m.file);
  const object = withoutStatus(m.object);
  for (const other of tied)
    if (other !== entry && !engine.validateObject(object, other).some((v) => (v.severity ?? "error") === "error")) return { violations: [], older: false };
  if (builtin && entry.source === "crd" && !engine.validateObject(object, builtin).some((v) => (v.severity ?? "error") === "error"))
    return { violations: violations.filter((v) => v.severity !== undefined && v.severity !== "error"), older: true };
  return { violations, older: false };
}

/**
 * Values the repository marks as placeholders, which someone or something replaces before the
 * object is applied: a kpt setter's (`image: IMAGE # kpt-set: ${image}`, replaced by apply-setters
 * or a PackageVariant's pipeline) and a sample's fill-in (`value: {your-cluster-domain}`,
 * `<YOUR CLIENT ID - BASE64 ENCODED>`). What the schema says of them is an info, not a fault.
 */
function setterPlaceholders(m: Manifest, findings: Finding[]): Finding[] {
  if (!findings.length) return findings;
  const lines = placeholderLines(m.source);
  if (!lines) return findings;
  return findings.map((f) => {
    if (f.line === undefined || f.severity === "info") return f;
    const here = lines[f.line - 1] ?? "";
    if (/#\s*kpt-set:/.test(here))
      return {
        ...f,
        severity: "info" as const,
        message: `${f.message} (a kpt setter's placeholder, which apply-setters replaces before the package is applied)`,
      };
    if (FILL_IN.test(here) || FILL_IN_LINE.test(lines[f.line] ?? ""))
      return { ...f, severity: "info" as const, message: `${f.message} (a placeholder to fill in before the object is applied)` };
    return f;
  });
}

/** A value that is a fill-in: `{your-cluster-domain}` or `<YOUR CLIENT ID>`, alone after its key or on its own line. */
const FILL_IN = /:\s*(?:<[^<>\n]*[A-Z][^<>\n]*>|\{[A-Za-z][A-Za-z0-9._ -]*\})\s*(?:#.*)?$/;
const FILL_IN_LINE = /^\s*<[^<>\n]*[A-Z][^<>\n]*>\s*$/;
const MAY_HOLD_PLACEHOLDERS = /kpt-set:|<[^<>\n]*[A-Z][^<>\n]*>|\{[A-Za-z][A-Za-z0-9._ -]*\}/;

/** A file's lines when it may hold placeholders, once per file (a List's items share it); null when it holds none. */
const linesOfFile = new WeakMap<Manifest["source"], string[] | null>();
function placeholderLines(source: Manifest["source"]): string[] | null {
  let lines = linesOfFile.get(source);
  if (lines === undefined) linesOfFile.set(source, (lines = MAY_HOLD_PLACEHOLDERS.test(source.text) ? source.text.split("\n") : null));
  return lines;
}

/** One warning per repository CRD older than the built-in schema of its kind. */
function staleFindings(stale: Set<SchemaEntry>): Finding[] {
  return [...stale].map((e) =>
    findingAt(
      e.definedBy!,
      e.definedAt ?? "",
      "schema/stale-definition",
      "warning",
      `this CRD's schema of ${gvkLabel(e.gvk)} refuses objects of the repository that the newer schema composition-ci ships for the kind accepts: it is an older copy of the CRD (objects were checked against the newer one); update it`,
    ),
  );
}

/**
 * The object as the API server checks it on create: `status` is what controllers write, and the
 * server drops what a manifest says there (status subresource) before it validates. One copy per
 * object, so two trees sharing parsed objects (diff) still share their checks.
 */
const statusless = new WeakMap<object, object>();
function withoutStatus(object: Manifest["object"]): object {
  if (!("status" in object)) return object;
  let copy = statusless.get(object);
  if (!copy) {
    const { status: _status, ...rest } = object;
    statusless.set(object, (copy = rest));
  }
  return copy;
}

/** Whether an object says what it is called (a name, or a generateName the API server completes). */
function hasName(m: Manifest): boolean {
  const meta = m.object.metadata;
  if (!isPlainObject(meta)) return false;
  const given = (v: unknown) => (typeof v === "string" && v !== "") || typeof v === "number";
  return given(meta.name) || given(meta.generateName);
}

/**
 * A built-in kind whose spec has required fields, written without a spec (or `spec: null`): the
 * API server takes it (spec itself is optional in the CRD) but the controller cannot act on it,
 * and the schema never reaches the fields inside to say what is missing.
 */
function missingSpec(m: Manifest, entry: SchemaEntry): string | undefined {
  if (entry.source !== "builtin" || (m.object.spec !== undefined && m.object.spec !== null)) return undefined;
  const required = entry.schema?.properties?.spec?.required ?? [];
  if (!required.length) return undefined;
  return `missing \`spec\`: a ${m.kind} needs ${required.map((f: string) => `spec.${f}`).join(", ")}`;
}

/** Problems in repository CRDs and XRDs themselves, reported once on the defining manifest. */
function schemaProblems(registry: SchemaRegistry, problemsOf: (entry: SchemaEntry) => SchemaProblem[]): Finding[] {
  const out: Finding[] = [];
  for (const entry of registry.defined()) {
    if (!entry.definedBy) continue;
    for (const d of entry.defects ?? []) {
      out.push(
        findingAt(entry.definedBy, entry.definedAt ?? "", "schema/invalid-definition", "error", `schema of ${gvkLabel(entry.gvk)} at ${d.path}: ${d.message}`),
      );
    }
    for (const p of problemsOf(entry)) {
      out.push(
        findingAt(
          entry.definedBy,
          entry.definedAt ?? "",
          "schema/invalid-definition",
          "warning",
          `schema of ${gvkLabel(entry.gvk)} at ${p.path || "(root)"}: ${p.message}`,
        ),
      );
    }
  }
  return out;
}

/** The kinds of the composed resources' bases of Compositions (their P&T inputs, as the pt rules read them). */
function composedBaseGvks(manifests: Manifest[]): Gvk[] {
  const seen = new Map<string, Gvk>();
  for (const m of manifests) {
    if (m.kind !== "Composition" || m.group !== "apiextensions.crossplane.io") continue;
    for (const { input } of ptInputs(m)) {
      for (const r of Array.isArray(input.resources) ? input.resources : []) {
        const base = isPlainObject(r) ? r.base : undefined;
        if (isPlainObject(base) && typeof base.apiVersion === "string" && typeof base.kind === "string")
          seen.set(`${base.apiVersion}/${base.kind}`, gvkOf(base.apiVersion, base.kind));
      }
    }
  }
  return [...seen.values()];
}

function distinctGvks(manifests: Manifest[]): Gvk[] {
  const seen = new Map<string, Gvk>();
  for (const m of manifests) seen.set(`${m.apiVersion}/${m.kind}`, { group: m.group, version: m.version, kind: m.kind });
  return [...seen.values()];
}

/** Adds the time since the last lap to a phase; does nothing when nobody asked. */
function stopwatch(into: Partial<Timings> | undefined): (phase: keyof Timings) => void {
  let last = performance.now();
  return (phase) => {
    if (!into) return;
    const now = performance.now();
    into[phase] = (into[phase] ?? 0) + now - last;
    last = now;
  };
}
