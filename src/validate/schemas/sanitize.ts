import type { OpenAPISchema } from "./types.js";

/** Something wrong with a schema itself, at a field path of the schema (`.spec.size`). */
export interface SchemaDefect {
  path: string;
  message: string;
}

export interface SanitizeOptions {
  /** A plain JSON schema (a schema location's): type lists and `$ref` are allowed. */
  jsonSchema?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean", "null"]);
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const STRING_LISTS = ["required", "x-kubernetes-list-map-keys"] as const;
const BOOLEANS = ["nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource", "uniqueItems"] as const;
const NUMBERS = ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "multipleOf"] as const;

/**
 * A schema every consumer can walk without surprises: each part of the wrong shape (a `type` that
 * is not a type name, `properties` that are not schemas, a `$ref`, which structural schemas
 * forbid) is left out and reported, and the rest still applies. Returns the schema itself when
 * nothing was wrong, so well-formed schemas cost one walk and no copy.
 */
export function sanitizeSchema(schema: unknown, defects: SchemaDefect[], options: SanitizeOptions = {}, path = ""): OpenAPISchema {
  if (!isObject(schema)) {
    defects.push({ path: path || "(root)", message: `a schema must be an object, not ${describe(schema)}; it was not applied` });
    return {};
  }
  let out: Record<string, unknown> | undefined;
  const drop = (key: string, message: string) => {
    out ??= { ...schema };
    delete out[key];
    defects.push({ path: path || "(root)", message: `${key}: ${message}; it was not applied` });
  };
  const replace = (key: string, value: unknown) => {
    if (value === schema[key]) return;
    out ??= { ...schema };
    out[key] = value;
  };
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref") {
      if (!options.jsonSchema) drop(key, "structural schemas may not use $ref");
    } else if (key === "type" && !isTypeName(value, options)) drop(key, `must be a type name, not ${describe(value)}`);
    else if (key === "properties" || key === "patternProperties" || key === "definitions") {
      if (!isObject(value)) drop(key, `must map names to schemas, not ${describe(value)}`);
      else replace(key, sanitizeMap(value, defects, options, path));
    } else if (key === "items") {
      if (Array.isArray(value))
        replace(
          key,
          value.map((v, i) => sanitizeSchema(v, defects, options, `${path}[${i}]`)),
        );
      else if (isObject(value)) replace(key, sanitizeSchema(value, defects, options, `${path}[*]`));
      else drop(key, `must be a schema, not ${describe(value)}`);
    } else if (key === "additionalProperties" || key === "additionalItems") {
      if (typeof value !== "boolean") {
        if (isObject(value)) replace(key, sanitizeSchema(value, defects, options, `${path}.*`));
        else drop(key, `must be a boolean or a schema, not ${describe(value)}`);
      }
    } else if (key === "not") {
      if (isObject(value)) replace(key, sanitizeSchema(value, defects, options, path));
      else drop(key, `must be a schema, not ${describe(value)}`);
    } else if ((SCHEMA_LISTS as readonly string[]).includes(key)) {
      if (!Array.isArray(value)) drop(key, `must be a list of schemas, not ${describe(value)}`);
      else
        replace(
          key,
          value.map((v) => sanitizeSchema(v, defects, options, path)),
        );
    } else if ((STRING_LISTS as readonly string[]).includes(key)) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) drop(key, `must be a list of strings, not ${describe(value)}`);
    } else if (key === "enum") {
      if (!Array.isArray(value)) drop(key, `must be a list, not ${describe(value)}`);
    } else if ((BOOLEANS as readonly string[]).includes(key)) {
      if (typeof value !== "boolean") drop(key, `must be true or false, not ${describe(value)}`);
    } else if ((NUMBERS as readonly string[]).includes(key)) {
      if (typeof value !== "number") drop(key, `must be a number, not ${describe(value)}`);
    } else if (key === "pattern" || key === "format" || key === "x-kubernetes-list-type" || key === "x-kubernetes-map-type") {
      if (typeof value !== "string") drop(key, `must be a string, not ${describe(value)}`);
    } else if (key === "x-kubernetes-validations") {
      if (!Array.isArray(value) || !value.every((r) => isObject(r) && typeof r.rule === "string"))
        drop(key, "must be a list of rules, each with a rule string");
    }
  }
  return (out ?? schema) as OpenAPISchema;
}

function isTypeName(v: unknown, options: SanitizeOptions): boolean {
  if (typeof v === "string") return TYPES.has(v);
  return options.jsonSchema === true && Array.isArray(v) && v.every((t) => typeof t === "string" && TYPES.has(t));
}

function sanitizeMap(map: Record<string, unknown>, defects: SchemaDefect[], options: SanitizeOptions, path: string): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [name, child] of Object.entries(map)) {
    const clean = sanitizeSchema(child, defects, options, `${path}.${name}`);
    if (clean !== child) (out ??= { ...map })[name] = clean;
  }
  return out ?? map;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${JSON.stringify(v).slice(0, 40)}`;
}
