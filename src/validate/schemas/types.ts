import { groupOf, versionOf } from "../../manifest/manifest.js";

/** A Kubernetes structural schema (the OpenAPI v3 subset CRDs use), as found in CRDs and XRDs. */
export interface OpenAPISchema {
  type?: string | string[];
  properties?: Record<string, OpenAPISchema>;
  additionalProperties?: OpenAPISchema | boolean;
  items?: OpenAPISchema | OpenAPISchema[];
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  format?: string;
  pattern?: string;
  description?: string;
  allOf?: OpenAPISchema[];
  anyOf?: OpenAPISchema[];
  oneOf?: OpenAPISchema[];
  not?: OpenAPISchema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  [key: string]: unknown;
}

export type SchemaSource = "crd" | "xrd" | "builtin" | "kubernetes" | "location";

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** The group, version and kind of an apiVersion and kind (`apps/v1`, `Deployment`). */
export function gvkOf(apiVersion: string, kind: string): Gvk {
  return { group: groupOf(apiVersion), version: versionOf(apiVersion), kind };
}

export function gvkKey({ group, version, kind }: Gvk): string {
  return `${group}/${version}/${kind}`;
}

export function gvkLabel({ group, version, kind }: Gvk): string {
  return `${group ? group + "/" : ""}${version} ${kind}`;
}

/** The schema of a declared property; never a name Object.prototype has (`constructor`, `toString`). */
export function propertyOf<T>(properties: Record<string, T> | undefined, name: string): T | undefined {
  return properties && Object.hasOwn(properties, name) ? properties[name] : undefined;
}
