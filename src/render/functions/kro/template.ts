import { Optional } from "@marcbachmann/cel-js";
import { Omit } from "../../../cel/lib-kro.js";
import { fromCel } from "../../../cel/values.js";
import { formatDuration } from "../../../go/duration.js";

/**
 * kro's `${…}` expressions in strings (kro/graph/parser/cel.go): where they are in a template,
 * the one CEL expression each string field stands for, and the values written back.
 */

export type FieldPath = (string | number)[];

/** A string field holding expressions. */
export interface FieldExpression {
  path: FieldPath;
  /** The CEL to evaluate: the expression itself when the string is one `${…}`, else a concatenation. */
  cel: string;
  /** The string is exactly one `${…}`: its value keeps the result's type. */
  standalone: boolean;
  /** The string as written. */
  original: string;
}

export class TemplateError extends Error {}

interface Match {
  start: number;
  end: number;
  text: string;
}

/**
 * The `${…}` of a string, braces counted (map literals nest), braces inside double-quoted CEL
 * strings ignored. An unterminated `${` is text; a `${` inside an expression is an error.
 */
export function findExpressions(s: string): Match[] {
  const out: Match[] = [];
  let from = 0;
  for (;;) {
    const start = s.indexOf("${", from);
    if (start < 0) return out;
    const end = matchingBrace(s, start + 2);
    if (end < 0) {
      from = start + 1;
      continue;
    }
    out.push({ start, end: end + 1, text: s.slice(start + 2, end) });
    from = end + 1;
  }
}

function matchingBrace(s: string, from: number): number {
  let depth = 1;
  let quoted = false;
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === "$" && s[i + 1] === "{") throw new TemplateError("nested expressions are not allowed unless inside string literals");
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** The field's expression, or undefined for a string without any. */
export function fieldExpression(path: FieldPath, s: string): FieldExpression | undefined {
  const matches = findExpressions(s);
  if (matches.length === 0) return undefined;
  if (matches.length === 1 && matches[0]!.start === 0 && matches[0]!.end === s.length) {
    return { path, cel: matches[0]!.text, standalone: true, original: s };
  }
  const parts: string[] = [];
  let at = 0;
  for (const m of matches) {
    if (m.start > at) parts.push(JSON.stringify(s.slice(at, m.start)));
    parts.push(`(${m.text})`);
    at = m.end;
  }
  if (at < s.length) parts.push(JSON.stringify(s.slice(at)));
  return { path, cel: parts.join(" + "), standalone: false, original: s };
}

/** A whole-string expression (includeWhen, readyWhen, forEach): anything else is an error. */
export function standaloneExpression(s: unknown, what: string): string {
  const e = typeof s === "string" ? fieldExpression([], s) : undefined;
  if (!e?.standalone) throw new TemplateError(`failed to parse ${what} expressions: only standalone expressions are allowed`);
  return e.cel;
}

/** Every string value below `value` that holds expressions (map keys are never expressions). */
export function templateExpressions(value: unknown, path: FieldPath = []): FieldExpression[] {
  if (typeof value === "string") {
    const e = fieldExpression(path, value);
    return e ? [e] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => templateExpressions(v, [...path, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => templateExpressions(v, [...path, k]));
  return [];
}

/** kro's path notation: `spec.a["b.c"][0]`. */
export function pathText(path: FieldPath): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (p === "" || p.includes(".")) out += `[${JSON.stringify(p)}]`;
    else out += out ? `.${p}` : p;
  }
  return out;
}

/** A copy of `template` with each path set to its value; `omit()` removes the field or list item. */
export function resolveTemplate(template: unknown, values: { path: FieldPath; value: unknown }[]): unknown {
  const copy = structuredClone(template);
  let omitted = false;
  for (const { path, value } of values) {
    if (path.length === 0) return value;
    let parent = copy as Record<string | number, unknown>;
    for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
    parent[path[path.length - 1]!] = value;
    if (containsOmitted(value)) omitted = true;
  }
  return omitted ? withoutOmitted(copy) : copy;
}

const OMITTED = Symbol("omitted");

function containsOmitted(v: unknown): boolean {
  if (v === OMITTED) return true;
  if (Array.isArray(v)) return v.some(containsOmitted);
  return !!v && typeof v === "object" && Object.values(v).some(containsOmitted);
}

function withoutOmitted(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== OMITTED).map(withoutOmitted);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== OMITTED) out[k] = withoutOmitted(x);
    return out;
  }
  return v;
}

/** A CEL result as JSON (kro/cel/conversion): optionals unwrapped, bytes as base64, times as text. */
export function jsonValue(v: unknown): unknown {
  if (v instanceof Omit) return OMITTED;
  const type = (v as { constructor?: { name?: string } } | null)?.constructor?.name;
  if (type === "UnsignedInt") return Number((v as { value: bigint }).value);
  // metav1.Duration and metav1.Time as Kubernetes writes them: Go's duration text, RFC 3339 to the second.
  if (type === "Duration") {
    const d = v as { seconds: bigint; nanos: number };
    return formatDuration(Number(d.seconds) * 1e9 + d.nanos);
  }
  if (v instanceof Optional) return v.hasValue() ? jsonValue(v.value()) : null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (v instanceof Date) return v.toISOString().replace(/\.\d+Z$/, "Z");
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonValue(x)]));
  if (v && typeof v === "object" && (Object.getPrototypeOf(v) === null || Object.getPrototypeOf(v) === Object.prototype)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  }
  return fromCel(v);
}
