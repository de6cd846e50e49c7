import { Ready, Severity, Status, type Resource, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { cloneJson, type JsonObject } from "../functions/response.js";
import { controllerReference } from "../owner.js";
import { COMPOSITION_RESOURCE_NAME, type PipelineOutput, type StepResult } from "./pipeline.js";

/** Turning a pipeline's desired state into the objects `crossplane render` prints. */

export const RENDER_TIME = "2024-01-01T00:00:00Z";
const RFC1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface OutputOptions {
  includeFullXr?: boolean;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
}

export interface NameProblem {
  resourceName: string;
  message: string;
}

function meta(o: JsonObject): JsonObject {
  return (o.metadata ??= {}) as JsonObject;
}

/** "a", "a and b", "a, b, and c", "a, b, c, and N more" (as Crossplane words it). */
export function unreadyMessage(names: string[]): string {
  if (names.length === 1) return names[0]!;
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names.slice(0, 3).join(", ")}, and ${names.length - 3} more`;
}

const STATUS_WORDS: Partial<Record<Status, string>> = {
  [Status.STATUS_CONDITION_TRUE]: "True",
  [Status.STATUS_CONDITION_FALSE]: "False",
  [Status.STATUS_CONDITION_UNKNOWN]: "Unknown",
};

function readyCondition(out: PipelineOutput): JsonObject {
  const unready = Object.entries(out.desired.resources)
    .filter(([, r]) => r.ready !== Ready.READY_TRUE)
    .map(([name]) => name)
    .sort();
  const base = { lastTransitionTime: RENDER_TIME, type: "Ready" };
  if (out.desired.composite?.ready === Ready.READY_FALSE) return { ...base, reason: "Creating", status: "False" };
  if (unready.length > 0) {
    return { ...base, message: `Unready resources: ${unreadyMessage(unready)}`, reason: "Creating", status: "False" };
  }
  return { ...base, reason: "Available", status: "True" };
}

function functionCondition(c: RunFunctionResponse["conditions"][number]): JsonObject {
  const cond: JsonObject = {
    lastTransitionTime: RENDER_TIME,
    reason: c.reason,
    status: STATUS_WORDS[c.status] ?? "Unknown",
    type: c.type,
  };
  if (c.message) cond.message = c.message;
  return cond;
}

/** The XR as printed: identity and desired status (or the whole XR), with Crossplane's conditions. */
export function renderedComposite(xr: JsonObject, out: PipelineOutput, options: OutputOptions): JsonObject {
  const desiredXr = (out.desired.composite?.resource ?? {}) as JsonObject;
  const xrMeta = (xr.metadata ?? {}) as JsonObject;
  const result: JsonObject = options.includeFullXr
    ? cloneJson(xr)
    : { apiVersion: xr.apiVersion, kind: xr.kind, metadata: identity(xrMeta) };
  const status: JsonObject = { ...((options.includeFullXr ? xr.status : {}) as JsonObject), ...cloneJson((desiredXr.status ?? {}) as JsonObject) };
  const conditions = [readyCondition(out), ...out.conditions.map(functionCondition)];
  status.conditions = mergeConditions((status.conditions ?? []) as JsonObject[], conditions);
  result.status = status;
  return result;
}

function identity(m: JsonObject): JsonObject {
  const out: JsonObject = { name: m.name };
  if (m.namespace) out.namespace = m.namespace;
  return out;
}

function mergeConditions(existing: JsonObject[], added: JsonObject[]): JsonObject[] {
  const byType = new Map(existing.map((c) => [c.type, c]));
  for (const c of added) byType.set(c.type, c);
  return [...byType.values()];
}

/** Composed resources with the metadata Crossplane adds, sorted by composition resource name. */
export function renderedComposed(
  xr: JsonObject,
  out: PipelineOutput,
  observed: Map<string, JsonObject>,
): { objects: JsonObject[]; problems: NameProblem[] } {
  const problems: NameProblem[] = [];
  const objects = Object.entries(out.desired.resources)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, r]) => {
      const o = composedMetadata(xr, name, r, observed.get(name));
      const n = meta(o).name;
      if (typeof n === "string" && (n.length > 253 || !RFC1123_SUBDOMAIN.test(n))) {
        problems.push({
          resourceName: name,
          message: `composed resource "${name}" has name "${n}", which is not a valid RFC 1123 subdomain (lowercase alphanumerics, '-' and '.', at most 253 characters): Crossplane would fail to create it`,
        });
      }
      return o;
    });
  return { objects, problems };
}

function composedMetadata(xr: JsonObject, name: string, r: Resource, observed: JsonObject | undefined): JsonObject {
  const o = cloneJson((r.resource ?? {}) as JsonObject);
  const m = meta(o);
  const xrMeta = (xr.metadata ?? {}) as JsonObject;
  const xrLabels = (xrMeta.labels ?? {}) as Record<string, string>;
  const prefix = xrLabels["crossplane.io/composite"] || String(xrMeta.name ?? "");
  m.generateName = `${prefix}-`;
  const observedName = (observed?.metadata as JsonObject | undefined)?.name;
  if (!m.name && observedName) m.name = observedName;
  m.annotations = { ...((m.annotations ?? {}) as JsonObject), [COMPOSITION_RESOURCE_NAME]: name };
  const labels: Record<string, string> = { ...((m.labels ?? {}) as Record<string, string>), "crossplane.io/composite": prefix };
  for (const key of ["crossplane.io/claim-name", "crossplane.io/claim-namespace"]) {
    if (xrLabels[key]) labels[key] = xrLabels[key];
  }
  m.labels = labels;
  if (xrMeta.namespace) m.namespace = xrMeta.namespace;
  const owner = controllerReference(xr);
  const others = ((m.ownerReferences ?? []) as JsonObject[]).filter((ref) => !ref.controller);
  m.ownerReferences = [...others, owner];
  return o;
}

export function resultDocuments(results: StepResult[]): JsonObject[] {
  return results.map((r) => {
    const doc: JsonObject = {
      apiVersion: "render.crossplane.io/v1beta1",
      kind: "Result",
      message: r.message,
      severity: Severity[r.severity],
      step: r.step,
    };
    if (r.reason) doc.reason = r.reason;
    return doc;
  });
}

export function contextDocument(context: JsonObject | undefined): JsonObject {
  return { apiVersion: "render.crossplane.io/v1beta1", kind: "Context", fields: context ?? {} };
}
