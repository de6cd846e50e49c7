import type { JsonObject } from "../core/json.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONFIG_FILE, ConfigError, loadConfig, type Config } from "../config/config.js";
import { markdownToText } from "../report/formats/diff-text.js";
import { builtinVersionChanges, builtinVersionMoves, type PackageOutcome } from "../render/builtin-versions.js";
import { changedFiles, GitError, materialize, removeMaterialized, resolveCommit, topLevel, type Materialized } from "../git/git.js";
import { objectIdentity, type Manifest } from "../manifest/manifest.js";
import { ANY_OBJECT, renderSources, sourceFiles } from "../render/dependencies.js";
import { objectCounts, type DiffReport } from "../report/diff.js";
import { alignKeys, diffFindings, diffSources, sourceKeys, type FindingsDiff, type SourceChange } from "../rendered/diff.js";
import { summarize, type FailOn, type Finding } from "../core/finding.js";
import { decideVerdict } from "../report/verdict.js";
import { CLAIM_XR_KEY, sourceState, stateCounts } from "../rendered/source.js";
import { ObjectMoves } from "../rendered/moves.js";
import { kptBuiltinVersionChanges } from "../kpt/index.js";
import { formatReport } from "../report/formats/index.js";
import { COMMENT_LIMIT, formatDiffMarkdown } from "../report/formats/markdown.js";
import { maskFindings, type SecretMasker } from "../secrets/mask.js";
import { maskerFor } from "../rendered/secrets.js";
import type { Engine } from "../validate/kubeconform.js";
import { loadLimits, openWorkStore, TreeReuse, validateRepo, type ValidateResult } from "./validate.js";
import { defaultCacheDir } from "../validate/compile.js";
import { preload } from "../manifest/read.js";
import type { RenderedSource } from "../rendered/source.js";
import { TOOL_VERSION } from "../version.js";
import { renderAndValidate, renderStepOptions } from "./check.js";
import { headConfigChange, narrowToBase } from "../trust.js";
import { changedPolicies, isAdmissionPolicy, policyRemovedFinding, removedPolicies } from "../policy/index.js";
import { xrdChanges, type DefinitionChange, type DefinitionDiff } from "../report/definition-changes.js";
import { activationChanges, compositionChanges, dependencyChanges, packageChanges } from "../report/composition-changes.js";
import { transitionFindings } from "../validate/transitions.js";
import { checkTests } from "../testing/index.js";
import { applyPolicy, objectSuppressions } from "../validate/findings.js";
import { UsageError } from "../core/usage.js";
import type { PackageSettings } from "../runtimes/package.js";

export interface DiffOptions {
  /** Repository root (inside a git work tree). */
  root: string;
  paths: string[];
  base: string;
  head?: string;
  all?: boolean;
  allowExec?: boolean;
  developmentTargets?: Record<string, string>;
  /** Where function packages come from, shared by both trees (a tag is resolved once). */
  packages?: PackageSettings;
  /** Settings that widen the run come from the base ref's config (pull requests). */
  trustBaseConfig?: boolean;
  timeoutMs?: number;
  /** How deep composed XRs render with their own Compositions (default 5). */
  maxNestedDepth?: number;
  /** --crossplane-version: the release both sides render as. */
  crossplaneVersion?: string;
  configFile?: string;
  crds?: string[];
  /** Admission policy files or directories besides the repository's (`--policies`). */
  policies?: string[];
  schemaLocations?: string[];
  engine?: Engine;
  kubeconformPath?: string;
  /** What fails the run (the verdict the report's headline states). */
  failOn?: FailOn;
  failOnNew?: boolean;
  /** The workflow run's URL, for the report's link (the Action). */
  runUrl?: string;
  /** Validate each tree on its own and write every base file (the tests compare this with the default). */
  fullValidation?: boolean;
}

export interface DiffResult {
  report: DiffReport;
  /** Masks secrets in any text before it is written. */
  masker: SecretMasker;
  /** The findings at head (validation and rendering). */
  headFindings: Finding[];
  /** What the head's affected sources render (the committed drift snapshot is compared with them). */
  headSources: RenderedSource[];
}

/** One tree of the comparison: its validation, its sources by key, and (once rendered) what they make. */
interface Side {
  root: string;
  result: ValidateResult;
  /** Every source the tree could render, with the key it is known by across trees. */
  keys: Map<Manifest, string>;
  sources: RenderedSource[];
  findings: Finding[];
  /** The findings rendering made (of the sources it rendered, their objects and tests). */
  rendering?: Set<Finding>;
  /** The base's policies this tree removes, when it is checked with its own policies: what they found at base is not fixed. */
  policiesRemoved: Manifest[];
}

/** The report in a format, with secret values masked value by value (and the markdown's free text redacted). */
export function formatDiff(result: DiffResult, format: "markdown" | "json" | "sarif" | "text", maxChars = COMMENT_LIMIT, linkBase?: string): string {
  const { masker } = result;
  if (format === "json") return JSON.stringify(masker.redactJson(result.report), null, 2) + "\n";
  // For a terminal: the whole report, without markup or a size limit.
  if (format === "text") return markdownToText(masker.redact(formatDiffMarkdown(masker.redactJson(result.report), { maxChars: Number.MAX_SAFE_INTEGER })));
  if (format === "sarif") {
    const findings = maskFindings(result.headFindings, masker);
    return formatReport("sarif", { findings, summary: summarize(findings, 0, 0), toolVersion: TOOL_VERSION });
  }
  return masker.redact(
    formatDiffMarkdown(masker.redactJson(result.report), { maxChars, linkBase, fullReportHint: "The job summary and the report files hold everything." }),
  );
}

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export async function runDiff(options: DiffOptions): Promise<DiffResult> {
  const cleanups: Materialized[] = [];
  const removeTrees = () => {
    for (const c of cleanups.splice(0)) c.cleanup();
  };
  // A tree may be in RAM (/dev/shm): an interrupted run removes it too, those git is still writing
  // included, then exits with 128 + the signal's number, as a shell reports a process it ended (a
  // re-raised signal would not end the process when anything else listens for it).
  const interrupted = (signal: NodeJS.Signals) => {
    removeTrees();
    removeMaterialized();
    for (const s of SIGNALS) process.removeListener(s, interrupted);
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  };
  for (const s of SIGNALS) process.once(s, interrupted);
  try {
    const top = await topLevel(options.root).catch(() => {
      throw new UsageError(`${options.root} is not inside a git repository: diff compares two git refs`);
    });
    const prefix = path.relative(top, options.root);
    const baseCommit = await resolveCommit(options.base, top);
    const headCommit = options.head ? await resolveCommit(options.head, top) : undefined;
    const changed = (await changedFiles(baseCommit, headCommit, top))
      .map((f) => path.relative(prefix, f).split(path.sep).join("/"))
      .filter((f) => !f.startsWith(".."));
    // Writing thousands of files is what materializing a tree costs: trees go to memory when
    // there is room, and a tree's files that another holds byte for byte are hard links to those.
    // Neither when code from the repository may run: it could write to a file of one tree, which
    // would then be the other's too, and a tmpfs may forbid executing files.
    const cheap: { inMemory?: boolean; linkFrom?: string } = options.allowExec || options.fullValidation ? {} : { inMemory: true, linkFrom: top };
    let headRoot = options.root;
    let headTop = top;
    if (headCommit) {
      const headTree = await materialize(headCommit, top, cheap);
      cleanups.push(headTree);
      headTop = headTree.dir;
      headRoot = path.join(headTree.dir, prefix);
    }
    // The trees share what they have in common: files parsed once, objects checked once per schema.
    const reuse = options.fullValidation ? undefined : new TreeReuse(openWorkStore(options.packages?.cacheDir ?? defaultCacheDir(), options.root));
    const writing = materialize(baseCommit, top, { ...cheap, linkFrom: cheap.linkFrom && headTop });
    writing.catch(() => undefined); // awaited below; meanwhile it must not count as unhandled
    // While git writes the base tree, the head's files are parsed: most of the base's are the same.
    if (reuse) await preloadSide(headRoot, options, reuse);
    const baseTree = await writing;
    cleanups.push(baseTree);
    const baseSide = await analyze(path.join(baseTree.dir, prefix), options, reuse);
    const narrow = options.trustBaseConfig && !options.allowExec ? baseSide.result.config : undefined;
    const headSide = await analyze(headRoot, options, reuse, narrow, baseSide);
    // One source is known by one key on both sides: what renders, what it rendered before, what is shown.
    alignKeys(baseSide.keys, headSide.keys);
    const renderAll = options.all === true || everythingAffected(changed, [baseSide, headSide]);
    const coverage = renderCoverage(changed, [baseSide, headSide]);
    const selected = renderAll ? undefined : coverage.affected;
    // The head's rendered objects that exist at base are admitted as UPDATEs of the base's: with
    // policies, the base renders first.
    // A function moved to another version renders from its real packages, where they can be had (each side its own).
    const moves = builtinVersionMoves(baseSide.result.manifests, headSide.result.manifests, headSide.result.config);
    const outcomes = { base: new Map(moves.map((m) => [m.name, {}])), head: new Map(moves.map((m) => [m.name, {}])) };
    if (headSide.result.policies.set.policies.length) {
      await renderSide(baseSide, options, selected, undefined, outcomes.base);
      await renderSide(headSide, options, selected, previousObjects(baseSide), outcomes.head);
    } else
      await Promise.all([renderSide(baseSide, options, selected, undefined, outcomes.base), renderSide(headSide, options, selected, undefined, outcomes.head)]);
    for (const side of [baseSide, headSide]) await testSide(side, options);
    // A pull request is an update: the head's objects that exist at base meet their transition rules.
    // A Function whose version changes while it runs built in: the diff cannot show what the new version does.
    const versions = [
      ...builtinVersionChanges(moves, headSide.sources, outcomes),
      // Kptfiles are the kpt sources' own manifests (a Kptfile is no .yaml file).
      ...kptBuiltinVersionChanges(
        baseSide.sources.map((s) => s.source),
        headSide.sources.map((s) => s.source),
      ),
    ];
    headSide.findings = [...headSide.findings, ...applyPolicy(versions, headSide.result.config.rules, objectSuppressions(versions, headSide.result.manifests))];
    const transitions = transitionFindings(
      { manifests: baseSide.result.manifests, sources: baseSide.sources },
      { manifests: headSide.result.manifests, sources: headSide.sources, registry: headSide.result.registry },
    );
    headSide.findings = [
      ...headSide.findings,
      ...applyPolicy(transitions, headSide.result.config.rules, objectSuppressions(transitions, headSide.result.manifests)),
    ];
    const masker = maskerFor(
      [...baseSide.result.manifests, ...headSide.result.manifests],
      [...baseSide.sources, ...headSide.sources],
      [...new Set([...baseSide.result.config.secretFields, ...headSide.result.config.secretFields])],
      [baseSide.result.secrets, headSide.result.secrets],
    );
    // What the team does not review (config diff:), as the gate's config says: the base's in a pull request.
    const diffed = diffSources(
      baseSide.sources,
      headSide.sources,
      masker,
      headSide.result.config.diff ?? {},
      (m) => baseSide.keys.get(m) ?? headSide.keys.get(m),
    );
    const changes = stillWrittenAtHead(unreadableAtHead(diffed, headSide), headSide);
    const visible = (side: Side) => side.findings.filter((f) => !f.suppressed);
    // A secret that changed leaves the findings that quote it as they were.
    // A finding whose object the change only moved or renamed is not new.
    const moved = new ObjectMoves(baseSide.result.manifests, headSide.result.manifests);
    const compared = diffFindings(
      visible(baseSide),
      visible(headSide),
      (text) => masker.redactAlike(text),
      (f) => moved.atHead(f),
    );
    const findings = notFixedWhileNew(noLongerChecked(unknownAtHead(compared, changes, baseSide), headSide.policiesRemoved));
    const report: DiffReport = {
      version: 1,
      tool: { name: "composition-ci", version: TOOL_VERSION },
      base: { ref: options.base, commit: baseCommit },
      head: headCommit ? { ref: options.head!, commit: headCommit } : { ref: "working tree" },
      sources: { total: headSide.keys.size, considered: headSide.sources.length, ...stateCounts(headSide.sources), all: renderAll },
      changes,
      ...unrenderedFilesOf(coverage.unrendered(renderedKeys(baseSide, headSide))),
      ...definitionsOf(baseSide, headSide, moved),
      objects: objectCounts(changes),
      findings,
      verdict: decideVerdict(visible(headSide), findings.new, { failOn: options.failOn ?? "error", failOnNew: options.failOnNew }),
    };
    if (options.runUrl) report.run = { url: options.runUrl };
    return { report, masker, headFindings: headSide.findings, headSources: headSide.sources };
  } catch (err) {
    if (err instanceof GitError || err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  } finally {
    removeTrees();
    for (const s of SIGNALS) process.removeListener(s, interrupted);
  }
}

async function analyze(root: string, options: DiffOptions, reuse: TreeReuse | undefined, trusted?: Config, base?: Side): Promise<Side> {
  const config = loadConfig(root, options.configFile);
  const result = await validateRepo({
    root,
    paths: options.paths.filter((p) => fs.existsSync(path.resolve(root, p))),
    config: trusted ? narrowToBase(config, trusted) : config,
    crds: options.crds,
    policies: options.policies,
    // A pull request is checked against its base's policies: it cannot switch off its own rules.
    ...(trusted && base ? { policiesFrom: base.result.policies } : {}),
    ...(base ? { previous: base.result.manifests } : {}),
    schemaLocations: options.schemaLocations,
    engine: options.engine,
    kubeconformPath: options.kubeconformPath,
    packages: options.packages && { settings: options.packages, allowExec: options.allowExec === true },
    reuse,
  });
  const candidates = renderSources(result.index, root, options.root);
  const keys = sourceKeys(candidates);
  const change = trusted && headConfigChange(config, trusted);
  const policiesRemoved = base && !trusted ? removedPolicies(result.manifests, base.result.manifests) : [];
  const policyChanges = !base ? [] : trusted ? changedPolicies(result.manifests, base.result.manifests) : policiesRemoved.map(policyRemovedFinding);
  const findings = [...(change ? [change] : []), ...policyChanges, ...result.findings];
  return { root, result, keys: new Map(candidates.map((m, i) => [m, keys[i]!] as const)), sources: [], findings, policiesRemoved };
}

/** Head states in which a source's render says nothing of what the change did to it. */
const UNKNOWN_AT_HEAD = new Set<SourceChange["status"]>(["failed", "still-failing", "not-rendered"]);

/**
 * What rendering found at base is fixed only where head rendered the same sources: a source that
 * rendered at base and failed, did not run or could not be read at head leaves every base finding
 * of rendering on the files it renders from (its XR, Composition, XRD, Functions, a Kptfile's
 * package) unknown, not fixed.
 */
function unknownAtHead(findings: FindingsDiff, changes: SourceChange[], base: Side): FindingsDiff {
  const lost = new Set(changes.filter((c) => UNKNOWN_AT_HEAD.has(c.status) && (c.status !== "not-rendered" || c.notRenderedAt === "head")).map((c) => c.key));
  if (!lost.size || !base.rendering) return findings;
  const files = new Set<string>();
  for (const s of base.sources) {
    if (sourceState(s) !== "rendered" || !lost.has(base.keys.get(s.source) ?? "")) continue;
    for (const file of sourceFiles(s.source, base.result.index, base.root, base.result.config.templateMounts)) files.add(file);
  }
  const anyObject = files.has(ANY_OBJECT);
  const directories = [...files].filter((f) => f === "" || f.endsWith("/"));
  const rendersFrom = (file: string) => anyObject || files.has(file) || directories.some((d) => file.startsWith(d));
  const unknown = new Set(findings.fixed.filter((f) => base.rendering!.has(f) && f.file !== undefined && rendersFrom(f.file)));
  if (!unknown.size) return findings;
  return { ...findings, fixed: findings.fixed.filter((f) => !unknown.has(f)), unknown: [...unknown] };
}

/**
 * A finding whose message quotes a value the change moved (`not 8` → `not 9`) comes back as a new
 * one on the same object: the old one is not fixed. The new one stays new (it gates as any other);
 * the old one is left out of the fixed. Without an object to match on, the line must match too.
 */
function notFixedWhileNew(findings: FindingsDiff): FindingsDiff {
  const place = (f: Finding) => `${f.rule}\u0000${f.file ?? ""}\u0000${f.kind ?? ""}\u0000${f.name ?? `line ${f.line ?? 0}`}`;
  const again = new Set(findings.new.filter((f) => f.file !== undefined).map(place));
  const fixed = findings.fixed.filter((f) => !again.has(place(f)));
  return fixed.length === findings.fixed.length ? findings : { ...findings, fixed };
}

/** What a policy the pull request removes found at base is unknown at head, never fixed. */
function noLongerChecked(findings: FindingsDiff, removed: Manifest[]): FindingsDiff {
  const names = removed.map((m) => `policy/${m.name ?? ""}`);
  const gone = (f: Finding) => names.some((n) => f.rule === n || f.rule.startsWith(`${n}/`));
  const unknown = findings.fixed.filter(gone);
  if (!unknown.length) return findings;
  return { ...findings, fixed: findings.fixed.filter((f) => !gone(f)), unknown: [...(findings.unknown ?? []), ...unknown] };
}

/** Findings that say a file could not be read: what it holds is unknown. */
const UNREADABLE = new Set(["yaml/syntax", "file/unreadable", "file/too-large"]);

/**
 * A source gone at head because its file can no longer be read there is not removed (nothing it
 * makes is deleted): what it makes at head is unknown, and the finding on the file says why.
 */
function unreadableAtHead(changes: SourceChange[], head: Side): SourceChange[] {
  const unreadable = new Map<string, Finding>();
  for (const f of head.findings) if (f.file && UNREADABLE.has(f.rule) && !unreadable.has(f.file)) unreadable.set(f.file, f);
  for (const change of changes) {
    const finding = change.status === "removed" ? unreadable.get(change.file) : undefined;
    if (!finding) continue;
    change.status = "not-rendered";
    change.notRenderedAt = "head";
    change.objects = [];
    const at = finding.line ? ` (line ${finding.line})` : "";
    change.notRendered = [{ what: change.file, reason: `the file cannot be read at head${at}`, fix: `fix the file: ${finding.rule} says where` }];
  }
  return changes;
}

/**
 * A source gone from the rendered sources while its object is still in the head's files is not
 * removed: head no longer says how it renders (its Composition or XRD is gone or cannot be
 * read), so what it makes there is unknown, and nothing it makes is said to be deleted.
 */
function stillWrittenAtHead(changes: SourceChange[], head: Side): SourceChange[] {
  const written = new Set(head.result.manifests.map((m) => `${m.kind}\u0000${m.namespace ?? ""}\u0000${m.name ?? ""}`));
  for (const change of changes) {
    if (change.status !== "removed" || !written.has(`${change.kind}\u0000${change.namespace ?? ""}\u0000${change.name}`)) continue;
    change.status = "not-rendered";
    change.notRenderedAt = "head";
    change.objects = [];
    change.notRendered = [
      {
        what: `${change.kind} ${change.name}`,
        reason: "it is still in the repository at head, but nothing there says how it renders (its Composition or definition is gone or cannot be read)",
        fix: "restore the Composition or definition it renders with, or remove the object too",
      },
    ];
  }
  return changes;
}

/** Parses a tree's files into the shared cache ahead of its validation; a problem is left for the validation to meet. */
async function preloadSide(root: string, options: DiffOptions, reuse: TreeReuse): Promise<void> {
  try {
    const config = loadConfig(root, options.configFile);
    const paths = options.paths.filter((p) => fs.existsSync(path.resolve(root, p)));
    await preload(paths, root, config.ignore, loadLimits(config), reuse.scanned);
  } catch {
    // The validation of the tree reads it again and reports what went wrong.
  }
}

/** The tree's CompositionTests and golden files, as check runs them: a failing one is a finding. */
async function testSide(side: Side, options: DiffOptions): Promise<void> {
  const tests = await checkTests(side.result, side.root, {
    allowExec: options.allowExec ?? false,
    timeoutMs: options.timeoutMs ?? 60_000,
    developmentTargets: options.developmentTargets,
    packages: options.packages,
  });
  side.findings = [...side.findings, ...tests.findings];
}

async function renderSide(
  side: Side,
  options: DiffOptions,
  selected: Set<string> | undefined,
  previous?: Map<string, JsonObject>,
  realPackages?: Map<string, PackageOutcome>,
): Promise<void> {
  const select = selected ? (m: Manifest) => selected.has(side.keys.get(m) ?? "") : undefined;
  const rendered = await renderAndValidate(side.result, side.root, {
    ...renderStepOptions(options),
    gitRoot: options.root,
    ...(realPackages?.size ? { realPackages } : {}),
    select,
    ...(previous ? { oldObject: (s: RenderedSource, key: string) => previous.get(`${side.keys.get(s.source) ?? ""}\u0000${key}`) } : {}),
  });
  side.sources = rendered.sources;
  side.findings = [...side.findings, ...rendered.findings];
  side.rendering = new Set(rendered.findings);
}

/**
 * The objects present on both sides whose change is known without rendering: XRDs (what it means
 * for their XRs and claims), Compositions (steps and composed resources), activation policies,
 * package dependencies and package versions.
 */
function definitionsOf(base: Side, head: Side, moved: ObjectMoves): { definitions?: DefinitionDiff[] } {
  const key = (m: Manifest) => `${m.apiVersion}|${m.kind}|${m.namespace ?? ""}|${m.name ?? ""}`;
  const known = base.result.manifests.filter((m) => knownChanges(m));
  // Repositories keep alternatives side by side (examples, packages): the same object in the same
  // file first; by identity alone only when the base has one of it (a moved file).
  const inFile = new Map(known.map((m) => [`${m.file}|${key(m)}`, m]));
  const byKey = new Map<string, Manifest[]>();
  for (const m of known) byKey.set(key(m), [...(byKey.get(key(m)) ?? []), m]);
  const definitions: DefinitionDiff[] = [];
  for (const m of head.result.manifests) {
    const compare = knownChanges(m);
    const alone = byKey.get(key(m));
    const old = compare ? (inFile.get(`${m.file}|${key(m)}`) ?? (alone?.length === 1 ? alone[0] : undefined)) : undefined;
    if (!compare || !old || JSON.stringify(old.object) === JSON.stringify(m.object)) continue;
    const changes = compare(old.object as Record<string, unknown>, m.object as Record<string, unknown>);
    if (changes.length) definitions.push({ kind: m.kind, name: m.name ?? "", file: m.file, changes });
  }
  definitions.push(...goneAtHead(known, head, moved));
  return definitions.length ? { definitions } : {};
}

/**
 * Definitions and packages of the base that head no longer holds under their name: removed (what
 * the cluster deletes when this merges), renamed, or in a file head cannot read (unknown).
 */
function goneAtHead(known: Manifest[], head: Side, moved: ObjectMoves): DefinitionDiff[] {
  const key = (m: Manifest) => objectIdentity(m.object);
  const atHead = new Set(head.result.manifests.map(key));
  const unreadable = new Set(head.findings.filter((f) => f.file && UNREADABLE.has(f.rule)).map((f) => f.file!));
  const out: DefinitionDiff[] = [];
  for (const m of known) {
    if (atHead.has(key(m)) || m.group === "meta.pkg.crossplane.io" || m.kind === "Project") continue;
    const renamed = moved.objectAtHead(m);
    const change: DefinitionChange = unreadable.has(m.file)
      ? { path: "(object)", what: "its file cannot be read at head: what the change does to it is unknown", breaking: false }
      : renamed
        ? {
            path: "metadata.name",
            what: `renamed to ${renamed.name}${renamed.file === m.file ? "" : ` (${renamed.file})`}: ${REMOVED[m.kind] ?? "the cluster deletes the old one"}`,
            breaking: true,
          }
        : { path: "(object)", what: `removed: ${REMOVED[m.kind] ?? "the cluster deletes it when this merges"}`, breaking: true };
    out.push({ kind: m.kind, name: m.name ?? "", file: m.file, changes: [change] });
  }
  return out;
}

/** What the cluster does when a definition or package object is deleted. */
const REMOVED: Record<string, string> = {
  CompositeResourceDefinition: "Crossplane deletes its CRD, and with it every XR (and claim) of the type",
  Composition: "XRs that use it can no longer be reconciled (what they composed stays)",
  ManagedResourceActivationPolicy: "the managed resources only it activated are no longer activated",
  Provider: "the provider is uninstalled, with its CRDs",
  Function: "Compositions whose steps run it fail",
  Configuration: "the configuration is uninstalled, with the XRDs and Compositions it installed",
};

/** How a kind's change is told without rendering, for the kinds that have a way. */
function knownChanges(m: Manifest): ((base: Record<string, unknown>, head: Record<string, unknown>) => DefinitionChange[]) | undefined {
  if (m.group === "apiextensions.crossplane.io") {
    if (m.kind === "CompositeResourceDefinition") return xrdChanges;
    if (m.kind === "Composition") return compositionChanges;
    if (m.kind === "ManagedResourceActivationPolicy") return activationChanges;
  }
  if (m.group === "meta.pkg.crossplane.io" || (m.kind === "Project" && (m.group === "meta.dev.upbound.io" || m.group === "dev.crossplane.io")))
    return dependencyChanges;
  if (m.group === "pkg.crossplane.io" && ["Provider", "Function", "Configuration"].includes(m.kind)) return packageChanges;
  return undefined;
}

/** The base side's rendered objects by source key and object key. */
function previousObjects(side: Side): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const s of side.sources) {
    const key = side.keys.get(s.source) ?? "";
    s.objects.forEach((o, i) => out.set(`${key}\u0000${s.keys[i] ?? ""}`, o as JsonObject));
    if (s.claimXr) out.set(`${key}\u0000${CLAIM_XR_KEY}`, s.claimXr);
  }
  return out;
}

/**
 * Every source may render or be checked differently: the config changed; code a configured
 * function runs may have; or a CRD or an admission policy changed (in the scanned paths or the
 * config's `crds:` and `policies:`), which every rendered object is checked against (a tightened
 * schema or rule finds problems in sources whose files did not change).
 */
function everythingAffected(changed: string[], sides: Side[]): boolean {
  if (changed.includes(CONFIG_FILE)) return true;
  const runsCode = sides.some((side) => Object.values(side.result.config.functions ?? {}).some((f) => "command" in f || "module" in f));
  if (runsCode && changed.some((f) => !/\.(ya?ml|json)$/i.test(f))) return true;
  const changedSet = new Set(changed);
  if (sides.some((side) => side.result.manifests.some((m) => changedSet.has(m.file) && checksRenderedObjects(m)))) return true;
  // The CRDs and policies the config names outside the scanned paths check rendered objects too.
  const extra = sides
    .flatMap((side) => [...side.result.config.crds, ...side.result.config.policies])
    .map((p) => path.posix.normalize(p.split(path.sep).join("/")).replace(/^\.\/|\/$/g, ""));
  return changed.some((f) => extra.some((p) => p === "." || f === p || f.startsWith(`${p}/`)));
}

function checksRenderedObjects(m: Manifest): boolean {
  return (m.group === "apiextensions.k8s.io" && m.kind === "CustomResourceDefinition") || isAdmissionPolicy(m);
}

/**
 * Keys of the sources, on either side, that render from a changed file; and, once they rendered,
 * the changed files holding objects (on either side) that no rendered diff shows: no source renders
 * from them, or none of those that do rendered.
 */
function renderCoverage(changed: string[], sides: Side[]): { affected: Set<string>; unrendered: (shown: Set<string>) => string[] } {
  const changedSet = new Set(changed);
  const affected = new Set<string>();
  const readers = new Map<string, Set<string>>();
  const checked = new Set<string>();
  const holdObjects = new Set(sides.flatMap((side) => side.result.manifests.map((m) => m.file)));
  const changedObjects = changed.filter((f) => holdObjects.has(f));
  const touched = (files: Set<string>) =>
    [...files].flatMap((file) =>
      file === ANY_OBJECT ? changedObjects : file === "" || file.endsWith("/") ? changed.filter((c) => c.startsWith(file)) : changedSet.has(file) ? [file] : [],
    );
  for (const side of sides) {
    const { index, config } = side.result;
    for (const [m, key] of side.keys) {
      // What the source reads besides itself (its own change is shown by its own diff); it renders again when its own file changes too.
      const reads = touched(sourceFiles(m, index, side.root, config.templateMounts, { ownFile: false }));
      if (reads.length > 0 || changedSet.has(m.file)) affected.add(key);
      for (const file of reads) readers.set(file, (readers.get(file) ?? new Set()).add(key));
    }
    // A changed CRD or policy is not applied as written only: every rendered object is checked against it.
    for (const m of side.result.manifests) if (changedSet.has(m.file) && checksRenderedObjects(m)) checked.add(m.file);
  }
  const described = describedChanges(changedObjects, sides);
  const unrendered = (shown: Set<string>) =>
    changedObjects.filter((f) => !checked.has(f) && !described.has(f) && ![...(readers.get(f) ?? [])].some((key) => shown.has(key)));
  return { affected, unrendered };
}

/**
 * The changed files whose every changed object (added, removed or different) is a source (its own
 * change is shown) or a definition whose change is told without rendering.
 */
function describedChanges(files: string[], sides: Side[]): Set<string> {
  const wanted = new Set(files);
  const versions = (side: Side) => {
    const out = new Map<string, { text: string; told: boolean }>();
    for (const m of side.result.manifests) {
      if (!wanted.has(m.file)) continue;
      const id = `${m.file}\u0000${m.apiVersion}/${m.kind}/${m.namespace ?? ""}/${m.name ?? ""}`;
      const seen = out.get(id);
      const text = JSON.stringify(m.object);
      const told = side.keys.has(m) || knownChanges(m) !== undefined;
      out.set(id, seen ? { text: `${seen.text}\u0000${text}`, told: seen.told && told } : { text, told });
    }
    return out;
  };
  const [base, head] = [versions(sides[0]!), versions(sides[1]!)];
  const described = new Set(files);
  for (const id of new Set([...base.keys(), ...head.keys()])) {
    const [before, after] = [base.get(id), head.get(id)];
    if (before?.text === after?.text) continue;
    if (!(before?.told ?? true) || !(after?.told ?? true)) described.delete(id.slice(0, id.indexOf("\u0000")));
  }
  return described;
}

function unrenderedFilesOf(files: string[]): { unrenderedFiles?: string[] } {
  return files.length ? { unrenderedFiles: files } : {};
}

/** Keys of the sources whose diff shows what they read: rendered at head, or gone at head and rendered at base. */
function renderedKeys(base: Side, head: Side): Set<string> {
  const rendered = (side: Side) => side.sources.filter((s) => sourceState(s) === "rendered").map((s) => side.keys.get(s.source) ?? "");
  const atHead = new Set(head.keys.values());
  return new Set([...rendered(head), ...rendered(base).filter((key) => !atHead.has(key))]);
}
