import { clonePlainJson, isPlainObject } from "../core/json.js";
import { propertyOf, type OpenAPISchema } from "./schemas/types.js";
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
 * Copy on write: `value` is never changed; the result shares every subtree that needed no change,
 * so an object without defaults or nulls to prune costs one walk and no copy.
 */
export function applyStructural(schema: OpenAPISchema, value: unknown): { value: unknown; errors: StructuralError[] } {
  const errors: StructuralError[] = [];
  return { value: structural(schema, withoutNullMetadata(value), errors, []), errors };
}

/** ObjectMeta is decoded as Go decodes JSON: a null field (`annotations:` with nothing after it) is simply unset. */
function withoutNullMetadata(value: unknown): unknown {
  if (!isPlainObject(value) || !("metadata" in value)) return value;
  const meta = value.metadata;
  if (meta === null) {
    const { metadata: _, ...rest } = value;
    return rest;
  }
  if (!isPlainObject(meta) || !Object.values(meta).includes(null)) return value;
  return { ...value, metadata: Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== null)) };
}

function structural(schema: OpenAPISchema, value: unknown, errors: StructuralError[], path: (string | number)[]): unknown {
  if (Array.isArray(value)) return structuralList(schema, value, errors, path);
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const props = schema.properties;
  if (props) {
    for (const key in props) {
      const sub = props[key]!;
      let v = fieldOf(value, key);
      if (v === null && !sub.nullable) {
        copy ??= { ...value };
        delete copy[key];
        v = undefined;
      }
      if (v === undefined && sub.default !== undefined) {
        copy ??= { ...value };
        copy[key] = v = clonePlainJson(sub.default);
      }
      if (v === undefined) continue;
      path.push(key);
      const next = structural(sub, v, errors, path);
      path.pop();
      if (next !== v) (copy ??= { ...value })[key] = next;
    }
  }
  const extra = schema.additionalProperties;
  if (extra && typeof extra === "object") {
    for (const key of Object.keys(value)) {
      if (propertyOf(props, key)) continue;
      const v = value[key];
      if (v === null && !extra.nullable) {
        copy ??= { ...value };
        delete copy[key];
        continue;
      }
      path.push(key);
      const next = structural(extra, v, errors, path);
      path.pop();
      if (next !== v) (copy ??= { ...value })[key] = next;
    }
  }
  return copy ?? value;
}

function structuralList(schema: OpenAPISchema, list: unknown[], errors: StructuralError[], path: (string | number)[]): unknown[] {
  const items = schema.items;
  if (!items || Array.isArray(items)) return list;
  let copy: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    path.push(i);
    const next = structural(items, list[i], errors, path);
    path.pop();
    if (next !== list[i]) (copy ??= list.slice())[i] = next;
  }
  const result = copy ?? list;
  if (schema["x-kubernetes-list-type"] === "map") checkMapKeys(schema, result, errors, path);
  return result;
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
      errors.push({
        pointer: toPointer([...path, i]),
        rule: "schema/duplicate",
        message: `duplicate entry with ${described} (first at index ${first}); list items are keyed by ${keys.join(", ")}`,
      });
    }
  });
}

/**
 * A field of a parsed object; undefined when absent, even for names Object.prototype has
 * (a schema property called `constructor` must not find a function). Parsed data has no functions.
 */
export function fieldOf(object: Record<string, unknown>, key: string): unknown {
  const v = object[key];
  return typeof v === "function" ? undefined : v;
}
