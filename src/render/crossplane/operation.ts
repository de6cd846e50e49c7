import { Severity } from "@crossplane-org/function-sdk-typescript";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { contextDocument, resultDocuments } from "./output.js";
import {
  PipelineError,
  PipelineNotRunnable,
  runPipeline,
  type NotRunnableStep,
  type PipelineEnvironment,
  type PipelineOutput,
  type PipelineStep,
  type StepResult,
} from "./pipeline.js";
import { normaliseConditions } from "./engine.js";
import { behaviourOf, type CrossplaneRelease } from "../../core/crossplane-releases.js";
import type { RenderProblem } from "./render.js";

/**
 * What `crossplane operation render` prints for an Operation (a CronOperation or WatchOperation
 * renders the Operation it would create), as the release asked for prints it. v2.2
 * (`crossplane alpha render op`, in-process): the Operation with `appliedResourceRefs` and
 * `pipeline` (each `[]` when empty), its spec only with -o, Results with their step. v2.3 and
 * later run the Operation controller in the engine: the Operation as stored (`resourceVersion:
 * "999"`, its spec always) with the Succeeded, ValidPipeline and Synced conditions, each step's
 * output and the refs (left out when empty), the controller's events as Results, and the applied
 * resources' conditions at the CLI's fixed time. The pipeline runs as an XR's does, without an XR:
 * functions get their required resources, credentials and the context.
 */

export const WATCHED_RESOURCE_REQUIREMENT = "ops.crossplane.io/watched-resource";
const OPERATION_KINDS = new Set(["Operation", "CronOperation", "WatchOperation"]);
const STABLE_TIME = "2024-01-01T00:00:00Z";

export interface OperationRequest extends PipelineEnvironment {
  operation: JsonObject;
  /** A WatchOperation's watched resource (`--watched-resource`): required by every step. */
  watched?: JsonObject;
  includeFullOperation?: boolean;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
  /** The Crossplane release whose output is printed (default: the newest modelled). */
  release?: CrossplaneRelease;
}

export interface RenderedOperation {
  documents: JsonObject[];
  applied: JsonObject[];
  results: StepResult[];
  problems: RenderProblem[];
  ok: boolean;
  notRunnable?: NotRunnableStep[];
}

export function isOperationKind(o: { apiVersion?: unknown; kind?: unknown }): boolean {
  return typeof o.apiVersion === "string" && o.apiVersion.startsWith("ops.crossplane.io/") && OPERATION_KINDS.has(String(o.kind));
}

/** The Operation an Operation, CronOperation or WatchOperation stands for (the latter two: their template, named after them). */
export function operationOf(object: JsonObject): JsonObject | string {
  if (!isOperationKind(object)) return `not an operation type: ${String(object.kind)}/${String(object.apiVersion)}`;
  if (object.kind === "Operation") return cloneJson(object);
  const template = ((object.spec as JsonObject | undefined)?.operationTemplate ?? {}) as JsonObject;
  const metadata = { ...cloneJson((template.metadata ?? {}) as JsonObject), name: (object.metadata as JsonObject | undefined)?.name };
  return { apiVersion: object.apiVersion, kind: "Operation", metadata, spec: cloneJson((template.spec ?? {}) as JsonObject) };
}

/** Every step requires the watched resource, as the WatchOperation controller arranges. */
export function injectWatchedResource(operation: JsonObject, watched: JsonObject): void {
  const meta = (watched.metadata ?? {}) as { name?: string; namespace?: string };
  const selector: JsonObject = {
    requirementName: WATCHED_RESOURCE_REQUIREMENT,
    apiVersion: watched.apiVersion as string,
    kind: watched.kind as string,
    name: meta.name ?? "",
  };
  if (meta.namespace) selector.namespace = meta.namespace;
  for (const step of ((operation.spec as JsonObject | undefined)?.pipeline ?? []) as JsonObject[]) {
    const requirements = (step.requirements ??= {}) as JsonObject;
    requirements.requiredResources = [...((requirements.requiredResources as JsonObject[] | undefined) ?? []), { ...selector }];
  }
}

export async function renderOperation(req: OperationRequest): Promise<RenderedOperation> {
  const failed = (problem: RenderProblem): RenderedOperation => ({ documents: [], applied: [], results: [], problems: [problem], ok: false });
  const operation = operationOf(req.operation);
  if (typeof operation === "string") return failed({ rule: "render/invalid-operation", severity: "error", message: operation });
  const steps = ((operation.spec as JsonObject | undefined)?.pipeline ?? []) as PipelineStep[];
  const engine = behaviourOf(req.release).engine;
  // An empty pipeline renders in the engine (the controller runs no step); v2.2's render needed one.
  if (!Array.isArray(steps) || (steps.length === 0 && !engine) || steps.some((s) => typeof s?.step !== "string" || typeof s.functionRef?.name !== "string")) {
    return failed({
      rule: "render/invalid-operation",
      severity: "error",
      message: "the Operation has no valid pipeline steps to render (each needs step and functionRef.name)",
    });
  }
  const requiredResources = [...(req.requiredResources ?? [])];
  if (req.watched) {
    injectWatchedResource(operation, req.watched);
    requiredResources.push(req.watched);
  }
  try {
    const out = await runPipeline({ ...req, steps, requiredResources });
    const applied = Object.keys(out.desired.resources)
      .sort()
      .map((name) => cloneJson(out.desired.resources[name]!.resource as JsonObject));
    const documents = engine ? engineDocuments(operation, out, applied, req) : inProcessDocuments(operation, out, applied, req);
    const problems: RenderProblem[] = out.results
      .filter((r) => r.severity !== Severity.SEVERITY_FATAL)
      .map((r) => ({
        rule: "render/function-result",
        severity: r.severity === Severity.SEVERITY_NORMAL ? "info" : "warning",
        message: `step "${r.step}": ${r.message}`,
        step: r.step,
      }));
    return { documents, applied, results: out.results, problems, ok: true };
  } catch (err) {
    if (err instanceof PipelineNotRunnable) return { documents: [], applied: [], results: [], problems: [], ok: false, notRunnable: err.steps };
    if (!(err instanceof PipelineError)) throw err;
    return failed({ rule: err.rule, severity: "error", message: err.message, step: err.step, functionName: err.functionName, detail: err.detail });
  }
}

/** v2.2's in-process render: no conditions; refs and outputs always (`[]` when none); the spec only with -o. */
function inProcessDocuments(operation: JsonObject, out: PipelineOutput, applied: JsonObject[], req: OperationRequest): JsonObject[] {
  const rendered: JsonObject = { apiVersion: operation.apiVersion, kind: operation.kind, metadata: operation.metadata ?? {} };
  if (req.includeFullOperation) rendered.spec = operation.spec;
  rendered.status = { appliedResourceRefs: appliedRefs(applied), pipeline: out.outputs.map((o) => ({ output: o.output, step: o.step })) };
  const documents = [rendered, ...applied];
  if (req.includeFunctionResults) documents.push(...resultDocuments(out.results));
  if (req.includeContext && out.context && Object.keys(out.context).length) documents.push(contextDocument(out.context));
  return documents;
}

/**
 * The engine's (v2.3+): the Operation as the controller stored it after a successful run. Its
 * condition times are the engine's clock there (the CLI does not fix them for Operations); here
 * they are the fixed render time, so a render repeats.
 */
function engineDocuments(operation: JsonObject, out: PipelineOutput, applied: JsonObject[], req: OperationRequest): JsonObject[] {
  const generation = ((operation.metadata ?? {}) as JsonObject).generation;
  const condition = (type: string, reason: string): JsonObject => ({
    type,
    status: "True",
    lastTransitionTime: STABLE_TIME,
    reason,
    ...(generation ? { observedGeneration: generation } : {}),
  });
  const status: JsonObject = {
    conditions: [condition("Succeeded", "PipelineSuccess"), condition("ValidPipeline", "ValidPipeline"), condition("Synced", "ReconcileSuccess")],
  };
  if (out.outputs.length) status.pipeline = out.outputs.map((o) => ({ step: o.step, output: o.output }));
  const refs = appliedRefs(applied, true);
  if (refs.length) status.appliedResourceRefs = refs;
  const spec = { mode: "Pipeline", ...((operation.spec ?? {}) as JsonObject) };
  const rendered: JsonObject = {
    apiVersion: operation.apiVersion,
    kind: operation.kind,
    metadata: { ...((operation.metadata ?? {}) as JsonObject), resourceVersion: "999" },
    spec,
    status,
  };
  for (const o of applied) normaliseConditions(o);
  const documents = [rendered, ...applied];
  if (req.includeFunctionResults) documents.push(...out.results.map(operationEvent));
  if (req.includeContext) documents.push(contextDocument(out.context ?? {}));
  return documents;
}

/** A function result as the Operation controller records it. */
function operationEvent(r: StepResult): JsonObject {
  const warning = r.severity !== Severity.SEVERITY_NORMAL;
  return {
    apiVersion: "render.crossplane.io/v1beta1",
    kind: "Result",
    message: `Pipeline step "${r.step}": ${r.message}`,
    reason: "RunPipelineStep",
    severity: warning ? "Warning" : "Normal",
  };
}

/** References to the applied resources: the engine's controller deduplicates and sorts them; v2.2 lists them as applied. */
function appliedRefs(applied: JsonObject[], sorted = false): JsonObject[] {
  const refs = applied.map((o) => {
    const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
    const ref: JsonObject = { apiVersion: String(o.apiVersion ?? ""), kind: String(o.kind ?? ""), name: meta.name ?? "" };
    if (meta.namespace) ref.namespace = meta.namespace;
    return [`${ref.apiVersion}${ref.kind}${meta.namespace ?? ""}${ref.name}`, ref] as const;
  });
  if (!sorted) return refs.map(([, r]) => r);
  return [...new Map(refs).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
