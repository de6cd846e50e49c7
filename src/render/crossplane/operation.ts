import { Severity } from "@crossplane-org/function-sdk-typescript";
import { cloneJson, type JsonObject } from "../functions/response.js";
import { contextDocument, resultDocuments } from "./output.js";
import { PipelineError, PipelineNotRunnable, runPipeline, type NotRunnableStep, type PipelineEnvironment, type PipelineStep, type StepResult } from "./pipeline.js";
import type { RenderProblem } from "./render.js";

/**
 * What `crossplane operation render` prints for an Operation (a CronOperation or WatchOperation
 * renders the Operation it would create): the Operation with the status the Operation controller
 * gives it (Succeeded, ValidPipeline and Synced conditions, each step's output, references to
 * the resources it applied), then the resources its pipeline applies, then Results and the
 * Context when asked. The pipeline runs as an XR's does, without an XR: functions get their
 * required resources, credentials and the context.
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
  const selector: JsonObject = { requirementName: WATCHED_RESOURCE_REQUIREMENT, apiVersion: watched.apiVersion as string, kind: watched.kind as string, name: meta.name ?? "" };
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
  if (!Array.isArray(steps) || steps.length === 0 || steps.some((s) => typeof s?.step !== "string" || typeof s.functionRef?.name !== "string")) {
    return failed({ rule: "render/invalid-operation", severity: "error", message: "the Operation has no valid pipeline steps to render (each needs step and functionRef.name)" });
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
    const rendered = renderedOperation(operation, out.outputs, applied, req.includeFullOperation === true);
    const documents = [rendered, ...applied];
    if (req.includeFunctionResults) documents.push(...resultDocuments(out.results));
    if (req.includeContext && out.context && Object.keys(out.context).length) documents.push(contextDocument(out.context));
    const problems: RenderProblem[] = out.results
      .filter((r) => r.severity !== Severity.SEVERITY_FATAL)
      .map((r) => ({ rule: "render/function-result", severity: r.severity === Severity.SEVERITY_NORMAL ? "info" : "warning", message: `step "${r.step}": ${r.message}`, step: r.step }));
    return { documents, applied, results: out.results, problems, ok: true };
  } catch (err) {
    if (err instanceof PipelineNotRunnable) return { documents: [], applied: [], results: [], problems: [], ok: false, notRunnable: err.steps };
    if (!(err instanceof PipelineError)) throw err;
    return failed({ rule: err.rule, severity: "error", message: err.message, step: err.step, functionName: err.functionName, detail: err.detail });
  }
}

/** The Operation as the controller leaves it after a successful run, timestamps made stable. */
function renderedOperation(operation: JsonObject, outputs: { step: string; output: JsonObject }[], applied: JsonObject[], includeSpec: boolean): JsonObject {
  const condition = (type: string, reason: string) => ({ type, status: "True", lastTransitionTime: STABLE_TIME, reason });
  const status: JsonObject = { conditions: [condition("Succeeded", "PipelineSuccess"), condition("ValidPipeline", "ValidPipeline"), condition("Synced", "ReconcileSuccess")] };
  if (outputs.length) status.pipeline = outputs.map((o) => ({ step: o.step, output: o.output }));
  const refs = appliedRefs(applied);
  if (refs.length) status.appliedResourceRefs = refs;
  const out: JsonObject = { apiVersion: operation.apiVersion, kind: operation.kind, metadata: operation.metadata ?? {} };
  if (includeSpec) out.spec = operation.spec;
  out.status = status;
  return out;
}

/** References to the applied resources, deduplicated and sorted as the controller sorts them. */
function appliedRefs(applied: JsonObject[]): JsonObject[] {
  const refs = new Map<string, JsonObject>();
  for (const o of applied) {
    const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
    const ref: JsonObject = { apiVersion: String(o.apiVersion ?? ""), kind: String(o.kind ?? ""), name: meta.name ?? "" };
    if (meta.namespace) ref.namespace = meta.namespace;
    refs.set(`${ref.apiVersion}${ref.kind}${meta.namespace ?? ""}${ref.name}`, ref);
  }
  return [...refs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
