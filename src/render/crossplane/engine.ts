import { createHash } from "node:crypto";
import { Ready, Severity, Status, type Resource, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { type PipelineOutput, type StepResult } from "./pipeline.js";
import { COMPOSITION_RESOURCE_NAME } from "../../manifest/roles.js";
import { RENDER_TIME, unreadyMessage, type OutputOptions } from "./output.js";
import type { RenderBehaviour } from "../../core/crossplane-releases.js";

/**
 * What `crossplane render` prints since v2.3, when it runs the real XR reconciler once in the
 * engine (crossplane/crossplane internal/render, the composite controller's FunctionComposer and
 * crossplane/cli cmd/crossplane/render): composed resources named by ChildName from the XR's
 * deterministic UID, the XR as the reconciler's last status update left it (its resourceRefs and
 * status only), conditions Responsive, the functions', Synced and Ready, and the reconciler's
 * events as Results. docs/render.md lists what differs between releases.
 */

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const metaOf = (o: JsonObject): JsonObject => (isObject(o.metadata) ? o.metadata : (o.metadata = {}));

/** Condition types the reconciler owns: a function's condition of these types is not set. */
const SYSTEM_CONDITIONS = new Set(["Ready", "Synced", "Healthy", "UpToDate", "Responsive"]);
const MAX_NAME = 63;
const HASH_LENGTH = 12;
const RFC1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RBAC_KINDS = new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]);

/** uuid.NewSHA1(uuid.Nil, data): an RFC 4122 version 5 UUID in the all-zero namespace. */
function uuidV5(data: string): string {
  const b = createHash("sha1").update(Buffer.alloc(16)).update(data, "utf8").digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = b.toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The XR's UID in the engine: derived from its GroupVersionKind, namespace and name (a kept input uid from engine v2.3.4). */
export function engineXrUid(xr: JsonObject, behaviour: RenderBehaviour): string {
  const meta = isObject(xr.metadata) ? xr.metadata : {};
  if (behaviour.keepInputUid && typeof meta.uid === "string" && meta.uid !== "") return meta.uid;
  const apiVersion = String(xr.apiVersion ?? "");
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return uuidV5(`${group}/${version}, Kind=${String(xr.kind ?? "")}\u0000${String(meta.namespace ?? "")}\u0000${String(meta.name ?? "")}`);
}

/**
 * names.ChildName: the parent's name (a generateName), a dash, and the first 12 hex characters of
 * SHA-256 over the parent's UID and the child's name; cut to 63 characters by shortening the parent.
 */
export function childName(parentName: string, parentUid: string, child: string): string {
  const suffix = createHash("sha256")
    .update(parentUid + child, "utf8")
    .digest("hex")
    .slice(0, HASH_LENGTH);
  const parent = parentName !== "" && !parentName.endsWith("-") ? `${parentName}-` : parentName;
  const full = parent + suffix;
  if (Buffer.byteLength(full) <= MAX_NAME) return full;
  const keep = MAX_NAME - HASH_LENGTH;
  const head = Buffer.from(parent).subarray(0, keep).toString();
  return head.endsWith("-")
    ? head + suffix
    : `${Buffer.from(parent)
        .subarray(0, keep - 1)
        .toString()}-${suffix}`;
}

/** names.ValidateName: a DNS subdomain (RBAC kinds may hold colons). */
function validName(name: string, apiVersion: string, kind: string): boolean {
  const checked = apiVersion.startsWith("rbac.authorization.k8s.io/") && RBAC_KINDS.has(kind) ? name.replaceAll(":", "") : name;
  return checked.length > 0 && checked.length <= 253 && RFC1123_SUBDOMAIN.test(checked);
}

/** The engine's render failed: nothing is printed, as the CLI prints nothing on an error. */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly rule = "render/engine",
    readonly resourceName?: string,
  ) {
    super(message);
  }
}

export interface EngineRender {
  xr: JsonObject;
  composed: JsonObject[];
  /** The reconciler's events, as `-r` prints them. */
  events: JsonObject[];
}

/** The composite label's value: the XR's `crossplane.io/composite` label, else its name (APINamingConfigurator). */
function compositeLabel(xr: JsonObject): string {
  const meta = isObject(xr.metadata) ? xr.metadata : {};
  const labels = isObject(meta.labels) ? meta.labels : {};
  const label = labels["crossplane.io/composite"];
  return typeof label === "string" && label !== "" ? label : String(meta.name ?? "");
}

/** Whether the XR's refs live at spec.resourceRefs: an XRD of apiextensions v1 (unless scoped otherwise) or scope LegacyCluster. */
export function legacySchema(xrd: JsonObject | undefined, behaviour: RenderBehaviour): boolean {
  if (!xrd || !behaviour.legacySchemaFromXrd) return false;
  const scope = (xrd.spec as JsonObject | undefined)?.scope;
  if (xrd.apiVersion === "apiextensions.crossplane.io/v1") return scope === undefined || scope === "" || scope === "LegacyCluster";
  return scope === "LegacyCluster";
}

/**
 * The XR as the functions see it in the engine: named by the reconciler's configurators (its
 * composite label, the composition it selected, its UID and the fake store's resourceVersion).
 */
export function observedXr(xr: JsonObject, compositionName: string, legacy: boolean, behaviour: RenderBehaviour): JsonObject {
  const out = cloneJson(xr);
  const meta = metaOf(out);
  meta.uid = engineXrUid(xr, behaviour);
  meta.resourceVersion = "999";
  meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), "crossplane.io/composite": compositeLabel(xr) };
  const spec = isObject(out.spec) ? out.spec : (out.spec = {});
  const holder = legacy ? spec : isObject(spec.crossplane) ? spec.crossplane : (spec.crossplane = {});
  if (!isObject(holder.compositionRef)) holder.compositionRef = { name: compositionName };
  return out;
}

interface ComposeInput {
  /** The XR after its XRD's defaults, as loaded. */
  xr: JsonObject;
  out: PipelineOutput;
  observed: JsonObject[];
  compositionName: string;
  behaviour: RenderBehaviour;
  options: OutputOptions;
  legacy: boolean;
}

/** The reconciler's output for a pipeline that ran to the end. Throws EngineError where the engine fails. */
export function engineRender(input: ComposeInput): EngineRender {
  const { xr, out, behaviour } = input;
  const uid = engineXrUid(xr, behaviour);
  const xrMeta = isObject(xr.metadata) ? xr.metadata : {};
  const namespace = typeof xrMeta.namespace === "string" ? xrMeta.namespace : "";
  const observed = observedByName(input.observed, uid, namespace, behaviour);
  const events: JsonObject[] = [];
  if (!selected(xr, input.compositionName, input.legacy))
    events.push(event("Normal", "SelectComposition", `Successfully selected composition: ${input.compositionName}`));
  for (const r of out.results) events.push(resultEvent(r));

  const keys = Object.keys(out.desired.resources).sort();
  const composed: JsonObject[] = [];
  for (const key of keys) {
    const o = composedResource(xr, uid, key, out.desired.resources[key]!, observed.get(key), events);
    const meta = metaOf(o);
    const name = typeof meta.name === "string" ? meta.name : "";
    if (!validName(name, String(o.apiVersion ?? ""), String(o.kind ?? ""))) {
      throw new EngineError(
        `cannot apply composed resource "${key}" because it has an invalid name "${name}". Must be a valid RFC 1123 subdomain name.`,
        "render/invalid-name",
        key,
      );
    }
    normaliseConditions(o);
    composed.push(o);
  }
  for (const key of keys) {
    if (out.desired.resources[key]!.ready !== Ready.READY_TRUE) events.push(event("Normal", "ComposeResources", `Composed resource "${key}" is not yet ready`));
  }
  const printed = compositeOutput(input, composed);
  return { xr: printed, composed, events };
}

/**
 * The observed resources the reconciler finds through the XR's refs, by composition resource
 * name: one without the annotation fails the render; one another controller owns (or, for a
 * namespaced XR, in another namespace) fails it from v2.3.4, and is passed over before.
 */
export function engineObserved(xr: JsonObject, observed: JsonObject[], behaviour: RenderBehaviour): JsonObject[] {
  const meta = isObject(xr.metadata) ? xr.metadata : {};
  const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
  return [...observedByName(observed, engineXrUid(xr, behaviour), namespace, behaviour).values()];
}

function observedByName(observed: JsonObject[], uid: string, namespace: string, behaviour: RenderBehaviour): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const invalid: string[] = [];
  for (const o of observed) {
    const meta = isObject(o.metadata) ? o.metadata : {};
    const name = String(meta.name ?? "");
    const key = (isObject(meta.annotations) ? meta.annotations : {})[COMPOSITION_RESOURCE_NAME];
    if (typeof key !== "string" || key === "") {
      throw new EngineError(`cannot get existing composed resources: encountered composed resource without required "${COMPOSITION_RESOURCE_NAME}" annotation`);
    }
    const controller = (Array.isArray(meta.ownerReferences) ? meta.ownerReferences : []).find((r) => isObject(r) && r.controller === true) as
      | JsonObject
      | undefined;
    const foreign = controller !== undefined && controller.uid !== uid;
    const elsewhere = namespace !== "" && String(meta.namespace ?? "") !== namespace;
    if (behaviour.validatesObserved) {
      if (foreign) invalid.push(`observed resource ${name} has a controller ref but is not controlled by the XR`);
      if (elsewhere) invalid.push(`observed resource ${name} is not in the same namespace as the XR`);
    }
    if (!foreign) out.set(key, o);
  }
  if (invalid.length) throw new EngineError(`invalid observed resources: ${invalid.join("\n")}`);
  return out;
}

/** Whether the XR already names this composition (the reconciler then records no SelectComposition event). */
function selected(xr: JsonObject, compositionName: string, legacy: boolean): boolean {
  const spec = isObject(xr.spec) ? xr.spec : {};
  const holder = legacy ? spec : isObject(spec.crossplane) ? spec.crossplane : {};
  const ref = holder.compositionRef;
  return isObject(ref) && Object.keys(ref).length === 1 && ref.name === compositionName;
}

function event(severity: "Normal" | "Warning", reason: string, message: string): JsonObject {
  return { apiVersion: "render.crossplane.io/v1beta1", kind: "Result", message, reason, severity };
}

/** A function result as the reconciler records it: Normal or Warning, prefixed with its step. */
function resultEvent(r: StepResult): JsonObject {
  const reason = r.reason || "ComposeResources";
  if (r.severity === Severity.SEVERITY_NORMAL) return event("Normal", reason, `Pipeline step "${r.step}": ${r.message}`);
  if (r.severity === Severity.SEVERITY_WARNING) return event("Warning", reason, `Pipeline step "${r.step}": ${r.message}`);
  return event("Warning", reason, `Pipeline step "${r.step}" returned a result of unknown severity (assuming warning): ${r.message}`);
}

function setOrDelete(m: JsonObject, key: string, value: unknown): void {
  if (typeof value === "string" && value !== "") m[key] = value;
  else delete m[key];
}

/** A desired resource as the engine applies it (RenderComposedResourceMetadata, then GenerateName). */
function composedResource(xr: JsonObject, uid: string, key: string, r: Resource, observed: JsonObject | undefined, events: JsonObject[]): JsonObject {
  const o = cloneJson((r.resource ?? {}) as JsonObject);
  const m = metaOf(o);
  if (observed) {
    const om = isObject(observed.metadata) ? observed.metadata : {};
    for (const field of ["namespace", "name", "generateName"]) setOrDelete(m, field, om[field]);
  }
  const xrMeta = isObject(xr.metadata) ? xr.metadata : {};
  const label = compositeLabel(xr);
  if (!m.name && !m.generateName) m.generateName = `${label}-`;
  const xrNamespace = typeof xrMeta.namespace === "string" ? xrMeta.namespace : "";
  if (xrNamespace) {
    if (typeof m.namespace === "string" && m.namespace !== "" && m.namespace !== xrNamespace) {
      events.push(
        event(
          "Warning",
          "NamespaceOverridden",
          `cannot create composed resource "${key}" in namespace "${m.namespace}", using XR namespace "${xrNamespace}" instead`,
        ),
      );
    }
    m.namespace = xrNamespace;
  }
  m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [COMPOSITION_RESOURCE_NAME]: key };
  const xrLabels = (isObject(xrMeta.labels) ? xrMeta.labels : {}) as Record<string, unknown>;
  const claimName = xrLabels["crossplane.io/claim-name"];
  const claimNamespace = xrLabels["crossplane.io/claim-namespace"];
  const claim =
    typeof claimName === "string" && claimName && typeof claimNamespace === "string" && claimNamespace
      ? { "crossplane.io/claim-name": claimName, "crossplane.io/claim-namespace": claimNamespace }
      : {};
  m.labels = { ...(isObject(m.labels) ? m.labels : {}), "crossplane.io/composite": label, ...claim };
  addControllerReference(m, { apiVersion: xr.apiVersion, blockOwnerDeletion: true, controller: true, kind: xr.kind, name: xrMeta.name, uid }, key);
  if (!m.name && typeof m.generateName === "string" && m.generateName !== "") m.name = childName(m.generateName, uid, key);
  return o;
}

/** meta.AddControllerReference: the same owner replaced in place, another controller refused, else appended. */
function addControllerReference(m: JsonObject, owner: JsonObject, key: string): void {
  const refs = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []).filter(isObject);
  const other = refs.find((ref) => ref.controller === true && ref.uid !== owner.uid);
  if (other) {
    throw new EngineError(
      `cannot render metadata for composed resource "${key}": cannot set controller reference: ${String(m.name ?? "")} is already controlled by ${String(other.kind)} ${String(other.name)} (UID ${String(other.uid)})`,
      "render/invalid-owner",
      key,
    );
  }
  const same = refs.findIndex((ref) => ref.uid === owner.uid);
  if (same >= 0) refs[same] = owner;
  else refs.push(owner);
  m.ownerReferences = refs;
}

/** A condition as crossplane-runtime's Condition serialises it. */
function condition(type: unknown, status: unknown, reason: unknown, message?: unknown, observedGeneration?: unknown): JsonObject {
  const out: JsonObject = { lastTransitionTime: RENDER_TIME, reason: reason ?? "", status, type };
  if (message) out.message = message;
  if (observedGeneration) out.observedGeneration = observedGeneration;
  return out;
}

/** SetConditions: a type already there is replaced in place unless equal (type, status, reason, message; generations when both set). */
function setCondition(conditions: JsonObject[], c: JsonObject): void {
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) {
    conditions.push(c);
    return;
  }
  const have = conditions[i]!;
  const same =
    ["status", "reason", "message"].every((k) => (have[k] ?? "") === (c[k] ?? "")) &&
    (!have.observedGeneration || !c.observedGeneration || have.observedGeneration === c.observedGeneration);
  if (!same) conditions[i] = c;
}

const STATUS_WORDS: Partial<Record<Status, string>> = {
  [Status.STATUS_CONDITION_TRUE]: "True",
  [Status.STATUS_CONDITION_FALSE]: "False",
};

function functionCondition(c: RunFunctionResponse["conditions"][number]): JsonObject {
  return condition(c.type, STATUS_WORDS[c.status] ?? "Unknown", c.reason, c.message);
}

function readyCondition(out: PipelineOutput): JsonObject {
  const ready = out.desired.composite?.ready;
  if (ready === Ready.READY_TRUE) return condition("Ready", "True", "Available");
  if (ready === Ready.READY_FALSE) return condition("Ready", "False", "Creating");
  const unready = Object.entries(out.desired.resources)
    .filter(([, r]) => r.ready !== Ready.READY_TRUE)
    .map(([name]) => name);
  if (unready.length) return condition("Ready", "False", "Creating", `Unready resources: ${unreadyMessage(unready)}`);
  return condition("Ready", "True", "Available");
}

/** The input XR's conditions, read as the CLI decodes them (unknown fields dropped, times fixed). */
function inputConditions(xr: JsonObject): JsonObject[] {
  const status = isObject(xr.status) ? xr.status : {};
  return (Array.isArray(status.conditions) ? status.conditions : [])
    .filter(isObject)
    .map((c) => condition(c.type, c.status, c.reason, c.message, c.observedGeneration));
}

function compositeOutput(input: ComposeInput, composed: JsonObject[]): JsonObject {
  const { xr, out, legacy } = input;
  const xrMeta = isObject(xr.metadata) ? xr.metadata : {};
  const namespaced = typeof xrMeta.namespace === "string" && xrMeta.namespace !== "";
  const refs = composed
    .map((o) => {
      const m = isObject(o.metadata) ? o.metadata : {};
      const ref: JsonObject = {};
      for (const [k, v] of [
        ["apiVersion", o.apiVersion],
        ["kind", o.kind],
        ["name", m.name],
        ["namespace", namespaced ? "" : m.namespace],
        ["uid", m.uid],
      ] as const) {
        if (typeof v === "string" && v !== "") ref[k] = v;
      }
      return ref;
    })
    .filter((ref) => Object.keys(ref).length > 0);
  const sortKey = (r: JsonObject) => `${r.apiVersion ?? ""}${r.kind ?? ""}${r.name ?? ""}${input.behaviour.refsByNamespace ? (r.namespace ?? "") : ""}`;
  refs.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));

  const desiredStatus = ((out.desired.composite?.resource as JsonObject | undefined)?.status ?? {}) as JsonObject;
  const status: JsonObject = isObject(desiredStatus) ? cloneJson(desiredStatus) : {};
  const conditions = inputConditions(xr);
  setCondition(conditions, condition("Responsive", "True", "WatchCircuitClosed", undefined, xrMeta.generation));
  for (const c of out.conditions) if (!SYSTEM_CONDITIONS.has(c.type)) setCondition(conditions, functionCondition(c));
  setCondition(conditions, condition("Synced", "True", "ReconcileSuccess"));
  setCondition(conditions, readyCondition(out));
  status.conditions = conditions;

  const printed: JsonObject = {
    apiVersion: xr.apiVersion,
    kind: xr.kind,
    metadata: { name: xrMeta.name, ...(namespaced ? { namespace: xrMeta.namespace } : {}) },
    spec: legacy ? { resourceRefs: refs } : { crossplane: { resourceRefs: refs } },
    status,
  };
  if (!input.options.includeFullXr) return printed;
  const full = mergeOverride(cloneJson(xr), printed);
  normaliseConditions(full);
  return full;
}

/** mergo.Merge with WithOverride on JSON maps: maps merge key by key, any other value of `src` replaces. */
function mergeOverride(dst: JsonObject, src: JsonObject): JsonObject {
  for (const [k, v] of Object.entries(src)) {
    if (isObject(v) && isObject(dst[k])) mergeOverride(dst[k] as JsonObject, v);
    else dst[k] = cloneJson(v as JsonObject);
  }
  return dst;
}

/**
 * The CLI's ReplaceConditionTimestamps: an object's status conditions, decoded as crossplane's
 * ConditionedStatus (unknown fields dropped), get the fixed time; a status without conditions gets
 * `conditions: null`; a status that does not decode is left as it is.
 */
export function normaliseConditions(o: JsonObject): void {
  if (!isObject(o.status)) return;
  const list = o.status.conditions;
  if (list === undefined || list === null) {
    o.status.conditions = null;
    return;
  }
  if (!Array.isArray(list) || !list.every((c) => isObject(c) && decodes(c))) return;
  o.status.conditions = list.map((c) => {
    const x = c as JsonObject;
    return condition(x.type, x.status, x.reason, x.message, x.observedGeneration);
  });
}

function decodes(c: JsonObject): boolean {
  const strings = ["type", "status", "reason", "message", "lastTransitionTime"].every((k) => c[k] === undefined || c[k] === null || typeof c[k] === "string");
  const time = c.lastTransitionTime;
  const timeOk = time === undefined || time === null || (typeof time === "string" && !Number.isNaN(Date.parse(time)));
  const generation = c.observedGeneration === undefined || c.observedGeneration === null || Number.isInteger(c.observedGeneration);
  return strings && timeOk && generation;
}

/** The reconciler's events and, with -c, the Context (only when a function returned one). */
export function engineTrailer(events: JsonObject[], context: JsonObject | undefined, options: OutputOptions): JsonObject[] {
  const out: JsonObject[] = [];
  if (options.includeFunctionResults) out.push(...events);
  if (options.includeContext && context) out.push({ apiVersion: "render.crossplane.io/v1beta1", kind: "Context", fields: context });
  return out;
}

/** A paused or deleting XR: the reconciler stops before composing; what it prints then. */
export function shortCircuit(xr: JsonObject, behaviour: RenderBehaviour): EngineRender | undefined {
  const meta = isObject(xr.metadata) ? xr.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  const paused = annotations["crossplane.io/paused"] === "true";
  const deleting = typeof meta.deletionTimestamp === "string" && meta.deletionTimestamp !== "";
  if (!paused && !deleting) return undefined;
  const stored = cloneJson(xr);
  const m = metaOf(stored);
  m.uid = engineXrUid(xr, behaviour);
  m.resourceVersion = "999";
  const status = isObject(stored.status) ? stored.status : (stored.status = {});
  const conditions = inputConditions(xr);
  setCondition(conditions, condition("Responsive", "True", "WatchCircuitClosed", undefined, meta.generation));
  if (paused) {
    setCondition(conditions, condition("Synced", "False", "ReconcilePaused", "Reconciliation (including deletion) is paused via the pause annotation"));
  } else {
    setCondition(conditions, condition("Ready", "False", "Deleting"));
    setCondition(conditions, condition("Synced", "True", "ReconcileSuccess"));
  }
  status.conditions = conditions;
  const events = paused ? [event("Normal", "ReconciliationPaused", "Reconciliation is paused via the pause annotation")] : [];
  return { xr: stored, composed: [], events };
}
