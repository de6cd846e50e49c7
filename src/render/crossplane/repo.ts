import path from "node:path";
import type { Manifest } from "../../manifest/manifest.js";
import type { CallContext } from "../../runtimes/runtime.js";
import type { Finding } from "../../core/finding.js";
import { findingAt } from "../../validate/findings.js";
import { guardedAsync } from "../../validate/guard.js";
import { RepoIndex, type XrType } from "../../validate/repo-index.js";
import { noCompositionFinding, pickComposition, xrFromClaim, type NoComposition } from "../../validate/rules/xr.js";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { RUNTIME_ANNOTATION, RuntimePool, type FunctionManifest, type RuntimeOptions } from "../runner/select.js";
import { isOperationKind, renderOperation } from "./operation.js";
import { renderComposite, type RenderProblem, type Rendered } from "./render.js";
import { type SchemaLookup } from "./pipeline.js";
import { COMPOSITION_RESOURCE_NAME } from "../../manifest/roles.js";
import { gvkOf } from "../../validate/schemas/types.js";
import { failedInternally, isComposedResource, renderedObjectKey, renderedObjectName, type NotRendered, type RenderedSource } from "../../rendered/source.js";
import type { NotRunnableStep } from "./pipeline.js";
import { observedReads } from "./offline.js";
import type { CrossplaneRelease } from "../../core/crossplane-releases.js";
import { asArray, asObject } from "../../validate/rules/context.js";
import { builtinResource, crdResources } from "../../policy/index.js";
import { isLegacyResourcesMode } from "../../validate/rules/composition.js";

/** Rendering every XR (and claim) example of a repository with the repo's Compositions and Functions. */

export interface RepoRenderOptions extends RuntimeOptions {
  timeoutMs: number;
  includeFunctionResults?: boolean;
  includeFullXr?: boolean;
  /** Answers functions' required schemas (check: the schema registry). */
  schemaFor?: SchemaLookup;
  /** Which XRs and claims to render (all when absent). */
  select?: (source: Manifest) => boolean;
  /** Where function-go-templating's absolute FileSystem paths are, in the repository (config `templateMounts`). */
  templateMounts?: Record<string, string>;
  /** How deep composed XRs are rendered in turn with their own Compositions (default 5; 0: not at all). */
  maxNestedDepth?: number;
  /** The Crossplane release whose `crossplane render` output is printed (default: the newest modelled). */
  release?: CrossplaneRelease;
}

/** An XR or claim rendered through its Composition. */
export interface RenderedXr extends RenderedSource {
  composition?: Manifest;
  rendered?: Rendered;
}

export function functionManifests(manifests: Manifest[] | RepoIndex): Map<string, FunctionManifest> {
  const index = manifests instanceof RepoIndex ? manifests : new RepoIndex(manifests);
  const out = new Map<string, FunctionManifest>();
  for (const [name, m] of index.functions) {
    const annotations = (m.object.metadata?.annotations ?? {}) as Record<string, string>;
    const pkg = (m.object.spec as JsonObject | undefined)?.package;
    const args = annotations[RUNTIME_ANNOTATION] === "Development" ? undefined : runtimeArgs(m.object, index);
    out.set(name, { name, package: typeof pkg === "string" ? pkg : undefined, annotations: stringValues(annotations), ...(args ? { args } : {}) });
  }
  return out;
}

/**
 * The flags a Function's package runs with: its DeploymentRuntimeConfig's `package-runtime`
 * container args (`default` when it names none, which Crossplane makes without any). Undefined
 * when the config it names is not in the repository.
 */
function runtimeArgs(fn: JsonObject, index: RepoIndex): string[] | undefined {
  const ref = (fn.spec as JsonObject | undefined)?.runtimeConfigRef as JsonObject | undefined;
  const name = typeof ref?.name === "string" ? ref.name : "default";
  const config = index.manifests.find((m) => m.group === "pkg.crossplane.io" && m.kind === "DeploymentRuntimeConfig" && m.name === name);
  if (!config) return name === "default" ? [] : undefined;
  const pod = (((config.object.spec as JsonObject | undefined)?.deploymentTemplate as JsonObject | undefined)?.spec as JsonObject | undefined)?.template as
    | JsonObject
    | undefined;
  const containers = ((pod?.spec as JsonObject | undefined)?.containers ?? []) as JsonObject[];
  const container = Array.isArray(containers) ? containers.find((c) => c?.name === "package-runtime") : undefined;
  return Array.isArray(container?.args) ? container.args.filter((a): a is string => typeof a === "string") : [];
}

function problemFinding(p: RenderProblem, source: Manifest, composition: Manifest): Finding {
  const steps = ((composition.object.spec as JsonObject | undefined)?.pipeline ?? []) as { step?: string }[];
  const stepIndex = p.step === undefined ? -1 : steps.findIndex((s) => s.step === p.step);
  const where = stepIndex >= 0 && !isLegacyResourcesMode(composition.object) ? composition : source;
  const pointer = where === composition ? `/spec/pipeline/${stepIndex}` : "";
  let message = p.message;
  if (where === composition) message += ` (rendering ${source.kind} ${source.name ?? ""} from ${source.file})`;
  if (p.detail) message += `\n${p.detail.split("\n").slice(-20).join("\n")}`;
  return findingAt(where, pointer, p.rule, p.severity, message);
}

const scopes = new WeakMap<RepoIndex, (apiVersion: string, kind: string) => boolean | undefined>();

/** Whether a kind is namespaced: the repository's CRDs say, then Kubernetes' own kinds; undefined when unknown. */
function kindScopes(index: RepoIndex): (apiVersion: string, kind: string) => boolean | undefined {
  let known = scopes.get(index);
  if (!known) {
    const crds = crdResources(index.manifests.filter((m) => m.kind === "CustomResourceDefinition").map((m) => m.object as JsonObject));
    known = (apiVersion, kind) => (crds(apiVersion, kind) ?? builtinResource(apiVersion, kind))?.namespaced;
    scopes.set(index, known);
  }
  return known;
}

/** Renders every XR and claim example found among `manifests`. Never throws for bad input. */
export async function renderRepo(manifests: Manifest[] | RepoIndex, options: RepoRenderOptions): Promise<RenderedXr[]> {
  const index = manifests instanceof RepoIndex ? manifests : new RepoIndex(manifests);
  const functions = functionManifests(index);
  // A converted legacy Composition names function-patch-and-transform: with no Function object of
  // that name, it runs as the built-in (its usual name).
  const pool = new RuntimePool(functions, {
    ...options,
    embeddedFunction: (name) => index.embeddedFunction(name, options.root),
  });
  const out: RenderedXr[] = [];
  try {
    for (const source of index.manifests) {
      const type = index.xrTypeOf(source);
      if (!type || (options.select && !options.select(source))) continue;
      const findings: Finding[] = [];
      const rendered =
        (await guardedAsync(source, "rendering", findings, () => renderSource(source, type, index, pool, options))) ?? failedInternally(source, findings);
      // The claim controller creates the XR whether or not its Composition renders.
      if (type.claim) rendered.claimXr = xrFromClaim(source.object, type);
      out.push(rendered);
    }
    for (const source of index.manifests) {
      if (!isOperationKind(source.object) || (options.select && !options.select(source))) continue;
      const findings: Finding[] = [];
      const rendered = await guardedAsync(source, "rendering", findings, () => renderOperationSource(source, index, pool, options));
      out.push(rendered ?? failedInternally(source, findings));
    }
  } finally {
    await pool.close();
  }
  return out;
}

async function renderSource(source: Manifest, type: XrType, index: RepoIndex, pool: RuntimePool, options: RepoRenderOptions): Promise<RenderedXr> {
  const xr = type.claim ? xrFromClaim(source.object, type) : cloneJson(source.object as JsonObject);
  const picked = pickComposition(xr, index, type, source.file);
  if (!("object" in picked)) {
    if (!picked.certain)
      return {
        source,
        via: "no Composition",
        documents: [],
        objects: [],
        keys: [],
        ok: false,
        findings: [],
        notRendered: [compositionUnknown(xr, picked, source)],
      };
    return { source, via: "no Composition", documents: [], objects: [], keys: [], ok: false, findings: [noCompositionFinding(source, picked)] };
  }
  const xrGvk = gvkOf(String(xr.apiVersion), type.xrKind);
  const schema = type.claim ? index.xrType(xrGvk.group, xrGvk.version, xrGvk.kind, source.file)?.schema : type.schema;
  const rendered = await renderComposite({
    xr,
    composition: picked.object as JsonObject,
    runtime: (name) => pool.get(name),
    xrSchema: schema,
    requiredResources: index.environmentConfigs(source.file),
    repositoryObjects: (apiVersion, kind) => index.objectsOfKind(apiVersion, kind, source.file) as JsonObject[],
    namespaced: kindScopes(index),
    credentials: index.secrets(picked.file) as JsonObject[],
    repositoryInputs: true,
    call: callContext(options, picked.file),
    timeoutMs: options.timeoutMs,
    schemaFor: options.schemaFor,
    includeFunctionResults: options.includeFunctionResults,
    includeFullXr: options.includeFullXr,
    release: options.release,
    xrd: type.untyped ? undefined : (type.xrd.object as JsonObject),
  });
  const out: RenderedXr = {
    source,
    via: `Composition ${picked.name ?? ""}`,
    documents: rendered.ok ? rendered.documents : [],
    objects: rendered.ok ? rendered.composed : [],
    keys: rendered.ok ? rendered.composed.map(renderedObjectKey) : [],
    ok: rendered.ok,
    composition: picked,
    rendered,
    findings: rendered.problems.map((p) => problemFinding(p, source, picked)),
  };
  if (rendered.connectionDetails?.length) out.connectionDetails = rendered.connectionDetails;
  if (rendered.ok && rendered.xr) out.composite = rendered.xr;
  if (rendered.ok) await addNested(out, rendered.composed, index, pool, options, 1);
  // Crossplane keeps an existing composed resource's name and namespace on an update (FunctionComposer).
  const composed = out.keys.filter((_, i) => isComposedResource(out.objects[i]!));
  if (composed.length) out.namesKept = composed;
  const reads = observedReads(picked.object as JsonObject);
  if (reads.length) out.observedReads = reads;
  if (rendered.notRunnable) out.notRendered = rendered.notRunnable.map((n) => notRunnableAt(n, picked, index));
  return out;
}

/**
 * An Operation, CronOperation or WatchOperation of the repository, rendered with the repository's
 * objects as what its functions may require; a WatchOperation watches the first object of the
 * repository its watch selects.
 */
async function renderOperationSource(source: Manifest, index: RepoIndex, pool: RuntimePool, options: RepoRenderOptions): Promise<RenderedXr> {
  const object = source.object as JsonObject;
  const watched = source.kind === "WatchOperation" ? watchedIn(object, index) : undefined;
  const rendered = await renderOperation({
    operation: object,
    watched,
    runtime: (name) => pool.get(name),
    requiredResources: index.manifests.filter((m) => m !== source).map((m) => m.object as JsonObject),
    call: callContext(options, source.file),
    timeoutMs: options.timeoutMs,
    schemaFor: options.schemaFor,
    includeFunctionResults: options.includeFunctionResults,
    release: options.release,
  });
  const findings = rendered.problems.map((p) =>
    findingAt(
      source,
      p.step ? stepPointer(object, p.step) : "",
      p.rule,
      p.severity,
      p.detail ? `${p.message}\n${p.detail.split("\n").slice(-20).join("\n")}` : p.message,
    ),
  );
  if (source.kind === "WatchOperation" && !watched) {
    findings.push(
      findingAt(
        source,
        "/spec/watch",
        "render/no-watched-resource",
        "info",
        "rendered without a watched resource: the repository has no object this watch selects (render op -w gives one)",
      ),
    );
  }
  const out: RenderedXr = {
    source,
    via: `${source.kind} pipeline`,
    documents: rendered.ok ? rendered.documents : [],
    objects: rendered.ok ? rendered.applied : [],
    keys: rendered.ok ? rendered.applied.map(renderedObjectKey) : [],
    ok: rendered.ok,
    findings,
  };
  if (rendered.notRunnable) out.notRendered = rendered.notRunnable.map((n) => notRunnableAt(n, source, index));
  // The Operation as the controller stores it: its steps' outputs are what it makes besides what it applies.
  const operation = rendered.ok ? rendered.documents[0] : undefined;
  if (operation && isOperationKind(operation)) out.composite = operation;
  return out;
}

function watchedIn(operation: JsonObject, index: RepoIndex): JsonObject | undefined {
  const watch = ((operation.spec as JsonObject | undefined)?.watch ?? {}) as {
    apiVersion?: string;
    kind?: string;
    namespace?: string;
    matchLabels?: Record<string, string>;
  };
  const found = index.manifests.find((m) => {
    if (m.apiVersion !== watch.apiVersion || m.kind !== watch.kind) return false;
    if (watch.namespace && m.namespace !== watch.namespace) return false;
    const labels = ((m.object.metadata as JsonObject | undefined)?.labels ?? {}) as Record<string, string>;
    return Object.entries(watch.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  });
  return found?.object as JsonObject | undefined;
}

function stepPointer(operation: JsonObject, step: string): string {
  const spec = (operation.spec ?? {}) as JsonObject;
  const steps = (
    operation.kind === "Operation" ? spec.pipeline : ((spec.operationTemplate as JsonObject | undefined)?.spec as JsonObject | undefined)?.pipeline
  ) as { step?: string }[] | undefined;
  const i = (steps ?? []).findIndex((s) => s?.step === step);
  if (i < 0) return "";
  return operation.kind === "Operation" ? `/spec/pipeline/${i}` : `/spec/operationTemplate/spec/pipeline/${i}`;
}

export const DEFAULT_MAX_NESTED_DEPTH = 5;

/**
 * What one source may make, nested XRs included, and what one run may make in all: an XR whose
 * Composition composes XRs of its own type (with a fan-out of 20, five levels are 3.2 million
 * renders) must not hold the run. Past a source's budget its remaining nested XRs are not
 * rendered (render/budget, a warning on the source, whose diff is then unknown there); past the
 * run's, no further source renders nested XRs. Other sources go on.
 */
export const RENDER_BUDGET = {
  /** Composed objects of one source, nested XRs' included. */
  objectsPerSource: 10_000,
  /** Nested XRs rendered for one source. */
  nestedRendersPerSource: 1_000,
  /** Composed objects of every source of one run together. */
  objectsPerRun: 200_000,
};

interface SourceBudget {
  objects: number;
  renders: number;
  /** Said once; the rest of the walk stops. */
  spent: boolean;
  run: { objects: number };
}

/** A run's spending, per runtime pool (one pool per run). */
const runBudgets = new WeakMap<RuntimePool, { objects: number }>();

/**
 * Composed resources that are XRs of a definition in the repository are rendered in turn with
 * their own Composition (the common layering: a platform XR composing a network XR and a cluster
 * XR), to a depth limit; their objects join the source's, keyed under the nested XR's key
 * (`XNetwork/network > Subnet/a`). A nested XR has no name yet offline: it is rendered as
 * `<generateName><resource name>`. crossplane render renders only the first level. Each level's
 * list is walked once, as it was when its render returned (the source's list of objects grows as
 * nested objects join it, and may be that very list), within the budget (RENDER_BUDGET).
 */
async function addNested(
  out: RenderedXr,
  composed: JsonObject[],
  index: RepoIndex,
  pool: RuntimePool,
  options: RepoRenderOptions,
  depth: number,
  prefix = "",
  spending?: SourceBudget,
): Promise<void> {
  const limit = options.maxNestedDepth ?? DEFAULT_MAX_NESTED_DEPTH;
  let budget = spending;
  if (!budget) {
    let run = runBudgets.get(pool);
    if (!run) runBudgets.set(pool, (run = { objects: 0 }));
    run.objects += composed.length;
    budget = { objects: composed.length, renders: 0, spent: false, run };
  }
  const level = composed.slice();
  for (const child of level) {
    if (budget.spent) return;
    const gvk = gvkOf(String(child.apiVersion ?? ""), String(child.kind ?? ""));
    const type = index.xrType(gvk.group, gvk.version, gvk.kind, out.source.file);
    if (!type || type.claim) continue;
    const key = `${prefix}${renderedObjectKey(child)}`;
    const where = `nested ${child.kind} ${renderedObjectName(child)} (composed by ${out.source.kind} ${out.source.name ?? ""})`;
    if (depth > limit) {
      out.findings.push(
        findingAt(out.source, "", "render/nested-depth", "info", `${where} was not rendered: nesting deeper than ${limit} (--max-nested-depth)`),
      );
      continue;
    }
    const over = overBudget(budget);
    if (over) {
      budget.spent = true;
      out.findings.push(
        findingAt(
          out.source,
          "",
          "render/budget",
          "warning",
          `${where} and the nested XRs after it were not rendered: ${over}; what they compose is unknown here (a Composition that composes XRs of its own type nests without end: lower --max-nested-depth, or break the cycle)`,
        ),
      );
      out.partial = [...(out.partial ?? []), key];
      return;
    }
    const xr = nestedXr(child);
    const picked = pickComposition(xr, index, type, out.source.file);
    if (!("object" in picked)) {
      if (!picked.certain) {
        out.notRendered = [...(out.notRendered ?? []), compositionUnknown(xr, picked, out.source)];
        continue;
      }
      out.findings.push(findingAt(out.source, "", picked.rule, "error", `${where}: ${picked.message}`));
      out.partial = [...(out.partial ?? []), key];
      continue;
    }
    budget.renders++;
    const rendered = await renderComposite({
      xr,
      composition: picked.object as JsonObject,
      runtime: (name) => pool.get(name),
      xrSchema: type.schema,
      requiredResources: index.environmentConfigs(out.source.file),
      repositoryObjects: (apiVersion, kind) => index.objectsOfKind(apiVersion, kind, out.source.file) as JsonObject[],
      namespaced: kindScopes(index),
      credentials: index.secrets(picked.file) as JsonObject[],
      repositoryInputs: true,
      call: callContext(options, picked.file),
      timeoutMs: options.timeoutMs,
      schemaFor: options.schemaFor,
      release: options.release,
      xrd: type.untyped ? undefined : (type.xrd.object as JsonObject),
    });
    for (const p of rendered.problems) out.findings.push(problemFinding({ ...p, message: `${where}: ${p.message}` }, out.source, picked));
    if (rendered.notRunnable) out.notRendered = [...(out.notRendered ?? []), ...rendered.notRunnable.map((n) => notRunnableAt(n, picked, index))];
    if (!rendered.ok) {
      if (!rendered.notRunnable) out.partial = [...(out.partial ?? []), key];
      continue;
    }
    budget.objects += rendered.composed.length;
    budget.run.objects += rendered.composed.length;
    const nestedKeys = rendered.composed.map((o) => `${key} > ${renderedObjectKey(o)}`);
    out.documents.push(...rendered.composed);
    out.objects.push(...rendered.composed);
    out.keys.push(...nestedKeys);
    await addNested(out, rendered.composed, index, pool, options, depth + 1, `${key} > `, budget);
  }
}

/** Which budget is spent, said for the finding; undefined while none is. */
function overBudget(b: SourceBudget): string | undefined {
  if (b.objects >= RENDER_BUDGET.objectsPerSource) return `the source already composes ${b.objects} objects, its budget is ${RENDER_BUDGET.objectsPerSource}`;
  if (b.renders >= RENDER_BUDGET.nestedRendersPerSource)
    return `${b.renders} nested XRs of the source were rendered, its budget is ${RENDER_BUDGET.nestedRendersPerSource}`;
  if (b.run.objects >= RENDER_BUDGET.objectsPerRun)
    return `the run's sources already compose ${b.run.objects} objects, the run's budget is ${RENDER_BUDGET.objectsPerRun}`;
  return undefined;
}

/** A composed XR as its own render's input: named, since Crossplane would have named it by now. */
function nestedXr(composed: JsonObject): JsonObject {
  const xr = cloneJson(composed);
  const meta = (xr.metadata ?? {}) as JsonObject;
  if (!meta.name) {
    const resourceName = (meta.annotations as Record<string, string> | undefined)?.[COMPOSITION_RESOURCE_NAME] ?? "nested";
    // Crossplane would add a random suffix; the resource name stands in, made a valid object name (`compositeNetworkEKS` → `compositenetworkeks`).
    const suffix = trimToAlphanumeric(resourceName.toLowerCase().replace(/[^a-z0-9.-]+/g, "-")) || "nested";
    meta.name = `${typeof meta.generateName === "string" ? meta.generateName : ""}${suffix}`;
    delete meta.generateName;
  }
  xr.metadata = meta;
  return xr;
}

/** The text without the non-alphanumerics at either end (an object name starts and ends with one). */
function trimToAlphanumeric(text: string): string {
  const alphanumeric = (c: string) => (c >= "a" && c <= "z") || (c >= "0" && c <= "9");
  let [start, end] = [0, text.length];
  while (start < end && !alphanumeric(text[start]!)) start++;
  while (end > start && !alphanumeric(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** A function that cannot run, placed at its Function object, else at the step that names it. */
function notRunnableAt(n: NotRunnableStep, composition: Manifest, index: RepoIndex): NotRendered {
  const fn = index.functions.get(n.functionName);
  const steps = asArray(asObject(composition.object.spec)?.pipeline);
  const step = steps.findIndex((s) => asObject(s)?.step === n.step);
  const at = fn
    ? { manifest: fn, pointer: "/spec/package" }
    : { manifest: composition, pointer: step >= 0 ? `/spec/pipeline/${step}/functionRef/name` : "/spec" };
  return { what: n.functionName, step: n.step, reason: n.reason, fix: n.fix, severity: "warning", at };
}

/** Only the string values of a map (annotations of a hand-written object may be anything). */
function stringValues(map: unknown): Record<string, string> {
  if (typeof map !== "object" || map === null) return {};
  return Object.fromEntries(Object.entries(map).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Where a Composition's built-ins read template files: its own directory, and the config's mounts. */
export function callContext(options: { root: string; templateMounts?: Record<string, string> }, compositionFile: string): CallContext {
  const mounts = Object.fromEntries(Object.entries(options.templateMounts ?? {}).map(([at, dir]) => [at, path.resolve(options.root, dir)]));
  return { root: options.root, base: path.resolve(options.root, path.dirname(compositionFile)), mounts };
}

/**
 * An XR whose Composition the repository does not decide: none of its type is here (it comes from
 * a package or the cluster), or several are and the cluster would pick one at random. Not
 * rendered, said once per XR type, at the first XR.
 */
function compositionUnknown(xr: JsonObject, picked: NoComposition, source: Manifest): NotRendered {
  const type = `${String(xr.apiVersion)} ${String(xr.kind)}`;
  const ambiguous = picked.rule === "render/composition-ambiguous";
  return {
    what: `${ambiguous ? "ambiguous" : "no"} Composition for ${type}`,
    subject: ambiguous ? `${picked.candidates} could render ${type}` : `no Composition in the repository is for ${type}`,
    reason: ambiguous ? "and Crossplane would pick one at random" : "(it comes from a package the repository depends on, or from the cluster)",
    fix: ambiguous
      ? "set compositionRef or compositionSelector on the XR, or a defaultCompositionRef on its XRD"
      : "add its Composition to the repository, or render the XR with its Composition (`composition-ci render xr.yaml composition.yaml functions.yaml`)",
    severity: "warning",
    at: { manifest: source, pointer: "" },
  };
}
