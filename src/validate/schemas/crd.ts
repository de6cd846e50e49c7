import type { Manifest } from "../../manifest/manifest.js";
import { isPlainObject } from "../../core/json.js";
import type { Gvk, OpenAPISchema } from "./types.js";

export interface DefinedSchema {
  gvk: Gvk;
  schema: OpenAPISchema;
  /** Pointer to the schema inside the defining manifest, for findings about the schema itself. */
  pointer: string;
}

const ANYTHING: OpenAPISchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

/** The schemas a CustomResourceDefinition (apiextensions.k8s.io v1 or v1beta1) defines, one per version. */
export function schemasFromCrd(crd: Manifest): DefinedSchema[] {
  const spec = crd.object.spec;
  if (!isPlainObject(spec) || typeof spec.group !== "string" || !isPlainObject(spec.names)) return [];
  const kind = spec.names.kind;
  if (typeof kind !== "string") return [];
  const out: DefinedSchema[] = [];
  const shared = (spec.validation as { openAPIV3Schema?: OpenAPISchema } | undefined)?.openAPIV3Schema;
  const versions = Array.isArray(spec.versions) ? spec.versions : typeof spec.version === "string" ? [{ name: spec.version }] : [];
  versions.forEach((v: unknown, i: number) => {
    if (!isPlainObject(v) || typeof v.name !== "string") return;
    const own = (v.schema as { openAPIV3Schema?: OpenAPISchema } | undefined)?.openAPIV3Schema;
    const schema = own ?? shared ?? ANYTHING;
    const pointer = own ? `/spec/versions/${i}/schema/openAPIV3Schema` : shared ? "/spec/validation/openAPIV3Schema" : "/spec";
    out.push({ gvk: { group: spec.group as string, version: v.name, kind }, schema, pointer });
  });
  return out;
}

export function isCrd(m: Manifest): boolean {
  return m.kind === "CustomResourceDefinition" && (m.apiVersion === "apiextensions.k8s.io/v1" || m.apiVersion === "apiextensions.k8s.io/v1beta1");
}
