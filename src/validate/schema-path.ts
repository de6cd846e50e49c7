import { closest } from "./messages.js";
import { FieldPathError, parseFieldPath, segmentsToString, type Segment } from "../manifest/fieldpath.js";
import { propertyOf, type OpenAPISchema } from "./schemas/types.js";

/**
 * Whether a Crossplane field path (`spec.parameters.tags[0]`, `metadata.labels[a/b]`) can exist
 * in an object of a schema. Only a definite "no" is reported: wherever the schema leaves room
 * (preserved unknown fields, free-form objects, untyped nodes), the answer is "unknown".
 */
export type SchemaPathResult =
  | { status: "found"; schema: OpenAPISchema }
  | { status: "unknown" }
  | { status: "missing"; message: string }
  | { status: "invalid"; message: string };

const str: OpenAPISchema = { type: "string" };
const stringMap: OpenAPISchema = { type: "object", additionalProperties: str };

/** ObjectMeta, for schemas that leave the root `metadata` undescribed (as CRDs do). */
const OBJECT_META: OpenAPISchema = {
  type: "object",
  properties: {
    name: str,
    generateName: str,
    namespace: str,
    uid: str,
    resourceVersion: str,
    generation: { type: "integer" },
    creationTimestamp: str,
    deletionTimestamp: str,
    labels: stringMap,
    annotations: stringMap,
    finalizers: { type: "array", items: str },
    ownerReferences: { type: "array", items: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    managedFields: { type: "array", items: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
  },
};

export function schemaAtPath(root: OpenAPISchema, path: string): SchemaPathResult {
  let segments: Segment[];
  try {
    segments = parseFieldPath(path);
  } catch (err) {
    if (err instanceof FieldPathError) return { status: "invalid", message: `invalid field path "${path}": ${err.message}` };
    throw err;
  }
  let schema = root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const next = i === 0 ? rootChild(schema, segment) : child(schema, segment);
    if (next === "unknown") return { status: "unknown" };
    if (next === undefined) {
      const at = segmentsToString(segments.slice(0, i)) || "(root)";
      const what = "index" in segment ? `list index [${segment.index}]` : `field "${segment.field}"`;
      // A misspelt field: the declared one it is closest to (i === 0 reaches metadata, apiVersion and kind too).
      const declared = "field" in segment ? Object.keys(schema.properties ?? {}).concat(i === 0 ? ["metadata", "apiVersion", "kind"] : []) : [];
      const guess = "field" in segment ? closest(segment.field, declared) : undefined;
      const hint = guess ? `; did you mean "${segmentsToString([...segments.slice(0, i), { field: guess }])}"?` : "";
      return { status: "missing", message: `the schema has no ${what} at ${at}${hint}` };
    }
    schema = next;
  }
  return { status: "found", schema };
}

function rootChild(schema: OpenAPISchema, segment: Segment): OpenAPISchema | "unknown" | undefined {
  if ("field" in segment && segment.field === "metadata") {
    const declared = schema.properties?.metadata;
    return declared?.properties ? declared : OBJECT_META;
  }
  if ("field" in segment && (segment.field === "apiVersion" || segment.field === "kind")) return str;
  return child(schema, segment);
}

/** The schema of one step down, `undefined` when it cannot exist, "unknown" when anything goes. */
function child(schema: OpenAPISchema, segment: Segment): OpenAPISchema | "unknown" | undefined {
  const branches = [schema, ...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (branches.length > 1) {
    const found = branches.slice(1).map((b) => child(b, segment));
    const own = child({ ...schema, allOf: undefined, anyOf: undefined, oneOf: undefined }, segment);
    const all = [own, ...found];
    if (all.includes("unknown")) return "unknown";
    return all.find((s) => s !== undefined);
  }
  if (schema["x-kubernetes-preserve-unknown-fields"] === true && !propertyOf(schema.properties, fieldName(segment))) return "unknown";
  if (schema["x-kubernetes-int-or-string"]) return undefined;
  const type = typeof schema.type === "string" ? schema.type : undefined;
  if (schema.type === undefined && !schema.properties && !schema.items && schema.additionalProperties === undefined) return "unknown";
  if ("index" in segment) return indexChild(schema, type);
  if (segment.field === "*") return wildcardChild(schema, type);
  if (type && type !== "object") return undefined;
  const declared = propertyOf(schema.properties, segment.field);
  if (declared) return declared;
  if (typeof schema.additionalProperties === "object") return schema.additionalProperties;
  if (schema.additionalProperties === true) return "unknown";
  if (!schema.properties) return "unknown";
  return undefined;
}

function indexChild(schema: OpenAPISchema, type: string | undefined): OpenAPISchema | "unknown" | undefined {
  if (type && type !== "array") return undefined;
  if (Array.isArray(schema.items)) return "unknown";
  return schema.items ?? "unknown";
}

/** `[*]` expands over a list's items or an object's values. */
function wildcardChild(schema: OpenAPISchema, type: string | undefined): OpenAPISchema | "unknown" | undefined {
  if (type === "array") return Array.isArray(schema.items) ? "unknown" : (schema.items ?? "unknown");
  if (type && type !== "object") return undefined;
  if (typeof schema.additionalProperties === "object") return schema.additionalProperties;
  return "unknown";
}

function fieldName(segment: Segment): string {
  return "field" in segment ? segment.field : "";
}

/** The JSON type a schema gives its value, when it gives exactly one. */
export function schemaValueType(schema: OpenAPISchema): string | undefined {
  if (schema["x-kubernetes-int-or-string"]) return undefined;
  return typeof schema.type === "string" ? schema.type : undefined;
}
