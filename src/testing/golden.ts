import { behaviourOf, NEWEST_MODELLED, parseCrossplaneVersion, type CrossplaneRelease } from "../core/crossplane-releases.js";
import fs from "node:fs";
import path from "node:path";
import * as jsyaml from "js-yaml";
import * as YAML from "yaml";
import { yamlStream } from "../rendered/stream.js";
import { globMatcher } from "../manifest/glob.js";
import { SourceFile, type Manifest } from "../manifest/manifest.js";
import { staysInside } from "../manifest/discover.js";
import { COMPOSITION_RESOURCE_NAME } from "../manifest/roles.js";
import { cloneJson, type JsonObject } from "../core/json.js";
import { renderedObjectKey } from "../rendered/source.js";
import { objectDifferences } from "./compare.js";
import { objectLabel } from "./composition-test.js";
import type { GoldenEntry } from "../config/tests.js";
import { emptyGoldenFlags, parseGoldenFlags, type GoldenFlags } from "../config/golden-flags.js";
import { notRunnableNote, readTestObjects, resolveTestPath, TestInputError, xrSchemaFromXrd, type TestRender, type TestRenderer } from "./render.js";
import type { TestFailure, TestResult, UnreadableTest } from "./types.js";
import { NO_SUCH_FUNCTION } from "../render/runner/select.js";

/**
 * Golden renders: a file holding what `crossplane render` printed for an example XR, compared with
 * today's render as objects (not bytes), and rewritten in crossplane render's exact format with
 * `--update`. A golden file is mapped from its XR by the config (`tests.golden`), or found: any
 * file below the paths that is a render output stream, whose XR is an example of the repository.
 */

/** One golden file and the XR it is the render of. */
export interface GoldenCase {
  /** The golden file, repository-relative. */
  file: string;
  /** The example XR (or claim) it renders. */
  source: Manifest;
  /** Flags given in the config; undefined for a found golden file (they are read off the file). */
  flags?: GoldenFlags;
  /** The config entry (`tests.golden[i]`), for messages. */
  entry?: number;
}

/** A found golden file whose XR is not in the repository: reported as skipped. */
export interface OrphanGolden {
  file: string;
  reason: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** `{dir}/{base}.golden.yaml` for one XR manifest. */
export function outputPath(pattern: string, m: Manifest): string {
  const dir = path.posix.dirname(m.file);
  const base = path.posix.basename(m.file).replace(/\.(ya?ml|json)$/i, "");
  const values: Record<string, string> = { dir: dir === "." ? "" : dir, base, name: m.name ?? "", namespace: m.namespace ?? "", kind: m.kind.toLowerCase() };
  const filled = pattern.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? "");
  return path.posix.normalize(filled.replace(/^\/+/, "")).replace(/^\.\//, "");
}

/** The golden cases the config maps (`tests.golden`), for the XRs among `manifests`. */
export function configuredGoldens(entries: GoldenEntry[], manifests: Manifest[], renderer: TestRenderer): { cases: GoldenCase[]; problems: UnreadableTest[] } {
  const cases: GoldenCase[] = [];
  const problems: UnreadableTest[] = [];
  const seen = new Map<string, string>();
  entries.forEach((entry, i) => {
    const matches = globMatcher([entry.xr]);
    const flags = parseGoldenFlags(entry.flags);
    for (const m of manifests) {
      if (!matches(m.file) || !isRenderable(m, renderer)) continue;
      const file = outputPath(entry.output, m);
      const other = seen.get(file);
      if (other) {
        problems.push({
          file: renderer.repo.config.file ?? ".composition-ci.yaml",
          line: 1,
          message: `tests.golden[${i}]: ${m.kind} ${m.name ?? ""} (${m.file}) and ${other} map to the same golden file ${file}; put {name} or {base} in output`,
        });
        continue;
      }
      seen.set(file, `${m.kind} ${m.name ?? ""} (${m.file})`);
      cases.push({ file, source: m, flags, entry: i });
    }
  });
  return { cases, problems };
}

/** An XR or claim example the repository can render (its type has an XRD, or a Composition is for its kind). */
function isRenderable(m: Manifest, renderer: TestRenderer): boolean {
  const index = renderer.repo.index;
  return index.xrTypeOf(m) !== undefined || index.compositionsFor(m.apiVersion, m.kind).length > 0;
}

/** How an XR is known in a render output: apiVersion, kind, name and namespace. */
function identity(o: JsonObject | undefined): string {
  const m = isObject(o?.metadata) ? o.metadata : {};
  return `${String(o?.apiVersion)}|${String(o?.kind)}|${String(m.name ?? "")}|${String(m.namespace ?? "")}`;
}

/** The repository's example XRs and claims by the identity of the XR they render (a claim's XR has the claim's name). */
export function examplesByIdentity(manifests: Manifest[], renderer: TestRenderer): Map<string, Manifest[]> {
  const out = new Map<string, Manifest[]>();
  for (const m of manifests) {
    if (!isRenderable(m, renderer)) continue;
    const key = identity(renderer.asXr(m.object as JsonObject, m.file));
    out.set(key, [...(out.get(key) ?? []), m]);
  }
  return out;
}

/**
 * The golden case of a found render output file: the example XR whose render it is (the same
 * apiVersion, kind, name and namespace); when several are, the nearest to the file, then the one
 * whose file name it shares most of (`xr.golden.yaml` is `xr.yaml`'s, not `xr-copy.yaml`'s).
 */
export function foundGolden(file: string, documents: unknown[], examples: Map<string, Manifest[]>): GoldenCase | OrphanGolden {
  const xr = documents.find(isObject);
  const meta = isObject(xr?.metadata) ? xr.metadata : {};
  const candidates = examples.get(identity(xr)) ?? [];
  if (!candidates.length) {
    return {
      file,
      reason: `no example XR ${String(xr?.kind)} ${String(meta.name ?? "")} below the paths renders to it; map it with tests.golden in .composition-ci.yaml`,
    };
  }
  const dir = path.posix.dirname(file);
  const shared = (m: Manifest) => commonPrefix(path.posix.dirname(m.file).split("/"), dir.split("/"));
  // `xr.golden.yaml`, `xr-expected.yaml`: the example's name, then a separator, starts the golden file's.
  const goldenName = path.posix.basename(file);
  const named = (m: Manifest) => {
    const stem = path.posix.basename(m.file).replace(/\.(ya?ml|json)$/i, "");
    return goldenName.startsWith(stem) && ".-_".includes(goldenName[stem.length] ?? "#") ? stem.length : 0;
  };
  const best = [...candidates].sort((a, b) => shared(b) - shared(a) || named(b) - named(a) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))[0]!;
  return { file, source: best };
}

function commonPrefix(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The documents of a golden file; YAML that does not parse is unreadable (with its line). */
export function readGolden(abs: string, file: string): { text: string; documents: unknown[] } | { unreadable: UnreadableTest } {
  const text = fs.readFileSync(abs, "utf8");
  try {
    return { text, documents: jsyaml.loadAll(text, { schema: jsyaml.CORE_SCHEMA }) as unknown[] };
  } catch (err) {
    const mark = (err as { mark?: { line?: number } }).mark;
    return { unreadable: { file, line: (mark?.line ?? 0) + 1, message: `golden file is not YAML: ${(err as Error).message.split("\n")[0]}` } };
  }
}

/**
 * What a render output document is known by across renders: the XR (the first document), a
 * composed resource by kind and composition resource name, Results by their order, the Context.
 */
function documentKeys(documents: unknown[]): Map<string, { object: JsonObject; index: number }> {
  const out = new Map<string, { object: JsonObject; index: number }>();
  let results = 0;
  let first = true;
  documents.forEach((d, index) => {
    if (!isObject(d)) return;
    let key: string;
    const renderDoc = typeof d.apiVersion === "string" && d.apiVersion.startsWith("render.crossplane.io/");
    const annotated =
      typeof (isObject(d.metadata) && isObject(d.metadata.annotations) ? d.metadata.annotations[COMPOSITION_RESOURCE_NAME] : undefined) === "string";
    if (first && !renderDoc && !annotated) key = "XR";
    else if (renderDoc && d.kind === "Result") key = `Result #${++results}`;
    else if (renderDoc) key = String(d.kind);
    else key = renderedObjectKey(d);
    first = false;
    if (!out.has(key)) out.set(key, { object: d, index });
  });
  return out;
}

/**
 * What a render cannot fix offline, left out of both sides: the random part of generated names (a
 * name made from the object's generateName), UIDs (the XR's, and owner references' to it).
 */
export function offlineComparable(o: JsonObject): JsonObject {
  const c = cloneJson(o);
  const m = c.metadata;
  if (isObject(m)) {
    delete m.uid;
    if (typeof m.generateName === "string" && typeof m.name === "string" && m.generateName && m.name.startsWith(m.generateName)) delete m.name;
    if (Array.isArray(m.ownerReferences)) for (const r of m.ownerReferences) if (isObject(r)) delete r.uid;
  }
  return c;
}

/** Every difference between a golden stream and a rendered one, object by object, placed in the golden file. */
export function compareStreams(golden: unknown[], rendered: JsonObject[], source: SourceFile): TestFailure[] {
  const want = documentKeys(golden);
  const got = documentKeys(rendered);
  const failures: TestFailure[] = [];
  const label = (key: string, o: JsonObject) =>
    key.startsWith("Result #") ? `${key} (step ${String(o.step)})` : key === "Context" ? "Context" : objectLabel(o);
  for (const [key, w] of want) {
    const g = got.get(key);
    const line = (pointer: string) => source.locate(w.index, pointer).line;
    if (!g) {
      failures.push({ object: label(key, w.object), message: "in the golden file, not rendered", file: source.file, line: line("") });
      continue;
    }
    const differences = objectDifferences(offlineComparable(w.object), offlineComparable(g.object));
    if (differences.length) failures.push({ object: label(key, w.object), differences, file: source.file, line: line(differences[0]!.pointer) });
  }
  for (const [key, g] of got) {
    if (!want.has(key)) failures.push({ object: label(key, g.object), message: "rendered, not in the golden file", file: source.file });
  }
  return failures;
}

/** Runs one golden case; with `update`, a golden file that differs (or is missing) is rewritten. */
export async function runGolden(c: GoldenCase, renderer: TestRenderer, update: boolean): Promise<TestResult | UnreadableTest> {
  const started = performance.now();
  const root = renderer.repo.root;
  const abs = path.resolve(root, c.file);
  const result: TestResult = {
    kind: "golden",
    name: c.file,
    file: c.file,
    line: 1,
    status: "passed",
    failures: [],
    durationMs: 0,
    source: `${c.source.kind} ${c.source.name ?? ""} (${c.source.file})`,
  };
  const done = () => ((result.durationMs = performance.now() - started), result);
  if (!staysInside(root, c.file)) {
    result.status = "error";
    result.failures.push({ message: `${c.file} leads outside the repository; not read or written` });
    return done();
  }
  let golden: { text: string; documents: unknown[] } | undefined;
  if (fs.existsSync(abs)) {
    const read = readGolden(abs, c.file);
    if ("unreadable" in read) return read.unreadable;
    golden = read;
    // What it wants is quoted where the render differs: its secrets are masked too.
    renderer.learn(read.documents);
  }
  try {
    const flags = c.flags ?? inferredFlags(golden?.documents ?? []);
    const writer = writerOf(flags, golden?.documents, renderer.options.release ?? NEWEST_MODELLED, renderer.options.releaseStated === true);
    result.note = c.flags ? `tests.golden[${c.entry}]` : `found; rendered as render --all does${flagWords(flags)}`;
    let render = await renderGoldenCase(c, flags, renderer, writer.release);
    const source = new SourceFile(c.file, golden?.text ?? "");
    let failures = golden && render.rendered.ok ? compareStreams(golden.documents, alignConditions(golden.documents, render.rendered.documents), source) : [];
    // A found golden file does not say whether it was rendered with -x. Its XR has a spec and the
    // render's has none: it was. Both have one (a function set it): the closer render is meant.
    if (!c.flags && golden && failures.length && render.rendered.ok && hasSpec(golden.documents)) {
      const full = { ...flags, includeFullXr: true };
      const again = await renderGoldenCase(c, full, renderer, writer.release);
      const fullFailures = again.rendered.ok ? compareStreams(golden.documents, alignConditions(golden.documents, again.rendered.documents), source) : failures;
      if (again.rendered.ok && (!hasSpec(render.rendered.documents) || weight(fullFailures) < weight(failures))) {
        [render, failures] = [again, fullFailures];
        result.note = `found; rendered as render --all does${flagWords(full)}`;
      }
    }
    result.source += ` via ${render.via}`;
    if (render.rendered.notRunnable?.some((s) => s.reason === NO_SUCH_FUNCTION)) {
      // A function that exists nowhere is the test's fault: it could not run.
      result.status = "error";
      result.failures.push({ message: `could not run: ${notRunnableNote(render.rendered.notRunnable.filter((s) => s.reason === NO_SUCH_FUNCTION))}` });
      return done();
    }
    if (render.rendered.notRunnable?.length) {
      // A function composition-ci may not or cannot run here is no fault of the repository (render/not-rendered).
      result.status = "skipped";
      result.note = notRunnableNote(render.rendered.notRunnable);
      return done();
    }
    if (!render.rendered.ok) {
      result.status = "error";
      for (const p of render.rendered.problems.filter((p) => p.severity === "error"))
        result.failures.push({ message: `render failed: ${p.message}${p.detail ? `\n${p.detail}` : ""}` });
      if (!result.failures.length) result.failures.push({ message: "render failed" });
      return done();
    }
    if (!golden) {
      if (update) return write(abs, render, result, done);
      result.status = "failed";
      result.failures.push({ message: `the golden file ${c.file} does not exist; \`composition-ci test --update\` writes it` });
      return done();
    }
    if (failures.length) {
      if (update) return write(abs, render, result, done);
      result.status = "failed";
      result.failures = [
        ...failures,
        {
          message: `rendered as Crossplane ${writer.release.text}'s crossplane render prints it (${writer.why}); if the change is meant, \`composition-ci test --update\` rewrites the file`,
        },
      ];
    }
  } catch (err) {
    if (!(err instanceof TestInputError)) throw err;
    result.status = "error";
    result.failures.push({ message: err.message });
  }
  return done();
}

function write(abs: string, render: TestRender, result: TestResult, done: () => TestResult): TestResult {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, yamlStream(render.rendered.documents));
  result.updated = true;
  return done();
}

/** How far apart two renders are: the values that differ (a missing subtree counts each of its values). */
function weight(failures: TestFailure[]): number {
  const leaves = (v: unknown): number =>
    (isObject(v) ? Object.values(v) : Array.isArray(v) ? v : [v]).reduce<number>((n, x) => n + (typeof x === "object" && x !== null ? leaves(x) : 1), 0) || 1;
  return failures.reduce(
    (n, f) =>
      n +
      (f.differences
        ? f.differences.reduce((m, d) => m + Math.max(d.want === undefined ? 0 : leaves(d.want), d.got === undefined ? 0 : leaves(d.got), 1), 0)
        : 10),
    0,
  );
}

/** A found golden file's flags, read off its documents: Results (-r), a Context (-c). */
function inferredFlags(documents: unknown[]): GoldenFlags {
  const kinds = documents
    .filter(isObject)
    .filter((d) => typeof d.apiVersion === "string" && d.apiVersion.startsWith("render.crossplane.io/"))
    .map((d) => d.kind);
  return { ...emptyGoldenFlags(), includeFunctionResults: kinds.includes("Result"), includeContext: kinds.includes("Context") };
}

/**
 * The stream's XR (its first document) has a spec: -x prints the input's; a function may set one
 * too. The refs the engine writes (spec.crossplane.resourceRefs, spec.resourceRefs) do not count.
 */
function hasSpec(documents: unknown[]): boolean {
  const xr = documents.find(isObject);
  if (!isObject(xr) || !isObject(xr.spec)) return isObject(xr) && xr.spec !== undefined;
  const { resourceRefs, crossplane, ...rest } = xr.spec;
  void resourceRefs;
  const ownCrossplane = isObject(crossplane) ? Object.keys(crossplane).filter((k) => k !== "resourceRefs") : crossplane === undefined ? [] : ["crossplane"];
  return Object.keys(rest).length > 0 || ownCrossplane.length > 0;
}

/** Which release wrote a golden file: its flags say, or its shape (the engine's refs, conditions and composed names), else the run's. */
function writerOf(
  flags: GoldenFlags,
  documents: unknown[] | undefined,
  runRelease: CrossplaneRelease,
  stated: boolean,
): { release: CrossplaneRelease; why: string } {
  if (flags.crossplaneVersion) return { release: parseCrossplaneVersion(flags.crossplaneVersion), why: "its --crossplane-version" };
  if (stated) return { release: runRelease, why: "the release --crossplane-version or the config's crossplaneVersion names" };
  if (!documents) return { release: runRelease, why: "the run's release: the file is new" };
  const engine = behaviourOf(runRelease).engine ? runRelease : NEWEST_MODELLED;
  if (writtenByEngine(documents))
    return { release: engine, why: "the file has the reconciler's resourceRefs, conditions or composed names: written by v2.3 or later" };
  return {
    release: parseCrossplaneVersion("v2.2"),
    why: "the file has none of the reconciler's resourceRefs, Responsive or Synced conditions: written by v2.2 or earlier",
  };
}

const ENGINE_CONDITIONS = new Set(["Responsive", "Synced"]);

function writtenByEngine(documents: unknown[]): boolean {
  const [xr, ...rest] = documents.filter(isObject);
  if (!xr) return false;
  const spec = isObject(xr.spec) ? xr.spec : {};
  if (Array.isArray(spec.resourceRefs) || (isObject(spec.crossplane) && Array.isArray(spec.crossplane.resourceRefs))) return true;
  const conditions = isObject(xr.status) && Array.isArray(xr.status.conditions) ? xr.status.conditions : [];
  if (conditions.some((c) => isObject(c) && ENGINE_CONDITIONS.has(String(c.type)))) return true;
  // A composed resource named by ChildName: its generateName and twelve hex characters.
  return rest.some((d) => {
    const m = isObject(d.metadata) ? d.metadata : {};
    return (
      typeof m.name === "string" &&
      typeof m.generateName === "string" &&
      m.name.startsWith(m.generateName) &&
      /^[0-9a-f]{12}$/.test(m.name.slice(m.generateName.length))
    );
  });
}

/**
 * The rendered documents with each object's status conditions in the order of the golden file's
 * types (types it does not have last): conditions are compared by type, not by position.
 */
function alignConditions<T>(golden: unknown[], rendered: T[]): T[] {
  return rendered.map((d, i) => {
    const want = golden[i];
    if (!isObject(d) || !isObject(d.status) || !Array.isArray(d.status.conditions)) return d;
    if (!isObject(want) || !isObject(want.status) || !Array.isArray(want.status.conditions)) return d;
    const order = want.status.conditions.map((c) => (isObject(c) ? String(c.type) : ""));
    const rank = (c: unknown) => {
      const at = order.indexOf(isObject(c) ? String(c.type) : "");
      return at < 0 ? order.length : at;
    };
    const conditions = [...d.status.conditions].sort((a, b) => rank(a) - rank(b));
    return { ...d, status: { ...d.status, conditions } } as T;
  });
}

function flagWords(flags: GoldenFlags): string {
  const on = [flags.includeFunctionResults && "-r", flags.includeFullXr && "-x", flags.includeContext && "-c"].filter(Boolean);
  return on.length ? ` with ${on.join(" ")}` : "";
}

/**
 * Renders a golden case. A configured case does what its crossplane render flags say (no XRD
 * defaults without --xrd, required resources only from -e); a found one is rendered as
 * `render --all` and `check` render the example (the repository's XRD defaults, its
 * EnvironmentConfigs).
 */
async function renderGoldenCase(c: GoldenCase, flags: GoldenFlags, renderer: TestRenderer, release: CrossplaneRelease): Promise<TestRender> {
  const root = renderer.repo.root;
  const near = c.source.file;
  const xr = renderer.asXr(c.source.object as JsonObject, near);
  const objects = (p: string) => readTestObjects(root, resolveTestPath(root, near, p)).map((o) => o.object);
  const single = (p: string, what: string) => {
    const found = readTestObjects(root, resolveTestPath(root, near, p));
    if (found.length !== 1) throw new TestInputError(`${p}: expected exactly one ${what}, found ${found.length} objects`);
    return { object: found[0]!.object, file: found[0]!.manifest.file };
  };
  const configured = c.flags !== undefined;
  let xrSchema;
  let xrdObject: JsonObject | undefined;
  if (flags.xrd) {
    const xrd = single(flags.xrd, "XRD");
    xrSchema = xrSchemaFromXrd(xrd.object, xr, xrd.file);
    xrdObject = xrd.object;
  } else if (!configured) {
    xrSchema = renderer.repoXrSchema(xr, near);
    xrdObject = renderer.repoXrd(xr, near);
  }
  return renderer.render({
    xr,
    near,
    composition: flags.composition ? single(flags.composition, "Composition") : undefined,
    xrSchema,
    observedResources: flags.observedResources.flatMap(objects),
    requiredResources: [...flags.requiredResources.flatMap(objects), ...(configured ? [] : (renderer.repo.index.environmentConfigs(near) as JsonObject[]))],
    context: contextOf(flags, root, near),
    credentials: flags.functionCredentials ? objects(flags.functionCredentials) : undefined,
    timeoutMs: flags.timeoutMs,
    functionAnnotations: flags.functionAnnotations.length ? Object.fromEntries(flags.functionAnnotations) : undefined,
    includeFullXr: flags.includeFullXr,
    includeFunctionResults: flags.includeFunctionResults,
    includeContext: flags.includeContext,
    release,
    ...(xrdObject ? { xrd: xrdObject } : {}),
  });
}

/** `--context-files` and `--context-values`: JSON or YAML values by key (values win). */
function contextOf(flags: GoldenFlags, root: string, near: string): JsonObject | undefined {
  if (!flags.contextFiles.length && !flags.contextValues.length) return undefined;
  const parse = (what: string, text: string) => {
    const doc = YAML.parseDocument(text, { version: "1.1" });
    if (doc.errors.length) throw new TestInputError(`${what}: not JSON or YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
    return doc.toJS() as unknown;
  };
  const context: JsonObject = {};
  for (const [key, p] of flags.contextFiles) context[key] = parse(`--context-files ${key}`, fs.readFileSync(resolveTestPath(root, near, p), "utf8"));
  for (const [key, value] of flags.contextValues) context[key] = parse(`--context-values ${key}`, value);
  return context;
}
