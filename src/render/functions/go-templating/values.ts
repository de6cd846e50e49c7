import { decodeBase64 } from "../../../gotemplate/encoding.js";
import { getSegments, isNotFound } from "../../../manifest/fieldpath.js";

/**
 * fieldpath.Pave(o).GetValueInto(path, &target) for the targets function-go-templating decodes
 * into: a JSON round trip, so a value of the wrong shape fails as encoding/json words it.
 */

type Target = "map" | "conditions" | "requirements";

export type Into = { found: boolean; value?: unknown } | { error: string };

const jsonKind = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v;

class Mismatch extends Error {}

const mismatch = (v: unknown, goType: string) => new Mismatch(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`);
const fieldMismatch = (v: unknown, field: string, goType: string) =>
  new Mismatch(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${field} of type ${goType}`);

function checkString(v: unknown, field: string, goType = "string"): void {
  if (v !== undefined && v !== null && typeof v !== "string") throw fieldMismatch(v, field, goType);
}

function checkConditions(v: unknown): void {
  if (!Array.isArray(v)) throw mismatch(v, "[]main.TargetedCondition");
  for (const c of v) {
    if (c === null) continue;
    if (typeof c !== "object" || Array.isArray(c)) throw mismatch(c, "main.TargetedCondition");
    const o = c as Record<string, unknown>;
    checkString(o.type, "TargetedCondition.type", "v1.ConditionType");
    checkString(o.status, "TargetedCondition.status", "v1.ConditionStatus");
    checkString(o.reason, "TargetedCondition.reason", "v1.ConditionReason");
    checkString(o.message, "TargetedCondition.message");
    checkString(o.target, "TargetedCondition.target", "main.CompositionTarget");
    if (o.observedGeneration !== undefined && o.observedGeneration !== null && !Number.isInteger(o.observedGeneration)) {
      throw fieldMismatch(o.observedGeneration, "TargetedCondition.observedGeneration", "int64");
    }
  }
}

function checkRequirements(v: unknown): void {
  if (typeof v !== "object" || Array.isArray(v)) throw mismatch(v, "main.ExtraResourcesRequirements");
  for (const r of Object.values(v as object)) {
    if (r === null) continue;
    if (typeof r !== "object" || Array.isArray(r)) throw mismatch(r, "main.ExtraResourcesRequirement");
    const o = r as Record<string, unknown>;
    for (const k of ["apiVersion", "kind", "matchName", "namespace"]) checkString(o[k], `ExtraResourcesRequirement.${k}`);
    const labels = o.matchLabels;
    if (labels !== undefined && labels !== null) {
      if (typeof labels !== "object" || Array.isArray(labels)) throw fieldMismatch(labels, "ExtraResourcesRequirement.matchLabels", "map[string]string");
      for (const l of Object.values(labels as object)) checkString(l, "ExtraResourcesRequirement.matchLabels", "string");
    }
  }
}

export function valueInto(object: unknown, path: string, target: Target): Into {
  let v: unknown;
  try {
    v = getSegments(object, [{ field: path }]);
  } catch (err) {
    if (isNotFound(err)) return target === "map" && path === "status" ? { found: false } : { error: (err as Error).message };
    return { error: (err as Error).message };
  }
  try {
    if (v === null) return { found: true, value: undefined };
    if (target === "map" && (typeof v !== "object" || Array.isArray(v))) throw mismatch(v, "map[string]interface {}");
    if (target === "conditions") checkConditions(v);
    if (target === "requirements") checkRequirements(v);
  } catch (err) {
    if (err instanceof Mismatch) return { error: `cannot unmarshal value from JSON: ${err.message}` };
    throw err;
  }
  return { found: true, value: structuredClone(v) };
}

/** base64.StdEncoding.DecodeString's result, including the bytes decoded before an error. */
export function decodeBase64Prefix(s: string): Buffer {
  try {
    return decodeBase64(s);
  } catch {
    const valid = /^[A-Za-z0-9+/\r\n]*/.exec(s)![0].replace(/[\r\n]/g, "");
    return Buffer.from(valid.slice(0, valid.length - (valid.length % 4)), "base64");
  }
}
