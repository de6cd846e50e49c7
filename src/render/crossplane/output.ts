import { Ready, Severity, Status, type Resource, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { controllerReference } from "../owner.js";
import { type PipelineOutput, type StepResult } from "./pipeline.js";
import { COMPOSITION_RESOURCE_NAME } from "../../manifest/roles.js";

/**
 * Turning a pipeline's desired state into the objects `crossplane render` prints, as its
 * in-process render does (crossplane v2.2, cmd/crank/render): the whole desired XR with
 * Crossplane's conditions, composed resources with the metadata Crossplane sets, Results and the
 * Context. docs/render.md says where the v2.3+ render, which runs the real reconciler, differs.
 */

export const RENDER_TIME = "2024-01-01T00:00:00Z";
const RFC1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Conditions Crossplane owns: a function's condition of these types is not printed. */
const SYSTEM_CONDITIONS = new Set(["Ready", "Synced", "Healthy"]);

export interface OutputOptions {
  includeFullXr?: boolean;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
}

export interface NameProblem {
  resourceName: string;
  message: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * crossplane-runtime's StableNAndSomeMore(3, names): sorted, then "a", "a, b", "a, b, and c",
 * "a, b, c, and N more".
 */
export function unreadyMessage(names: string[]): string {
  const sorted = [...names].sort();
  const n = 3;
  if (sorted.length > n) return `${sorted.slice(0, n).join(", ")}, and ${sorted.length - n} more`;
  if (sorted.length === n) return `${sorted.slice(0, n - 1).join(", ")}, and ${sorted[n - 1]}`;
  return sorted.join(", ");
}

const STATUS_WORDS: Partial<Record<Status, string>> = {
  [Status.STATUS_CONDITION_TRUE]: "True",
  [Status.STATUS_CONDITION_FALSE]: "False",
  [Status.STATUS_CONDITION_UNKNOWN]: "Unknown",
};

/**
 * The XR's Ready condition: the composite's own readiness wins (false: Creating, true: Available);
 * otherwise Creating while a composed resource is not ready, naming them.
 */
function readyCondition(out: PipelineOutput): JsonObject {
  const ready = out.desired.composite?.ready;
  if (ready === Ready.READY_FALSE) return condition("Ready", "False", "Creating");
  if (ready === Ready.READY_TRUE) return condition("Ready", "True", "Available");
  const unready = Object.entries(out.desired.resources)
    .filter(([, r]) => r.ready !== Ready.READY_TRUE)
    .map(([name]) => name);
  if (unready.length > 0) return condition("Ready", "False", "Creating", `Unready resources: ${unreadyMessage(unready)}`);
  return condition("Ready", "True", "Available");
}

/** A condition as crossplane-runtime's Condition struct serialises it (reason always, message when set). */
function condition(
  type: unknown,
  status: unknown,
  reason: unknown,
  message?: unknown,
  lastTransitionTime: unknown = RENDER_TIME,
  observedGeneration?: unknown,
): JsonObject {
  const out: JsonObject = { lastTransitionTime, reason: reason ?? "", status, type };
  if (message) out.message = message;
  if (observedGeneration) out.observedGeneration = observedGeneration;
  return out;
}

function functionCondition(c: RunFunctionResponse["conditions"][number]): JsonObject {
  return condition(c.type, STATUS_WORDS[c.status] ?? "Unknown", c.reason, c.message);
}

/** SetConditions: a condition of a type already there replaces it in place, unless equal but for its time. */
function setCondition(conditions: JsonObject[], c: JsonObject): void {
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) conditions.push(c);
  else if (!["status", "reason", "message"].every((k) => (conditions[i]![k] ?? "") === (c[k] ?? ""))) conditions[i] = c;
}

/**
 * The XR as printed: the whole desired XR the last step returned (spec and metadata a function set
 * included), with the input's identity, and Crossplane's Ready condition then the functions'
 * conditions. With -x, the input XR's spec and metadata replace the desired ones.
 */
export function renderedComposite(xr: JsonObject, out: PipelineOutput, options: OutputOptions): JsonObject {
  const result = cloneJson((out.desired.composite?.resource ?? {}) as JsonObject);
  const xrMeta = isObject(xr.metadata) ? xr.metadata : {};
  result.apiVersion = xr.apiVersion;
  result.kind = xr.kind;
  if (options.includeFullXr) {
    result.metadata = cloneJson(xrMeta);
    if (xr.spec !== undefined) result.spec = cloneJson(xr.spec);
  } else {
    const m = isObject(result.metadata) ? result.metadata : (result.metadata = {});
    m.name = xrMeta.name;
    if (xrMeta.namespace) m.namespace = xrMeta.namespace;
    else delete m.namespace;
  }
  const status = isObject(result.status) ? result.status : (result.status = {});
  const conditions = (Array.isArray(status.conditions) ? status.conditions : [])
    .filter(isObject)
    .map((c) => condition(c.type, c.status, c.reason, c.message, c.lastTransitionTime, c.observedGeneration));
  setCondition(conditions, readyCondition(out));
  for (const c of out.conditions) if (!SYSTEM_CONDITIONS.has(c.type)) setCondition(conditions, functionCondition(c));
  status.conditions = conditions;
  return result;
}

/** Composed resources with the metadata Crossplane adds, sorted by composition resource name. */
export function renderedComposed(xr: JsonObject, out: PipelineOutput, observed: Map<string, JsonObject>): { objects: JsonObject[]; problems: NameProblem[] } {
  const problems: NameProblem[] = [];
  const objects = Object.entries(out.desired.resources)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, r]) => {
      const o = composedMetadata(xr, name, r, observed.get(name), problems);
      const n = (o.metadata as JsonObject).name;
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

/** Sets a metadata field, or deletes it for an empty value (unstructured's setters). */
function setOrDelete(m: JsonObject, key: string, value: unknown): void {
  if (typeof value === "string" && value !== "") m[key] = value;
  else delete m[key];
}

function composedMetadata(xr: JsonObject, name: string, r: Resource, observed: JsonObject | undefined, problems: NameProblem[]): JsonObject {
  const o = cloneJson((r.resource ?? {}) as JsonObject);
  const m = isObject(o.metadata) ? o.metadata : (o.metadata = {});
  // An observed resource of the same composition resource name keeps its identity.
  if (observed) {
    const om = isObject(observed.metadata) ? observed.metadata : {};
    for (const key of ["namespace", "name", "generateName"]) setOrDelete(m, key, om[key]);
  }
  const xrMeta = isObject(xr.metadata) ? xr.metadata : {};
  const xrLabels = (isObject(xrMeta.labels) ? xrMeta.labels : {}) as Record<string, string>;
  const prefix = xrLabels["crossplane.io/composite"] || String(xrMeta.name ?? "");
  if (!m.name && !m.generateName) m.generateName = `${prefix}-`;
  m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [COMPOSITION_RESOURCE_NAME]: name };
  m.labels = { ...(isObject(m.labels) ? m.labels : {}), "crossplane.io/composite": prefix, ...claimLabels(xr) };
  if (xrMeta.namespace) m.namespace = xrMeta.namespace;
  addControllerReference(m, controllerReference(xr), name, problems);
  return o;
}

/** The claim's labels, only when the XR knows both its claim's name and namespace (labels, else spec.claimRef). */
function claimLabels(xr: JsonObject): Record<string, string> {
  const labels = ((xr.metadata as JsonObject | undefined)?.labels ?? {}) as Record<string, string>;
  const ref = ((xr.spec as JsonObject | undefined)?.claimRef ?? {}) as { name?: string; namespace?: string };
  const claimName = labels["crossplane.io/claim-name"] || ref.name;
  const claimNamespace = labels["crossplane.io/claim-namespace"] || ref.namespace;
  return claimName && claimNamespace ? { "crossplane.io/claim-name": claimName, "crossplane.io/claim-namespace": claimNamespace } : {};
}

/** meta.AddControllerReference: replace the same owner in place, refuse another controller, else append. */
function addControllerReference(m: JsonObject, owner: JsonObject, name: string, problems: NameProblem[]): void {
  const refs = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []).filter(isObject);
  const other = refs.find((ref) => ref.controller === true && ref.uid !== owner.uid);
  if (other) {
    problems.push({
      resourceName: name,
      message: `composed resource "${name}" is already controlled by ${String(other.kind)} ${String(other.name)} (UID ${String(other.uid)})`,
    });
    return;
  }
  const same = refs.findIndex((ref) => ref.uid === owner.uid);
  if (same >= 0) refs[same] = owner;
  else refs.push(owner);
  m.ownerReferences = refs;
}

export function resultDocuments(results: StepResult[]): JsonObject[] {
  return results.map((r) => ({ apiVersion: "render.crossplane.io/v1beta1", kind: "Result", message: r.message, severity: Severity[r.severity], step: r.step }));
}

export function contextDocument(context: JsonObject | undefined): JsonObject {
  return { apiVersion: "render.crossplane.io/v1beta1", kind: "Context", fields: context ?? {} };
}
