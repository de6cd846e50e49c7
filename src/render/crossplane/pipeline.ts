import { COMPOSITION_RESOURCE_NAME } from "../../manifest/roles.js";
import {
  Capability,
  Ready,
  Severity,
  type Credentials,
  type Requirements,
  type Resource,
  type Resources,
  type RunFunctionRequest,
  type RunFunctionResponse,
  type State,
} from "@crossplane-org/function-sdk-typescript";
import { jsonEqual } from "../../manifest/fieldpath.js";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { FunctionFailure, FunctionNotRunnable, UnavailableRuntime, type CallContext, type FunctionRuntime } from "../../runtimes/runtime.js";

/** What `crossplane render` does with an XR, a Pipeline Composition and its functions. */

export const MAX_REQUIREMENTS_ITERATIONS = 5;
export const CAPABILITIES = [
  Capability.CAPABILITY_CAPABILITIES,
  Capability.CAPABILITY_REQUIRED_RESOURCES,
  Capability.CAPABILITY_CREDENTIALS,
  Capability.CAPABILITY_CONDITIONS,
  Capability.CAPABILITY_REQUIRED_SCHEMAS,
];

export interface PipelineStep {
  step: string;
  functionRef?: { name?: string };
  input?: JsonObject;
  credentials?: { name?: string; source?: string; secretRef?: { name?: string; namespace?: string } }[];
  /** Bootstrap requirements: resources and schemas the function gets on its first call. */
  requirements?: {
    requiredResources?: {
      requirementName?: string;
      apiVersion?: string;
      kind?: string;
      name?: string;
      matchLabels?: Record<string, string>;
      namespace?: string;
    }[];
    requiredSchemas?: { requirementName?: string; apiVersion?: string; kind?: string }[];
  };
}

/** What a pipeline's functions run with and may ask for, besides the XR and the steps. */
export interface PipelineEnvironment {
  runtime: (functionName: string) => FunctionRuntime;
  observedResources?: JsonObject[];
  /** Resources functions may require (required and extra resources). */
  requiredResources?: JsonObject[];
  /**
   * The repository's objects of a kind that a function may require besides those (a repository
   * render): what the cluster would hold once the repository is applied.
   */
  repositoryObjects?: (apiVersion: string, kind: string) => JsonObject[];
  /** Whether a kind is namespaced, where known: Crossplane ignores a selector's namespace for a cluster-scoped kind. */
  namespaced?: (apiVersion: string, kind: string) => boolean | undefined;
  context?: JsonObject;
  credentials?: JsonObject[];
  /**
   * Credentials and required resources are the repository's objects (a repository render), not
   * what the caller gave (`--function-credentials`, `--required-resources`): an object missing
   * there may be in the cluster, so a step that needs it leaves the source not rendered rather
   * than failed.
   */
  repositoryInputs?: boolean;
  /** The OpenAPI schema of a kind, for functions that require schemas; undefined when unknown. */
  schemaFor?: SchemaLookup;
  timeoutMs: number;
  /** Where the composition is, for built-ins that read template files. */
  call?: CallContext;
}

export interface PipelineInputs extends PipelineEnvironment {
  /** The XR a composition pipeline composes; none for an Operation's pipeline. */
  xr?: JsonObject;
  steps: PipelineStep[];
}

export type SchemaLookup = (apiVersion: string, kind: string) => JsonObject | undefined;

export interface StepResult {
  step: string;
  severity: Severity;
  message: string;
  reason?: string;
}

/** Why a pipeline stopped early; `step` names the step when one is to blame. */
export class PipelineError extends Error {
  constructor(
    message: string,
    readonly step?: string,
    readonly functionName?: string,
    readonly detail?: string,
    readonly rule = "render/pipeline",
  ) {
    super(message);
  }
}

/** A step whose function cannot run here (not the repository's fault), and what would let it. */
export interface NotRunnableStep {
  step: string;
  functionName: string;
  reason: string;
  fix: string;
}

/** The pipeline was not run: some of its functions cannot run here. Nothing is rendered, nothing failed. */
export class PipelineNotRunnable extends Error {
  constructor(readonly steps: NotRunnableStep[]) {
    super(`not rendered: ${steps.map((s) => `function ${s.functionName} ${s.reason}`).join("; ")}`);
  }
}

export interface PipelineOutput {
  /** The steps' outputs (Operations keep them in status.pipeline), in step order. */
  outputs: { step: string; output: JsonObject }[];
  desired: State;
  results: StepResult[];
  conditions: RunFunctionResponse["conditions"];
  context: JsonObject | undefined;
  /** Objects steps asked for by name that a repository render could not give them (the step went on without). */
  missing?: { step: string; what: string; optional: boolean }[];
}

/** Observed composed resources keyed by their composition-resource-name annotation. */
export function observedState(xr: JsonObject, observed: JsonObject[]): State {
  const resources: Record<string, Resource> = {};
  for (const o of observed) {
    const name = ((o.metadata as JsonObject | undefined)?.annotations as Record<string, string> | undefined)?.[COMPOSITION_RESOURCE_NAME];
    if (name) resources[name] = { resource: o, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  }
  return { composite: { resource: xr, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED }, resources };
}

/**
 * Every step whose function cannot run here, found before any runs (a function that may not run,
 * a package that cannot be pulled), so the report names them all and not only the first.
 */
async function stepsNotRunnable(inputs: PipelineInputs): Promise<NotRunnableStep[]> {
  const out: NotRunnableStep[] = [];
  for (const step of inputs.steps) {
    const fnName = step.functionRef?.name ?? "";
    const runtime = inputs.runtime(fnName);
    if (runtime instanceof UnavailableRuntime) {
      if (runtime.fix !== undefined) out.push({ step: step.step, functionName: fnName, reason: runtime.reason, fix: runtime.fix });
      continue;
    }
    try {
      await runtime.prepare?.();
    } catch (err) {
      // Any other failure is the step's own when it runs.
      if (err instanceof FunctionNotRunnable) out.push({ step: step.step, functionName: fnName, reason: err.message, fix: err.fix });
    }
  }
  return out;
}

export async function runPipeline(inputs: PipelineInputs): Promise<PipelineOutput> {
  const notRunnable = await stepsNotRunnable(inputs);
  if (notRunnable.length) throw new PipelineNotRunnable(notRunnable);
  const observed: State = inputs.xr ? observedState(inputs.xr, inputs.observedResources ?? []) : { composite: undefined, resources: {} };
  let desired: State = { composite: undefined, resources: {} };
  // crossplane render starts the pipeline with an empty context, not none.
  let context: JsonObject | undefined = cloneJson(inputs.context) ?? {};
  const results: StepResult[] = [];
  const conditions: RunFunctionResponse["conditions"] = [];
  const missing: NonNullable<PipelineOutput["missing"]> = [];
  const outputs: PipelineOutput["outputs"] = [];
  for (const step of inputs.steps) {
    const fnName = step.functionRef?.name ?? "";
    const base: RunFunctionRequest = {
      meta: { tag: "", capabilities: CAPABILITIES },
      observed: cloneJson(observed),
      desired: cloneJson(desired),
      input: step.input,
      context,
      extraResources: {},
      credentials: credentialsFor(step, fnName, inputs.credentials ?? [], inputs.repositoryInputs === true),
      ...bootstrapRequirements(step, inputs),
    };
    const { rsp, unresolved } = await runWithRequirements(step, fnName, base, inputs);
    for (const r of rsp.results) results.push({ step: step.step, severity: r.severity, message: r.message, reason: r.reason });
    const fatalResult = rsp.results.find((r) => r.severity === Severity.SEVERITY_FATAL);
    if (fatalResult && unresolved.length && inputs.repositoryInputs) {
      // It asked for objects by name that the repository does not hold: the cluster would have answered.
      throw new PipelineNotRunnable([
        {
          step: step.step,
          functionName: fnName,
          reason: `needs ${unresolved.join("; ")}`,
          fix: "add it to the repository (beside the XR or its Composition), or pass it with --required-resources",
        },
      ]);
    }
    if (unresolved.length && inputs.repositoryInputs) {
      // function-environment-configs and function-extra-resources say when a missing object is fine.
      const policy = (step.input?.spec as JsonObject | undefined)?.policy as JsonObject | undefined;
      for (const what of unresolved) missing.push({ step: step.step, what, optional: policy?.resolution === "Optional" });
    }
    if (fatalResult) {
      throw new PipelineError(
        `pipeline step "${step.step}" returned a fatal result: ${fatalResult.message}`,
        step.step,
        fnName,
        undefined,
        "render/function-fatal",
      );
    }
    desired = rsp.desired ?? { composite: undefined, resources: {} };
    context = rsp.context;
    conditions.push(...rsp.conditions);
    if (rsp.output !== undefined) {
      const at = outputs.findIndex((o) => o.step === step.step);
      if (at >= 0) outputs[at] = { step: step.step, output: rsp.output as JsonObject };
      else outputs.push({ step: step.step, output: rsp.output as JsonObject });
    }
  }
  return { desired, results, conditions, context, outputs, ...(missing.length ? { missing } : {}) };
}

async function runWithRequirements(
  step: PipelineStep,
  fnName: string,
  req: RunFunctionRequest,
  inputs: PipelineInputs,
): Promise<{ rsp: RunFunctionResponse; unresolved: string[] }> {
  const runtime = inputs.runtime(fnName);
  const bootstrap = { requiredResources: req.requiredResources, requiredSchemas: req.requiredSchemas };
  let requirements: Requirements | undefined;
  const unresolved = unresolvedByName(step.requirements?.requiredResources ?? [], inputs);
  for (let i = 0; ; i++) {
    let rsp: RunFunctionResponse;
    try {
      rsp = await runtime.run(req, inputs.timeoutMs, inputs.call);
      const malformed = malformedResponse(rsp);
      if (malformed) throw new FunctionFailure(`malformed RunFunctionResponse: ${malformed}`);
      rsp = { ...rsp, results: rsp.results ?? [], conditions: rsp.conditions ?? [] };
    } catch (err) {
      if (err instanceof FunctionNotRunnable) throw new PipelineNotRunnable([{ step: step.step, functionName: fnName, reason: err.message, fix: err.fix }]);
      const failure = err instanceof FunctionFailure ? err : new FunctionFailure(String(err));
      throw new PipelineError(
        `pipeline step "${step.step}": function ${fnName} failed: ${failure.message}`,
        step.step,
        fnName,
        failure.detail,
        "render/function-failed",
      );
    }
    const next = normalizeRequirements(rsp.requirements);
    if (jsonEqual(next, normalizeRequirements(requirements))) return { rsp, unresolved: [...new Set(unresolved)] };
    if (i === MAX_REQUIREMENTS_ITERATIONS) {
      throw new PipelineError(`pipeline step "${step.step}": requirements didn't stabilize after ${MAX_REQUIREMENTS_ITERATIONS} iterations`, step.step, fnName);
    }
    requirements = rsp.requirements;
    const asked = resolveRequirements(requirements, inputs);
    unresolved.push(...unresolvedByName(Object.values({ ...requirements?.extraResources, ...requirements?.resources }), inputs));
    // What the step's bootstrap requirements gave stays; what the function asks for is added.
    req = {
      ...req,
      ...asked,
      requiredResources: { ...bootstrap.requiredResources, ...asked.requiredResources },
      requiredSchemas: { ...bootstrap.requiredSchemas, ...asked.requiredSchemas },
    };
  }
}

/** A step's bootstrap requirements answered before its first call, as Crossplane answers them. */
function bootstrapRequirements(step: PipelineStep, inputs: PipelineInputs): Pick<RunFunctionRequest, "requiredResources" | "requiredSchemas"> {
  const requiredResources: RunFunctionRequest["requiredResources"] = {};
  const requiredSchemas: RunFunctionRequest["requiredSchemas"] = {};
  for (const sel of step.requirements?.requiredResources ?? []) {
    if (!sel.requirementName || !sel.apiVersion || !sel.kind) continue;
    requiredResources[sel.requirementName] = answer(
      {
        apiVersion: sel.apiVersion,
        kind: sel.kind,
        matchName: sel.name,
        matchLabels: sel.name === undefined ? { labels: sel.matchLabels ?? {} } : undefined,
        namespace: sel.namespace,
      },
      inputs,
    );
  }
  for (const sel of step.requirements?.requiredSchemas ?? []) {
    if (!sel.requirementName || !sel.apiVersion || !sel.kind) continue;
    const schema = inputs.schemaFor?.(sel.apiVersion, sel.kind);
    requiredSchemas[sel.requirementName] = schema ? { openapiV3: schema } : {};
  }
  return { requiredResources, requiredSchemas };
}

/** The objects asked for by name that the pool does not hold, each with why: `EnvironmentConfig shared, which the repository does not hold`. */
function unresolvedByName(
  selectors: { apiVersion?: string; kind?: string; name?: string; matchName?: string; namespace?: string }[],
  inputs: PipelineInputs,
): string[] {
  const out: string[] = [];
  for (const s of selectors) {
    const name = s.matchName ?? s.name;
    if (!name || !s.apiVersion || !s.kind) continue;
    const pool = poolFor(s.apiVersion, s.kind, inputs);
    if (matching(asCrossplaneSees({ apiVersion: s.apiVersion, kind: s.kind, matchName: name, namespace: s.namespace }, inputs), pool).length) continue;
    const elsewhere = [
      ...new Set(
        pool
          .map((o) => (o.metadata ?? {}) as { name?: string; namespace?: string })
          .filter((m) => m.name === name && (m.namespace ?? "") !== (s.namespace ?? ""))
          .map((m) => m.namespace ?? ""),
      ),
    ];
    const where = elsewhere.includes("") ? "without a namespace" : `namespace${elsewhere.length > 1 ? "s" : ""} ${elsewhere.join(", ")}`;
    const asked = `${s.kind} ${s.namespace ? `${s.namespace}/` : ""}${name}`;
    out.push(
      elsewhere.length
        ? `${asked}, which the repository holds only ${elsewhere.includes("") ? where : `in ${where}`} (a request by name reaches ${s.namespace ? `namespace ${s.namespace} only` : "only a cluster-scoped object when it names no namespace"})`
        : `${asked}, which the repository does not hold (the cluster may)`,
    );
  }
  return out;
}

function normalizeRequirements(r: Requirements | undefined): unknown {
  const nonEmpty = (m: object | undefined) => (m && Object.keys(m).length ? m : undefined);
  return { extra: nonEmpty(r?.extraResources), resources: nonEmpty(r?.resources), schemas: nonEmpty(r?.schemas) };
}

interface Selector {
  apiVersion: string;
  kind: string;
  matchName?: string;
  matchLabels?: { labels: Record<string, string> };
  namespace?: string;
}

/** The selector as Crossplane's client reads it: a namespace means nothing for a cluster-scoped kind. */
function asCrossplaneSees(selector: Selector, inputs: PipelineInputs): Selector {
  if (selector.namespace === undefined || inputs.namespaced?.(selector.apiVersion, selector.kind) !== false) return selector;
  const { namespace: _ignored, ...rest } = selector;
  return rest;
}

/** A selector answered as Crossplane answers it, from what the pipeline was given and the repository. */
function answer(selector: Selector, inputs: PipelineInputs): Resources {
  return selectResources(asCrossplaneSees(selector, inputs), poolFor(selector.apiVersion, selector.kind, inputs));
}

/** Required resources matched by apiVersion and kind, then by name or labels, sorted by name. */
export function selectResources(selector: Selector, pool: JsonObject[]): Resources {
  // Each function gets its own copy: a built-in may change what it is given, and the pool is the repository's objects.
  return { items: matching(selector, pool).map((resource) => ({ resource: cloneJson(resource), connectionDetails: {}, ready: Ready.READY_UNSPECIFIED })) };
}

function matching(selector: Selector, pool: JsonObject[]): JsonObject[] {
  return pool
    .filter((o) => o.apiVersion === selector.apiVersion && o.kind === selector.kind)
    .filter((o) => {
      const meta = (o.metadata ?? {}) as { name?: string; namespace?: string; labels?: Record<string, string> };
      // By name, Crossplane gets one object: in the selector's namespace, or cluster-scoped without one.
      if (selector.matchName !== undefined) return meta.name === selector.matchName && (meta.namespace ?? "") === (selector.namespace ?? "");
      // By labels, in the selector's namespace, or across all namespaces without one.
      if (selector.namespace && meta.namespace !== selector.namespace) return false;
      const labels = selector.matchLabels?.labels ?? {};
      return Object.entries(labels).every(([k, v]) => meta.labels?.[k] === v);
    })
    .sort((a, b) => byteOrder(String((a.metadata as JsonObject)?.name ?? ""), String((b.metadata as JsonObject)?.name ?? "")));
}

/** The objects a selector of a kind is answered from: those given, and the repository's of that kind. */
function poolFor(apiVersion: string, kind: string, inputs: PipelineInputs): JsonObject[] {
  const given = inputs.requiredResources ?? [];
  const repository = inputs.repositoryObjects?.(apiVersion, kind) ?? [];
  return repository.length ? [...given, ...repository] : given;
}

/** Requirements answered: resources from the pool, schemas from the lookup (empty when unknown, as Crossplane does). */
function resolveRequirements(r: Requirements | undefined, inputs: PipelineInputs): Partial<RunFunctionRequest> {
  const resolve = (m: Record<string, Selector> | undefined) => Object.fromEntries(Object.entries(m ?? {}).map(([k, s]) => [k, answer(s, inputs)]));
  const requiredSchemas = Object.fromEntries(
    Object.entries(r?.schemas ?? {}).map(([k, s]) => {
      const schema = inputs.schemaFor?.(s.apiVersion, s.kind);
      return [k, schema ? { openapiV3: schema } : {}];
    }),
  );
  return { extraResources: resolve(r?.extraResources), requiredResources: resolve(r?.resources), requiredSchemas };
}

function credentialsFor(step: PipelineStep, fnName: string, secrets: JsonObject[], fromRepository: boolean): Record<string, Credentials> {
  const out: Record<string, Credentials> = {};
  for (const c of step.credentials ?? []) {
    if (c.source !== "Secret" || !c.secretRef) continue;
    const secret = secrets.find((s) => {
      const meta = (s.metadata ?? {}) as { name?: string; namespace?: string };
      return s.kind === "Secret" && meta.name === c.secretRef!.name && (meta.namespace ?? "") === (c.secretRef!.namespace ?? "");
    });
    if (!secret && fromRepository) {
      const ref = `${c.secretRef.namespace ?? ""}/${c.secretRef.name ?? ""}`;
      throw new PipelineNotRunnable([
        {
          step: step.step,
          functionName: fnName,
          reason: `needs Secret ${ref} as its credentials "${c.name ?? ""}", which is not in the repository (the cluster holds it)`,
          fix: `add the Secret to the repository (a placeholder will do), or render the XR with --function-credentials`,
        },
      ]);
    }
    if (!secret) {
      throw new PipelineError(
        `pipeline step "${step.step}": cannot get credentials "${c.name}": Secret ${c.secretRef.namespace}/${c.secretRef.name} not found in the function credentials`,
        step.step,
      );
    }
    out[c.name ?? ""] = { credentialData: { data: secretData(secret) } };
  }
  return out;
}

function secretData(secret: JsonObject): Record<string, Buffer> {
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>)) data[k] = Buffer.from(String(v), "base64");
  for (const [k, v] of Object.entries((secret.stringData ?? {}) as Record<string, string>)) data[k] = Buffer.from(String(v), "utf8");
  return data;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with a response's shape (a module or process function can answer anything), or nothing. */
export function malformedResponse(rsp: unknown): string | undefined {
  if (!isObject(rsp)) return "not an object";
  if (rsp.results !== undefined && (!Array.isArray(rsp.results) || !rsp.results.every(isObject))) return "results is not a list of results";
  if (rsp.conditions !== undefined && (!Array.isArray(rsp.conditions) || !rsp.conditions.every(isObject))) return "conditions is not a list of conditions";
  if (rsp.context !== undefined && rsp.context !== null && !isObject(rsp.context)) return "context is not an object";
  if (rsp.requirements !== undefined && rsp.requirements !== null && !isObject(rsp.requirements)) return "requirements is not an object";
  const desired = rsp.desired;
  if (desired === undefined || desired === null) return undefined;
  if (!isObject(desired)) return "desired is not an object";
  if (
    desired.composite !== undefined &&
    desired.composite !== null &&
    !(isObject(desired.composite) && (desired.composite.resource === undefined || isObject(desired.composite.resource)))
  ) {
    return "desired.composite is not a resource";
  }
  if (desired.resources !== undefined && !isObject(desired.resources)) return "desired.resources is not a map of resources";
  for (const [name, r] of Object.entries((desired.resources ?? {}) as Record<string, unknown>)) {
    if (!isObject(r) || !isObject(r.resource)) return `desired.resources[${JSON.stringify(name)}] is not a resource`;
  }
  return undefined;
}

/** Go's string order (bytes of UTF-8), whatever the locale: a render must not depend on LANG. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
