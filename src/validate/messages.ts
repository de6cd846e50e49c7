import type { ErrorObject } from "ajv";
import { pointerSegments, pointerToFieldPath, toPointer, valueAtPointer } from "../manifest/pointer.js";
import { isSecretField, maskValue } from "../secrets/mask.js";
import { FORMAT_HINTS } from "./formats.js";
import { propertyOf } from "./schemas/types.js";
import type { JsonSchema } from "./openapi.js";

/** One schema violation, before it is tied to a file and line. */
export interface Violation {
  rule: string;
  pointer: string;
  message: string;
  /** Error unless said otherwise (a CEL rule that could not be evaluated is info). */
  severity?: "error" | "warning" | "info";
}

/**
 * Turns ajv's errors into violations people can act on: one per problem, with the field path,
 * what was found and what is allowed. Errors inside anyOf/oneOf branches are folded into one.
 */
export function violationsFromAjv(errors: ErrorObject[], schema: JsonSchema | undefined, data: unknown): Violation[] {
  const out: Violation[] = [];
  const junctions = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  for (const e of errors) {
    if (junctions.some((j) => j !== e && e.schemaPath.startsWith(j.schemaPath + "/"))) continue;
    if (e.keyword === "if") continue;
    out.push(describe(e, schema, data));
  }
  return dedupe(out);
}

function describe(e: ErrorObject, schema: JsonSchema | undefined, data: unknown): Violation {
  const at = e.instancePath;
  const field = display(at);
  const p = e.params as Record<string, unknown>;
  const secret = isSecretField(data, pointerSegments(at));
  const preview = (value: unknown) => (secret && value !== null && typeof value !== "object" ? maskValue(String(value)) : previewOf(value));
  switch (e.keyword) {
    case "additionalProperties": {
      const name = String(p.additionalProperty);
      const pointer = `${at}/${escape(name)}`;
      const known = Array.isArray(p.known) ? (p.known as string[]) : knownFields(schema, at);
      const guess = closest(name, known);
      const hint = guess ? `; did you mean \`${display(`${at}/${escape(guess)}`)}\`?` : known.length ? ` (allowed here: ${list(known)})` : "";
      return { rule: "schema/unknown-field", pointer, message: `unknown field \`${display(pointer)}\`${hint}` };
    }
    case "required": {
      const missing = display(`${at}/${escape(String(p.missingProperty))}`);
      return { rule: "schema/required", pointer: at, message: `missing required field \`${missing}\`` };
    }
    case "type": {
      const value = valueAtPointer(data, at);
      return { rule: "schema/type", pointer: at, message: `\`${field}\` must be ${article(String(p.type))}, not ${typeName(value)} (${preview(value)})` };
    }
    case "enum": {
      const values = (p.allowedValues as unknown[]).filter((v) => v !== null);
      const allowed = values.slice(0, 20).map((v) => JSON.stringify(v).slice(0, 80));
      if (values.length > 20) allowed.push(`… and ${values.length - 20} more`);
      const value = valueAtPointer(data, at);
      const guess =
        typeof value === "string" && value.length >= 3 && !secret
          ? closest(
              value,
              values.filter((v): v is string => typeof v === "string"),
            )
          : undefined;
      const hint = guess !== undefined && guess !== value ? `; did you mean ${JSON.stringify(guess)}?` : "";
      return { rule: "schema/enum", pointer: at, message: `\`${field}\` is ${preview(value)}; allowed: ${allowed.join(", ")}${hint}` };
    }
    case "const":
      return { rule: "schema/enum", pointer: at, message: `\`${field}\` must be ${JSON.stringify(p.allowedValue)}` };
    case "pattern":
      return {
        rule: "schema/pattern",
        pointer: at,
        message: `\`${field}\` is ${preview(valueAtPointer(data, at))}, which does not match the pattern ${JSON.stringify(p.pattern)}`,
      };
    case "format": {
      const fmt = String(p.format);
      return {
        rule: "schema/format",
        pointer: at,
        message: `\`${field}\` is ${preview(valueAtPointer(data, at))}, not ${FORMAT_HINTS[fmt] ?? `a valid ${fmt}`}`,
      };
    }
    case "uniqueItems":
      return { rule: "schema/duplicate", pointer: at, message: `\`${field}\` has duplicate items (at indexes ${p.j} and ${p.i}); items must be unique` };
    case "anyOf":
    case "oneOf":
      return {
        rule: "schema/invalid",
        pointer: at,
        message: `\`${field}\` matches ${e.keyword === "oneOf" ? "not exactly one" : "none"} of the allowed forms`,
      };
    default:
      if (LIMIT_KEYWORDS.has(e.keyword)) return { rule: "schema/limit", pointer: at, message: `\`${field}\` ${e.message ?? "is out of range"}` };
      return { rule: "schema/invalid", pointer: at, message: `\`${field}\` ${e.message ?? "is invalid"}` };
  }
}

const LIMIT_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "multipleOf",
]);

function dedupe(list: Violation[]): Violation[] {
  const seen = new Set<string>();
  return list.filter((v) => {
    const key = `${v.rule}|${v.pointer}|${v.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function display(pointer: string): string {
  return pointerToFieldPath(pointer) || "(root)";
}

function escape(segment: string): string {
  return toPointer([segment]).slice(1);
}

/** The property names the schema declares at an instance path. */
function knownFields(schema: JsonSchema | undefined, pointer: string): string[] {
  let node: JsonSchema | undefined = schema;
  for (const seg of pointerSegments(pointer)) {
    if (!node) return [];
    const props = node.properties as Record<string, JsonSchema> | undefined;
    if (/^\d+$/.test(seg) && node.items && typeof node.items === "object" && !Array.isArray(node.items)) node = node.items as JsonSchema;
    else if (propertyOf(props, seg)) node = props![seg];
    else if (node.additionalProperties && typeof node.additionalProperties === "object") node = node.additionalProperties as JsonSchema;
    else return [];
  }
  return Object.keys((node?.properties as object | undefined) ?? {}).sort();
}

/** The declared name closest to a misspelt one, if it is close enough to be a typo. */
export function closest(name: string, candidates: string[]): string | undefined {
  // Names a repository writes may be long: the quadratic distance is for names a person types.
  if (name.length > MAX_GUESSED) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c.length > MAX_GUESSED) continue;
    const d = c.toLowerCase() === name.toLowerCase() ? 0.5 : levenshtein(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

const MAX_GUESSED = 128;

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function list(names: string[]): string {
  return names.length > 12 ? `${names.slice(0, 12).join(", ")}, …` : names.join(", ");
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  if (typeof value === "boolean") return "a boolean";
  return `a ${typeof value}`;
}

function article(type: string): string {
  const names = type.split(",").map((t) => ({ object: "an object", array: "a list", integer: "an integer", null: "null" })[t] ?? `a ${t}`);
  return names.join(" or ");
}

function previewOf(value: unknown): string {
  if (value !== null && typeof value === "object") return Array.isArray(value) ? `[…${value.length} items]` : "{…}";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + "…" : text;
}
