import { FORMATS } from "./formats.js";
import { re2Error } from "../go/re2.js";
import type { OpenAPISchema } from "./schemas/types.js";

export type JsonSchema = Record<string, unknown>;

export interface ConvertOptions {
  /**
   * Structural (CRD) semantics: an object's fields are exactly its `properties` unless
   * `x-kubernetes-preserve-unknown-fields` says otherwise, so anything else is an unknown field.
   * Off for JSON schemas from schema locations, which say `additionalProperties` themselves.
   */
  structural: boolean;
}

/** Problems found in a schema itself (an invalid RE2 pattern, say); the rest of it still applies. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/**
 * Turns a Kubernetes structural schema into a JSON schema ajv validates the way the API server
 * does: `nullable`, `x-kubernetes-int-or-string`, `x-kubernetes-embedded-resource`, set-typed
 * lists, the root `metadata` as an ObjectMeta, OpenAPI's boolean exclusive bounds, and unknown
 * fields closed off. Defaults are applied separately (see structural.ts), before validation.
 */
export function toJsonSchema(schema: OpenAPISchema, options: ConvertOptions, problems: SchemaProblem[] = []): JsonSchema {
  const root = convert(schema, options, problems, "", true);
  if (options.structural) {
    const props = (root.properties ??= {}) as Record<string, JsonSchema>;
    props.metadata = OBJECT_META;
    props.apiVersion ??= { type: "string" };
    props.kind ??= { type: "string" };
  }
  return root;
}

function convert(s: OpenAPISchema, o: ConvertOptions, problems: SchemaProblem[], path: string, shapes: boolean): JsonSchema {
  const out: JsonSchema = {};
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  const embedded = s["x-kubernetes-embedded-resource"] === true;

  if (s["x-kubernetes-int-or-string"]) out.type = s.nullable ? ["integer", "string", "null"] : ["integer", "string"];
  else if (s.type !== undefined) out.type = s.nullable && typeof s.type === "string" ? [s.type, "null"] : s.type;

  if (s.enum) out.enum = s.nullable && !s.enum.includes(null) ? [...s.enum, null] : s.enum;
  copyKeys(s, out, [
    "required",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "uniqueItems",
    "const",
    "$ref",
  ]);
  if (s.exclusiveMinimum === true && typeof s.minimum === "number") {
    out.exclusiveMinimum = s.minimum;
    delete out.minimum;
  } else if (typeof s.exclusiveMinimum === "number") out.exclusiveMinimum = s.exclusiveMinimum;
  if (s.exclusiveMaximum === true && typeof s.maximum === "number") {
    out.exclusiveMaximum = s.maximum;
    delete out.maximum;
  } else if (typeof s.exclusiveMaximum === "number") out.exclusiveMaximum = s.exclusiveMaximum;

  if (typeof s.format === "string" && FORMATS[s.format]) out.format = s.format;
  if (typeof s.pattern === "string") {
    const err = re2Error(s.pattern);
    if (err) problems.push({ path, message: `pattern ${JSON.stringify(s.pattern)} is not valid RE2 and was not applied: ${err}` });
    else out.pattern = s.pattern;
  }
  if (s["x-kubernetes-list-type"] === "set") out.uniqueItems = true;

  if (s.properties) {
    const props: Record<string, JsonSchema> = {};
    for (const [key, child] of Object.entries(s.properties)) props[key] = convert(child, o, problems, `${path}.${key}`, shapes);
    out.properties = props;
  }
  if (embedded && shapes) {
    const props = (out.properties ??= {}) as Record<string, JsonSchema>;
    props.apiVersion ??= { type: "string", minLength: 1 };
    props.kind ??= { type: "string", minLength: 1 };
    props.metadata = OBJECT_META;
    out.required = [...new Set([...(s.required ?? []), "apiVersion", "kind"])];
  }
  if (s.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof s.additionalProperties === "boolean" ? s.additionalProperties : convert(s.additionalProperties, o, problems, `${path}.*`, shapes);
  } else if (o.structural && shapes && !preserve && isObjectSchema(s)) {
    out.additionalProperties = false;
  }
  if (s.items !== undefined) {
    out.items = Array.isArray(s.items)
      ? s.items.map((it, i) => convert(it, o, problems, `${path}[${i}]`, shapes))
      : convert(s.items, o, problems, `${path}[*]`, shapes);
  }
  // Junctors only add value checks in structural schemas; they never declare fields.
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const list = s[key];
    if (list) out[key] = list.map((it, i) => convert(it, o, problems, `${path}.${key}[${i}]`, false));
  }
  if (s.not) out.not = convert(s.not, o, problems, `${path}.not`, false);
  for (const key of ["definitions", "$defs"] as const) {
    const defs = s[key] as Record<string, OpenAPISchema> | undefined;
    if (defs && typeof defs === "object") {
      out[key] = Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, convert(v, o, problems, `${path}.${key}.${k}`, shapes)]));
    }
  }
  return out;
}

function isObjectSchema(s: OpenAPISchema): boolean {
  return s.type === "object" || (s.type === undefined && s.properties !== undefined);
}

function copyKeys(from: OpenAPISchema, to: JsonSchema, keys: string[]): void {
  for (const key of keys) if (from[key] !== undefined) to[key] = from[key];
}

const STRING_MAP = { type: "object", additionalProperties: { type: "string" } };

/** ObjectMeta as the API server accepts it on create (read-only fields allowed, ignored). */
export const OBJECT_META: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    generateName: { type: "string" },
    namespace: { type: "string" },
    labels: STRING_MAP,
    annotations: STRING_MAP,
    finalizers: { type: "array", items: { type: "string" } },
    ownerReferences: {
      type: "array",
      items: {
        type: "object",
        required: ["apiVersion", "kind", "name", "uid"],
        additionalProperties: false,
        properties: {
          apiVersion: { type: "string" },
          kind: { type: "string" },
          name: { type: "string" },
          uid: { type: "string" },
          controller: { type: "boolean" },
          blockOwnerDeletion: { type: "boolean" },
        },
      },
    },
    uid: { type: "string" },
    resourceVersion: { type: "string" },
    generation: { type: "integer" },
    creationTimestamp: { type: ["string", "null"] },
    deletionTimestamp: { type: ["string", "null"] },
    deletionGracePeriodSeconds: { type: "integer" },
    selfLink: { type: "string" },
    managedFields: { type: "array" },
  },
};
