import { getString, getValue } from "../../../manifest/fieldpath.js";
import { goJsonMarshal } from "../gotypes.js";
import { wrapError } from "./errors.js";
import { applyCombineFromVariablesPatch, applyFromFieldPathPatch } from "./patches.js";
import { type JsonObject } from "../../../core/json.js";
import type { ConnectionDetail, WriteConnectionSecretToRef } from "./types.js";
import { fromFieldPathPolicy, patchType, validateConnectionDetail } from "./validate.js";

/**
 * XR connection details taken from a composed resource: fixed values, keys of its connection
 * secret, or its fields (strings as-is, anything else as JSON). Absent keys and paths are skipped.
 */
export function extractConnectionDetails(
  observed: JsonObject,
  secret: Record<string, Buffer>,
  details: ConnectionDetail[] | undefined,
): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const cd of details ?? []) {
    const invalid = validateConnectionDetail(cd);
    if (invalid) throw wrapError(invalid, "invalid");
    const name = cd.name!;
    if (cd.type === "FromValue") out[name] = Buffer.from(cd.value!, "utf8");
    else if (cd.type === "FromConnectionSecretKey") {
      const v = secret[cd.fromConnectionSecretKey!];
      if (v !== undefined) out[name] = v;
    } else if (cd.type === "FromFieldPath") {
      const v = fieldBytes(observed, cd.fromFieldPath!);
      if (v !== undefined) out[name] = v;
    }
  }
  return out;
}

function fieldBytes(o: JsonObject, path: string): Buffer | undefined {
  try {
    return Buffer.from(getString(o, path), "utf8");
  } catch {
    try {
      return Buffer.from(goJsonMarshal(getValue(o, path)), "utf8");
    } catch {
      return undefined;
    }
  }
}

/** Crossplane v2 XRs (those with `spec.crossplane`) have no native connection details. */
export function supportsConnectionDetails(xr: JsonObject): boolean {
  const spec = xr.spec as JsonObject | undefined;
  return !(spec && typeof spec === "object" && "crossplane" in spec);
}

export interface SecretReference {
  name: string;
  namespace: string;
}

/**
 * Where a v2 XR's connection secret goes: the XR's own `spec.writeConnectionSecretToRef`, else the
 * input's name/namespace, else `<xr>-connection`; then the input's patches (from the XR) apply.
 */
export function getConnectionSecretRef(xr: JsonObject, input: WriteConnectionSecretToRef | undefined): SecretReference {
  const ref = baseConnectionSecretRef(xr, input);
  if (!input?.patches?.length) return ref;
  const target: JsonObject = { apiVersion: "v1", kind: "SecretReference", name: ref.name, namespace: ref.namespace };
  try {
    for (const [i, p] of input.patches.entries()) applyConnectionSecretPatch(p, i, xr, target);
  } catch (err) {
    throw wrapError(err, "cannot apply connection secret patches");
  }
  return {
    name: typeof target.name === "string" ? target.name : ref.name,
    namespace: typeof target.namespace === "string" ? target.namespace : ref.namespace,
  };
}

function applyConnectionSecretPatch(p: NonNullable<WriteConnectionSecretToRef["patches"]>[number], i: number, xr: JsonObject, target: JsonObject) {
  const type = patchType(p);
  if (type !== "FromCompositeFieldPath" && type !== "CombineFromComposite") {
    throw new Error(`unsupported patch type ${type} at index ${i}`);
  }
  try {
    if (type === "FromCompositeFieldPath") applyFromFieldPathPatch(p, xr, target);
    else applyCombineFromVariablesPatch(p, xr, target);
  } catch (err) {
    if (type === "FromCompositeFieldPath" && fromFieldPathPolicy(p) === "Optional") return;
    throw wrapError(err, `cannot apply patch type ${type} at index ${i}`);
  }
}

function baseConnectionSecretRef(xr: JsonObject, input: WriteConnectionSecretToRef | undefined): SecretReference {
  const spec = (xr.spec ?? {}) as JsonObject;
  const xrRef = spec.writeConnectionSecretToRef as Partial<SecretReference> | undefined;
  if (xrRef && typeof xrRef === "object") return { name: xrRef.name ?? "", namespace: xrRef.namespace ?? "" };
  if (input && (input.name || input.namespace)) return { name: input.name ?? "", namespace: input.namespace ?? "" };
  const meta = (xr.metadata ?? {}) as { name?: string; namespace?: string };
  return { name: `${meta.name ?? ""}-connection`, namespace: meta.namespace ?? "" };
}
