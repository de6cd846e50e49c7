import fs from "node:fs";
import { insidePackage, readCheckedPackage, stepName, type PipelineFunction } from "./kptfile.js";
import path from "node:path";
import type { Finding } from "../core/finding.js";
import type { JsonObject } from "../core/json.js";
import { findingAt } from "../validate/findings.js";
import type { KrmResult, ResourceList } from "./functions/types.js";
import { directSubpackages, type KptPackage, type ReadResource } from "./package.js";
import {
  annotation,
  annotations,
  clearAnnotation,
  fileOf,
  ID,
  INDEX,
  kindOf,
  LEGACY_ID,
  LEGACY_INDEX,
  LEGACY_PATH,
  MIGRATION_ID,
  nameOf,
  namespaceOf,
  notKrm,
  PACKAGE_PATH,
  PATH,
  RESOURCE_ID,
  setAnnotation,
  str,
} from "./resources.js";
import { NotRunnable, type KptRuntimes, type RunOutcome } from "./runtime.js";
import { deepCopy, isObject, readDocuments, YamlReadError } from "./yaml.js";

/**
 * `kpt fn render` of one package, offline: the package's resources and, depth first, its
 * subpackages' rendered resources (or top down with `kpt.dev/bfs-rendering: "true"`), through
 * the package's mutators then validators, each function given the ResourceList kpt gives it
 * (items with kpt's path, index, package-path and id annotations, the functionConfig from
 * `configPath` as the pipeline has it so far or from `configMap`), selectors and excludes
 * applied, the output checked as kpt checks it. Function results are kept for findings.
 */

export const BFS_ANNOTATION = "kpt.dev/bfs-rendering";

/** kpt stops: this finding says why (an error of the repository); none when the findings already said it. */
export class RenderStop extends Error {
  constructor(readonly finding?: Finding) {
    super(finding?.message ?? "kpt fn render stops");
  }
}

/** A function composition-ci cannot run here: the package is not rendered. */
export class NotRenderedStop extends Error {
  constructor(
    readonly what: string,
    readonly reason: string,
    readonly fix: string,
    readonly at: { pkg: KptPackage; pointer: string },
  ) {
    super(reason);
  }
}

export interface FunctionRun {
  pkg: KptPackage;
  fn: PipelineFunction;
  /** The function's name as kpt shows it (`image:tag`, or the exec). */
  name: string;
  results: KrmResult[];
  /** The items the function was given (to place results on the files they name). */
  input: JsonObject[];
}

export interface PackageRender {
  /** The rendered resources, paths relative to the root package, bookkeeping annotations kept. */
  resources: JsonObject[];
  findings: Finding[];
  runs: FunctionRun[];
  /** Where each resource read from disk came from: `<package dir>\0<path>\0<index>`. */
  origins: Map<string, ReadResource>;
  /** Why the render stopped, when it did: what was found until then is kept. */
  stop?: RenderStop | NotRenderedStop;
}

interface Node {
  pkg: KptPackage;
  local: ReadResource[];
  functions: PipelineFunction[];
  children: Node[];
  resources: JsonObject[];
}

export function originKey(pkgDir: string, file: string, index: string): string {
  return `${pkgDir}\u0000${path.posix.normalize(file)}\u0000${index}`;
}

export async function renderPackage(root: string, dir: string, runtimes: KptRuntimes): Promise<PackageRender> {
  const state: PackageRender = { resources: [], findings: [], runs: [], origins: new Map() };
  try {
    const top = load(root, dir, state);
    const bfs = (annotation(top.pkg.kptfile.object as JsonObject, BFS_ANNOTATION) ?? "").toLowerCase() === "true";
    const resources = bfs ? await hydrateBfs(top, state, runtimes) : await hydrate(top, state, runtimes);
    state.resources = adjustRelPaths(top.pkg, resources);
  } catch (err) {
    if (!(err instanceof RenderStop || err instanceof NotRenderedStop)) throw err;
    state.stop = err;
  }
  return state;
}

/** Reads a package and its subpackages (the tree), checking each Kptfile. */
function load(root: string, dir: string, state: PackageRender): Node {
  const { pkg, local, readFailure, check } = readCheckedPackage(root, dir);
  state.findings.push(...check.findings);
  if (readFailure) throw new RenderStop(findingAt(pkg.kptfile, "", "render/kpt-failed", "error", `kpt fn render fails reading the package: ${readFailure}`));
  if (check.fatal) throw new RenderStop();
  for (const r of local) state.origins.set(originKey(pkg.dir, r.path, String(r.index)), r);
  const children = directSubpackages(pkg.dir).map((sub) => load(root, sub, state));
  return { pkg, local, functions: check.functions, children, resources: [] };
}

async function hydrate(node: Node, state: PackageRender, runtimes: KptRuntimes): Promise<JsonObject[]> {
  const input = node.local.map((r) => deepCopy(r.object));
  for (const child of node.children) input.push(...(await hydrate(child, state, runtimes)));
  return runPipeline(node, input, state, runtimes);
}

async function hydrateBfs(top: Node, state: PackageRender, runtimes: KptRuntimes): Promise<JsonObject[]> {
  const all: Node[] = [];
  const queue = [top];
  while (queue.length) {
    const n = queue.shift()!;
    n.resources = n.local.map((r) => deepCopy(r.object));
    all.push(n);
    queue.push(...n.children);
  }
  for (const n of all) {
    const input = [...n.resources];
    const descend = (x: Node) => {
      for (const c of x.children) {
        input.push(...c.resources);
        descend(c);
      }
    };
    descend(n);
    const output = await runPipeline(n, input, state, runtimes);
    // Each output resource goes back to the package its package-path names.
    const byPackage = new Map<string, JsonObject[]>();
    for (const r of output) {
      const p = annotation(r, PACKAGE_PATH) || n.pkg.dir;
      byPackage.set(p, [...(byPackage.get(p) ?? []), r]);
    }
    const remaining: JsonObject[] = [];
    for (const target of all) {
      const list = byPackage.get(target.pkg.dir);
      if (!list) continue;
      if (target === n) remaining.push(...list);
      else target.resources = list;
    }
    n.resources = remaining;
  }
  return all.flatMap((n) => n.resources);
}

function stop(pkg: KptPackage, pointer: string, message: string): never {
  throw new RenderStop(findingAt(pkg.kptfile, pointer, "render/kpt-failed", "error", message));
}

function krmProblem(items: JsonObject[]): string | undefined {
  for (const r of items) {
    const value = "__kpt_not_krm__" in r ? r.__kpt_not_krm__ : r;
    const problem = notKrm(value, fileOf(r).path);
    if (problem) return `${fileOf(r).path}: ${problem}`;
  }
  return undefined;
}

async function runPipeline(node: Node, input: JsonObject[], state: PackageRender, runtimes: KptRuntimes): Promise<JsonObject[]> {
  const { pkg, functions } = node;
  if (functions.length === 0) {
    const problem = krmProblem(input);
    if (problem) stop(pkg, "", `kpt fn render fails: input resource list must contain only KRM resources: ${problem}`);
    return input;
  }
  let items = input;
  for (const fn of functions.filter((f) => f.kind === "mutator")) {
    const selectors = selectorList(fn.spec.selectors);
    const exclusions = selectorList(fn.spec.exclude);
    const scoped = selectors.length > 0 || exclusions.length > 0;
    if (scoped) items.forEach((r, i) => setAnnotation(r, RESOURCE_ID, String(i)));
    const config = functionConfig(pkg, fn, items);
    const selected = selectInput(items, selectors, exclusions);
    const output = await runFunction(node, fn, selected, config, true, state, runtimes);
    if (scoped) {
      items = mergeWithInput(output, selected, items);
      for (const r of items) clearAnnotation(r, RESOURCE_ID);
    } else items = output;
  }
  for (const fn of functions.filter((f) => f.kind === "validator")) {
    const selected = selectInput(items, selectorList(fn.spec.selectors), selectorList(fn.spec.exclude));
    const config = functionConfig(pkg, fn, items);
    await runFunction(
      node,
      fn,
      selected.map((r) => deepCopy(r)),
      config,
      false,
      state,
      runtimes,
    );
  }
  return items;
}

interface Selector {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

function selectorList(v: unknown): Selector[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((s) => ({
    apiVersion: str(s.apiVersion),
    kind: str(s.kind),
    name: str(s.name),
    namespace: str(s.namespace),
    labels: stringMap(s.labels),
    annotations: stringMap(s.annotations),
  }));
}

function stringMap(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x)]));
}

function selectorEmpty(s: Selector): boolean {
  return !s.apiVersion && !s.kind && !s.name && !s.namespace && !Object.keys(s.labels).length && !Object.keys(s.annotations).length;
}

function isMatch(r: JsonObject, s: Selector): boolean {
  const l = isObject(r.metadata) && isObject(r.metadata.labels) ? stringMap(r.metadata.labels) : {};
  const a = annotations(r);
  return (
    (!s.name || s.name === nameOf(r)) &&
    (!s.namespace || s.namespace === namespaceOf(r)) &&
    (!s.kind || s.kind === kindOf(r)) &&
    (!s.apiVersion || s.apiVersion === str(r.apiVersion)) &&
    Object.entries(s.labels).every(([k, v]) => Object.hasOwn(l, k) && l[k] === v) &&
    Object.entries(s.annotations).every(([k, v]) => Object.hasOwn(a, k) && a[k] === v)
  );
}

/** kpt's SelectInput: a resource matching two selectors is selected twice, as kpt selects it. */
function selectInput(items: JsonObject[], selectors: Selector[], exclusions: Selector[]): JsonObject[] {
  let selected = items;
  if (selectors.length) {
    selected = [];
    for (const r of items) for (const s of selectors) if (isMatch(r, s)) selected.push(r);
  }
  if (!exclusions.length) return selected;
  return selected.filter((r) => !exclusions.some((e) => !selectorEmpty(e) && isMatch(r, e)));
}

/** kpt's MergeWithInput: untouched resources stay in place, changed ones are replaced, deleted ones go, new ones are appended. */
function mergeWithInput(output: JsonObject[], selected: JsonObject[], input: JsonObject[]): JsonObject[] {
  const idOf = (r: JsonObject) => annotation(r, RESOURCE_ID) ?? "";
  const result: JsonObject[] = [];
  for (const r of input) {
    const id = idOf(r);
    if (!selected.some((s) => idOf(s) === id)) {
      result.push(r);
      continue;
    }
    const replaced = output.find((o) => idOf(o) === id);
    if (replaced) result.push(replaced);
  }
  for (const o of output) if (idOf(o) === "") result.push(o);
  return result;
}

/** The functionConfig kpt gives a step: the configPath resource as the pipeline has it now (else as the file has it), or the configMap. */
function functionConfig(pkg: KptPackage, fn: PipelineFunction, items: JsonObject[]): JsonObject | undefined {
  const configPath = str(fn.spec.configPath);
  if (configPath) {
    const current = items.find((r) => annotation(r, PACKAGE_PATH) === pkg.dir && fileOf(r).path === configPath);
    if (current) return deepCopy(current);
    try {
      if (!insidePackage(pkg.dir, path.join(pkg.dir, configPath))) return undefined;
      const docs = readDocuments(fs.readFileSync(path.join(pkg.dir, configPath), "utf8"));
      const first = docs[0]?.value;
      if (isObject(first)) return first;
    } catch (err) {
      if (!(err instanceof YamlReadError) && (err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    stop(pkg, `${fn.pointer}/configPath`, `kpt fn render fails: missing function config "${configPath}"`);
  }
  const configMap = fn.spec.configMap;
  if (isObject(configMap) && Object.keys(configMap).length > 0) {
    return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "function-input" }, data: stringMap(configMap) };
  }
  return undefined;
}

async function runFunction(
  node: Node,
  fn: PipelineFunction,
  items: JsonObject[],
  config: JsonObject | undefined,
  mutator: boolean,
  state: PackageRender,
  runtimes: KptRuntimes,
): Promise<JsonObject[]> {
  const { pkg } = node;
  const name = stepName(fn);
  let runtime;
  try {
    runtime = await runtimes.runtimeFor({ image: str(fn.spec.image) || undefined, exec: str(fn.spec.exec) || undefined, tag: str(fn.spec.tag) || undefined });
  } catch (err) {
    if (err instanceof NotRunnable) throw new NotRenderedStop(name, err.message, err.fix, { pkg, pointer: fn.pointer });
    throw err;
  }
  const problem = krmProblem(items);
  if (problem) stop(pkg, fn.pointer, `kpt fn render fails before ${fn.kind} ${name}: input resource list must contain only KRM resources: ${problem}`);
  // kyaml's pipeline marks each mutator input for the annotation migration; the function filter numbers them.
  const sent = items.map((r) => deepCopy(r));
  const original = new Map<string, Record<string, string>>();
  sent.forEach((r, i) => {
    if (mutator) {
      setAnnotation(r, MIGRATION_ID, String(i));
      original.set(String(i), internalAnnotations(r));
    }
    setAnnotation(r, ID, String(i + 1));
    setAnnotation(r, LEGACY_ID, String(i + 1));
  });
  const list: ResourceList = { apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: sent };
  if (config) list.functionConfig = config;
  let outcome: RunOutcome;
  try {
    outcome = await runtime.run(list, pkg.dir);
  } catch (err) {
    if (err instanceof NotRunnable) throw new NotRenderedStop(name, err.message, err.fix, { pkg, pointer: fn.pointer });
    stop(pkg, fn.pointer, `${fn.kind} ${name} (${runtime.name}) failed: ${(err as Error).message}`);
  }
  let output: JsonObject[];
  let results: KrmResult[];
  try {
    ({ items: output, results } = outcome.list ? { items: outcome.list.items, results: outcome.list.results ?? [] } : readOutput(outcome.stdout ?? ""));
  } catch (err) {
    stop(
      pkg,
      fn.pointer,
      `${fn.kind} ${name} (${runtime.name}) wrote output that is not a ResourceList: ${(err as Error).message}${outcome.stderr ? `\n${outcome.stderr}` : ""}`,
    );
  }
  state.runs.push({ pkg, fn, name: runtime.name, results, input: sent });
  if (outcome.exitCode !== 0) {
    const errors = results.filter((r) => r.severity === "error").length;
    const why = errors ? `${errors} error result${errors === 1 ? "" : "s"}` : `exit code ${outcome.exitCode}`;
    stop(
      pkg,
      fn.pointer,
      `kpt fn render fails: ${fn.kind} ${name} (${runtime.name}) failed (${why})${outcome.stderr ? `: ${outcome.stderr.split("\n").slice(-10).join("\n")}` : ""}`,
    );
  }
  if (!mutator) return items;
  // Comments and field order are kept from the input; the ids that map outputs to inputs go.
  const byId = new Map(sent.map((r) => [annotation(r, ID) ?? "", r]));
  for (const r of output) {
    const id = annotation(r, ID) ?? annotation(r, LEGACY_ID);
    if (id === undefined || !byId.has(id)) continue;
    syncOrder(byId.get(id)!, r);
    clearAnnotation(r, ID);
    clearAnnotation(r, LEGACY_ID);
  }
  for (const r of output) {
    if (fileOf(r).path === "") {
      copyLegacy(r);
      if (!annotation(r, PATH)) {
        const ns = namespaceOf(r);
        const file = `${ns ? `${ns}/` : ""}${kindOf(r).toLowerCase()}_${nameOf(r)}.yaml`;
        setAnnotation(r, PATH, file);
        setAnnotation(r, LEGACY_PATH, file);
      }
    }
    if (!annotation(r, PACKAGE_PATH)) setAnnotation(r, PACKAGE_PATH, pkg.dir);
  }
  const seen = new Set<string>();
  for (const r of output) {
    const { path: file, index } = fileOf(r);
    const clean = path.posix.normalize(file);
    if (clean.startsWith("../"))
      stop(pkg, fn.pointer, `kpt fn render fails: ${fn.kind} ${name}: function must not modify resources outside of package: resource has path ${file}`);
    const key = `${annotation(r, PACKAGE_PATH)}\u0000${clean}\u0000${index}`;
    if (seen.has(key)) stop(pkg, fn.pointer, `kpt fn render fails: ${fn.kind} ${name}: resource at path "${clean}" and index "${index}" already exists`);
    seen.add(key);
  }
  const outProblem = krmProblem(output);
  if (outProblem) stop(pkg, fn.pointer, `kpt fn render fails: ${fn.kind} ${name}: output resource list must contain only KRM resources: ${outProblem}`);
  for (const r of output) reconcile(r, original);
  return output;
}

function internalAnnotations(r: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations(r))) {
    if (k.startsWith("internal.config.kubernetes.io/") || k === LEGACY_PATH || k === LEGACY_INDEX || k === LEGACY_ID) out[k] = v;
  }
  return out;
}

function copyLegacy(r: JsonObject): void {
  for (const [legacy, current] of [
    [LEGACY_PATH, PATH],
    [LEGACY_INDEX, INDEX],
    [LEGACY_ID, ID],
  ] as const) {
    const [lv, cv] = [annotation(r, legacy) ?? "", annotation(r, current) ?? ""];
    if (cv && !lv) setAnnotation(r, legacy, cv);
    else if (!cv && lv) setAnnotation(r, current, lv);
  }
}

/** kyaml's ReconcileInternalAnnotations: whichever of the path/index pairs the function changed wins. */
function reconcile(r: JsonObject, original: Map<string, Record<string, string>>): void {
  copyLegacy(r);
  const before = original.get(annotation(r, MIGRATION_ID) ?? "");
  if (before) {
    for (const [current, legacy] of [
      [PATH, LEGACY_PATH],
      [INDEX, LEGACY_INDEX],
    ] as const) {
      const was = before[current] ?? before[legacy];
      if (!was) continue;
      const [c, l] = [annotation(r, current) ?? "", annotation(r, legacy) ?? ""];
      if (was !== c && was !== l && c !== l) continue;
      if (was !== c) setAnnotation(r, legacy, c);
      else if (was !== l) setAnnotation(r, current, l);
    }
  }
  clearAnnotation(r, MIGRATION_ID);
}

/** kyaml's SyncOrder: the output's map fields follow the input's order; new fields come after. */
function syncOrder(from: unknown, to: unknown): void {
  if (Array.isArray(from) && Array.isArray(to)) {
    for (let i = 0; i < Math.min(from.length, to.length); i++) syncOrder(from[i], to[i]);
    return;
  }
  if (!isObject(from) || !isObject(to)) return;
  const keys = Object.keys(to);
  const ordered = [...Object.keys(from).filter((k) => Object.hasOwn(to, k)), ...keys.filter((k) => !Object.hasOwn(from, k))];
  if (ordered.some((k, i) => k !== keys[i])) {
    const values = { ...to };
    for (const k of keys) delete to[k];
    for (const k of ordered) to[k] = values[k];
  }
  for (const k of Object.keys(to)) syncOrder(from[k], to[k]);
}

/** A function's stdout as kyaml reads it: one ResourceList (or List) is unwrapped; other documents are items. */
export function readOutput(stdout: string): { items: JsonObject[]; results: KrmResult[] } {
  const docs = readDocuments(stdout);
  if (docs.length === 1 && isObject(docs[0]!.value)) {
    const v = docs[0]!.value;
    if ((v.kind === "ResourceList" || v.kind === "List") && (v.items !== undefined || v.functionConfig !== undefined)) {
      const items = Array.isArray(v.items) ? v.items.map((i) => (isObject(i) ? i : { __kpt_not_krm__: i })) : [];
      return { items, results: parseResults(v.results) };
    }
  }
  return {
    items: docs.map((d) => {
      const o = isObject(d.value) ? d.value : { __kpt_not_krm__: d.value };
      if (isObject(d.value)) {
        setAnnotation(o, INDEX, String(d.index));
        setAnnotation(o, LEGACY_INDEX, String(d.index));
      }
      return o;
    }),
    results: [],
  };
}

/** kpt's parseStructuredResult: a list of results, or the legacy `{items: [...]}` form. */
function parseResults(v: unknown): KrmResult[] {
  let list = v;
  if (isObject(v) && Array.isArray(v.items) && v.items.length) list = v.items;
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((r) => {
    const out: KrmResult = { message: str(r.message) };
    const severity = str(r.severity);
    if (severity === "error" || severity === "warning" || severity === "info") out.severity = severity;
    if (isObject(r.resourceRef)) {
      const ref = r.resourceRef;
      const meta = isObject(ref.metadata) ? ref.metadata : {};
      out.resourceRef = {
        apiVersion: str(ref.apiVersion),
        kind: str(ref.kind),
        name: str(ref.name) || str(meta.name),
        namespace: str(ref.namespace) || str(meta.namespace),
      };
    }
    if (isObject(r.field))
      out.field = { path: str(r.field.path), currentValue: r.field.currentValue, proposedValue: r.field.proposedValue ?? r.field.suggestedValue };
    if (isObject(r.file)) out.file = { path: str(r.file.path), index: typeof r.file.index === "number" ? r.file.index : Number(r.file.index ?? 0) || 0 };
    return out;
  });
}

/** kpt's adjustRelPath: paths relative to the root package; the package-path annotation goes. */
function adjustRelPaths(top: KptPackage, resources: JsonObject[]): JsonObject[] {
  for (const r of resources) {
    const pkgPath = annotation(r, PACKAGE_PATH) ?? "";
    const file = fileOf(r).path;
    const rel = pkgPath ? path.relative(top.dir, pkgPath).split(path.sep).join("/") : "";
    const joined = rel && rel !== "." ? path.posix.join(rel, path.posix.normalize(file)) : file;
    setAnnotation(r, PATH, joined);
    setAnnotation(r, LEGACY_PATH, joined);
    clearAnnotation(r, PACKAGE_PATH);
  }
  return resources;
}
