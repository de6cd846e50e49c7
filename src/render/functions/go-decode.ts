import type { OpenAPISchema } from "../../validate/schemas/types.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What Go's encoding/json does when a function decodes its input into typed structs: a value of
 * the wrong JSON type is an error (`cannot unmarshal string into ... of type []...`), `null`
 * leaves a field unset and makes a list item its zero value, and unknown fields are ignored.
 * The schema stands in for the Go types. Returns a cleaned copy, or the error.
 */
export function decodeLikeGo(value: unknown, schema: OpenAPISchema, path: string): { value: unknown } | { error: string } {
  if (value === null) return { value: zeroValue(schema) };
  const want = expectedType(schema);
  if (want && !matches(value, want)) {
    return { error: `json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type ${GO_TYPES[want]}` };
  }
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? (schema.items as OpenAPISchema) : {};
    const out: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const decoded = decodeLikeGo(item, items, `${path}[${i}]`);
      if ("error" in decoded) return decoded;
      out.push(decoded.value);
    }
    return { value: out };
  }
  if (isObject(value) && isObject(schema.properties)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const property = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      if (child === null) continue;
      if (!property) {
        out[key] = child;
        continue;
      }
      const decoded = decodeLikeGo(child, property, `${path}.${key}`);
      if ("error" in decoded) return decoded;
      out[key] = decoded.value;
    }
    return { value: out };
  }
  return { value };
}

type JsonType = "object" | "array" | "string" | "number" | "boolean";

const GO_TYPES: Record<JsonType, string> = { object: "struct", array: "slice", string: "string", number: "number", boolean: "bool" };

function expectedType(schema: OpenAPISchema): JsonType | undefined {
  if (schema["x-kubernetes-int-or-string"] || (schema["x-kubernetes-preserve-unknown-fields"] && !schema.properties)) return undefined;
  switch (schema.type) {
    case "object":
    case "array":
    case "string":
    case "boolean":
      return schema.type;
    case "integer":
    case "number":
      return "number";
    default:
      return undefined;
  }
}

function matches(value: unknown, want: JsonType): boolean {
  if (want === "array") return Array.isArray(value);
  if (want === "object") return isObject(value);
  return typeof value === want;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (isObject(value)) return "object";
  return typeof value === "boolean" ? "bool" : typeof value;
}

function zeroValue(schema: OpenAPISchema): unknown {
  switch (expectedType(schema)) {
    case "object":
      return {};
    case "array":
      return [];
    case "string":
      return "";
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}
