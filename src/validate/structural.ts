import type { OpenAPISchema } from "./schemas/types.js";
import { toPointer } from "../manifest/pointer.js";

export interface StructuralError {
  pointer: string;
  rule: string;
  message: string;
}

/**
 * What the API server does to an object before it validates it: nulls in non-nullable fields are
 * pruned, then schema defaults fill absent fields (so a defaulted field is never "missing").
 * Also checks `x-kubernetes-list-type: map` key uniqueness, which JSON schema cannot say.
 * Mutates `value`; callers pass a copy.
 */
export function applyStructural(schema: OpenAPISchema, value: unknown, errors: StructuralError[] = [], path: (string | number)[] = []): StructuralError[] {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items && !Array.isArray(items)) {
      value.forEach((item, i) => applyStructural(items, item, errors, [...path, i]));
      if (schema["x-kubernetes-list-type"] === "map") checkMapKeys(schema, value, errors, path);
    }
    return errors;
  }
  if (!isPlainObject(value)) return errors;
  const props = schema.properties;
  if (props) {
    for (const [key, child] of Object.entries(props)) {
      if (value[key] === null && !child.nullable) delete value[key];
      if (value[key] === undefined && child.default !== undefined) value[key] = structuredClone(child.default);
      if (value[key] !== undefined) applyStructural(child, value[key], errors, [...path, key]);
    }
  }
  const extra = schema.additionalProperties;
  if (extra && typeof extra === "object") {
    for (const key of Object.keys(value)) {
      if (props && key in props) continue;
      if (value[key] === null && !extra.nullable) delete value[key];
      else applyStructural(extra, value[key], errors, [...path, key]);
    }
  }
  return errors;
}

function checkMapKeys(schema: OpenAPISchema, list: unknown[], errors: StructuralError[], path: (string | number)[]): void {
  const keys = schema["x-kubernetes-list-map-keys"] ?? [];
  if (keys.length === 0) return;
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    if (!isPlainObject(item)) return;
    const id = JSON.stringify(keys.map((k) => item[k] ?? null));
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else {
      const described = keys.map((k) => `${k}=${JSON.stringify(item[k] ?? null)}`).join(", ");
      errors.push({ pointer: toPointer([...path, i]), rule: "schema/duplicate", message: `duplicate entry with ${described} (first at index ${first}); list items are keyed by ${keys.join(", ")}` });
    }
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy for plain JSON data (faster than structuredClone for parsed YAML). */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = cloneJson(value[key]);
    return out as T;
  }
  return value;
}
