import type { Manifest } from "../../manifest/manifest.js";
import { isPlainObject } from "../../core/json.js";
import type { DefinedSchema } from "./crd.js";
import type { OpenAPISchema } from "./types.js";

/**
 * The schemas Crossplane generates from a CompositeResourceDefinition: one for the XR of each
 * version and, when the XRD offers a claim, one for the claim. Crossplane's own fields are added
 * the way it adds them to the CRDs it writes: under `spec` for v1 XRDs and `scope: LegacyCluster`,
 * under `spec.crossplane` for v2 XRDs.
 */
export function schemasFromXrd(xrd: Manifest): DefinedSchema[] {
  const spec = xrd.object.spec;
  if (!isPlainObject(spec) || typeof spec.group !== "string" || !isPlainObject(spec.names)) return [];
  const group = spec.group;
  const xrKind = spec.names.kind;
  if (typeof xrKind !== "string") return [];
  const claimKind = isPlainObject(spec.claimNames) && typeof spec.claimNames.kind === "string" ? spec.claimNames.kind : undefined;
  const legacy = xrd.apiVersion === "apiextensions.crossplane.io/v1" || spec.scope === "LegacyCluster";
  const out: DefinedSchema[] = [];
  (Array.isArray(spec.versions) ? spec.versions : []).forEach((v: unknown, i: number) => {
    if (!isPlainObject(v) || typeof v.name !== "string") return;
    const authored = (v.schema as { openAPIV3Schema?: OpenAPISchema } | undefined)?.openAPIV3Schema;
    const pointer = `/spec/versions/${i}/schema/openAPIV3Schema`;
    out.push({ gvk: { group, version: v.name, kind: xrKind }, schema: compositeSchema(authored, legacy), pointer });
    if (claimKind && legacy) out.push({ gvk: { group, version: v.name, kind: claimKind }, schema: claimSchema(authored), pointer });
  });
  return out;
}

export function isXrd(m: Manifest): boolean {
  return m.kind === "CompositeResourceDefinition" && (m.apiVersion === "apiextensions.crossplane.io/v1" || m.apiVersion === "apiextensions.crossplane.io/v2");
}

const str: OpenAPISchema = { type: "string" };
const nameRef = (): OpenAPISchema => ({ type: "object", required: ["name"], properties: { name: str } });
const labelSelector = (): OpenAPISchema => ({
  type: "object",
  required: ["matchLabels"],
  properties: { matchLabels: { type: "object", additionalProperties: str } },
});
const updatePolicy = (): OpenAPISchema => ({ type: "string", enum: ["Automatic", "Manual"], default: "Automatic" });
const typedRef = (required: string[], withName = true): OpenAPISchema => ({
  type: "object",
  required,
  properties: { apiVersion: str, kind: str, ...(withName ? { name: str } : {}), ...(required.includes("namespace") ? { namespace: str } : {}) },
});
const publishTo = (): OpenAPISchema => ({
  type: "object",
  required: ["name"],
  properties: {
    name: str,
    configRef: { type: "object", default: { name: "default" }, properties: { name: str } },
    metadata: {
      type: "object",
      properties: { labels: { type: "object", additionalProperties: str }, annotations: { type: "object", additionalProperties: str }, type: str },
    },
  },
});

function selectionProps(): Record<string, OpenAPISchema> {
  return {
    compositionRef: nameRef(),
    compositionSelector: labelSelector(),
    compositionRevisionRef: nameRef(),
    compositionRevisionSelector: labelSelector(),
    compositionUpdatePolicy: updatePolicy(),
  };
}

function conditions(): OpenAPISchema {
  return {
    type: "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
    items: {
      type: "object",
      required: ["lastTransitionTime", "reason", "status", "type"],
      properties: {
        lastTransitionTime: { type: "string", format: "date-time" },
        message: str,
        reason: str,
        status: str,
        type: str,
        observedGeneration: { type: "integer", format: "int64" },
      },
    },
  };
}

function compositeSchema(authored: OpenAPISchema | undefined, legacy: boolean): OpenAPISchema {
  const root = base(authored);
  const spec = root.properties!.spec;
  const status = root.properties!.status;
  const resourceRefs: OpenAPISchema = { type: "array", items: typedRef(["apiVersion", "kind"]) };
  if (legacy) {
    Object.assign(spec.properties!, selectionProps(), {
      claimRef: typedRef(["apiVersion", "kind", "namespace", "name"]),
      resourceRefs,
      publishConnectionDetailsTo: publishTo(),
      writeConnectionSecretToRef: { type: "object", required: ["name", "namespace"], properties: { name: str, namespace: str } },
    });
    Object.assign(status.properties!, {
      conditions: conditions(),
      connectionDetails: { type: "object", properties: { lastPublishedTime: { type: "string", format: "date-time" } } },
      claimConditionTypes: { type: "array", "x-kubernetes-list-type": "set", items: str },
    });
  } else {
    spec.properties!.crossplane = { type: "object", properties: { ...selectionProps(), resourceRefs } };
    Object.assign(status.properties!, { conditions: conditions(), crossplane: { type: "object", "x-kubernetes-preserve-unknown-fields": true } });
  }
  return root;
}

function claimSchema(authored: OpenAPISchema | undefined): OpenAPISchema {
  const root = base(authored);
  Object.assign(root.properties!.spec.properties!, selectionProps(), {
    compositeDeletePolicy: { type: "string", enum: ["Background", "Foreground"], default: "Background" },
    resourceRef: typedRef(["apiVersion", "kind", "name"]),
    publishConnectionDetailsTo: publishTo(),
    writeConnectionSecretToRef: { type: "object", required: ["name"], properties: { name: str } },
  });
  Object.assign(root.properties!.status.properties!, {
    conditions: conditions(),
    connectionDetails: { type: "object", properties: { lastPublishedTime: { type: "string", format: "date-time" } } },
  });
  return root;
}

/**
 * The authored schema with `spec` required and both `spec` and `status` present as objects. Only
 * the levels changed here are copied; below them the manifest's schema is shared, never changed.
 */
function base(authored: OpenAPISchema | undefined): OpenAPISchema {
  const root: OpenAPISchema = { ...(authored ?? {}) };
  root.type = "object";
  root.properties = { ...(root.properties ?? {}) };
  root.required = [...new Set([...(root.required ?? []), "spec"])];
  for (const key of ["spec", "status"]) {
    const existing = root.properties[key] ?? { type: "object" };
    root.properties[key] = { ...existing, type: "object", properties: { ...(existing.properties ?? {}) } };
  }
  return root;
}
