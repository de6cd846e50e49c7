import { quantity, parseDuration } from "./go-values.js";
import { hasWildcard, wildcardMatch } from "./wildcard.js";

/**
 * Kyverno's validate `pattern`: the resource must have the pattern's shape, with anchors on keys
 * (`(key)` conditional, `<(key)` global, `=(key)` equality, `^(key)` existence, `X(key)` negation),
 * wildcards and operators in values (`>=1`, `!x`, `a | b`, `a & b`, `1-10`, `1!-10`), and wildcards
 * in label and annotation keys.
 */

type Json = unknown;
type Obj = Record<string, unknown>;

export type PatternResult = { ok: true } | { ok: false; skip: boolean; path: string; message: string; error?: boolean };

class PatternError {
  constructor(
    readonly message: string,
    readonly path: string,
    readonly kind: "fail" | "conditional" | "global" | "negation" | "skip" = "fail",
  ) {}
}

const ANCHOR = /^([+<=X^])?\((.+)\)$/;

function parseAnchor(key: string): { modifier: string; key: string } | undefined {
  const m = ANCHOR.exec(key.trim());
  return m ? { modifier: m[1] ?? "", key: m[2]! } : undefined;
}

const isSkip = (e: PatternError) => e.kind === "conditional" || e.kind === "global" || e.kind === "skip";

/** Keys of conditional, existence and negation anchors, and whether the resource had them (Kyverno's AnchorMap). */
type AnchorMap = Map<string, boolean>;

export function matchPattern(resource: Json, pattern: Json): PatternResult {
  const anchors: AnchorMap = new Map();
  const err = validateElement(resource, pattern, "/", anchors);
  if (!err) return { ok: true };
  if (isSkip(err)) return { ok: false, skip: true, path: "", message: err.message };
  if (err.kind === "negation") return { ok: false, skip: false, path: err.path, message: err.message };
  const missing = [...anchors].some(([k, present]) => !present && parseAnchor(k)?.modifier !== "X");
  if (missing) return { ok: false, skip: false, path: "", message: err.message, error: true };
  return { ok: false, skip: false, path: err.path, message: err.message };
}

function isObject(v: unknown): v is Obj {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function validateElement(resource: Json, pattern: Json, path: string, ac: AnchorMap): PatternError | undefined {
  if (isObject(pattern)) {
    if (!isObject(resource)) return new PatternError(`pattern and resource have different structures. Path: ${path}. Expected map, found ${typeOf(resource)}`, path);
    for (const key of Object.keys(pattern)) {
      const a = parseAnchor(key);
      if (!a || !["", "^", "X"].includes(a.modifier)) continue;
      if (ac.get(key)) continue;
      if (!ac.has(key)) ac.set(key, false);
      if (Object.hasOwn(resource, a.key)) ac.set(key, true);
    }
    return validateMap(resource, pattern, path, ac);
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(resource)) return new PatternError(`validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`, path);
    return validateArray(resource, pattern, path, ac);
  }
  if (Array.isArray(resource)) {
    for (const r of resource) if (!matchValue(r, pattern)) return new PatternError(`resource value '${show(resource)}' does not match '${show(pattern)}' at path ${path}`, path);
    return undefined;
  }
  if (!matchValue(resource, pattern)) return new PatternError(`resource value '${show(resource)}' does not match '${show(pattern)}' at path ${path}`, path);
  return undefined;
}

function validateMap(resource: Obj, patternIn: Obj, path: string, ac: AnchorMap): PatternError | undefined {
  const pattern = expandMetadataWildcards(patternIn, resource);
  const anchorKeys: string[] = [];
  const plainKeys: string[] = [];
  for (const key of Object.keys(pattern)) {
    const a = parseAnchor(key);
    if (a && ["", "^", "=", "X"].includes(a.modifier)) anchorKeys.push(key);
    else plainKeys.push(key);
  }
  anchorKeys.sort();
  const skips: PatternError[] = [];
  let applied = 0;
  for (const key of anchorKeys) {
    const err = handle(key, pattern[key], resource, path, ac);
    if (err) {
      if (isSkip(err)) {
        skips.push(err);
        continue;
      }
      return err;
    }
    applied++;
  }
  if (skips.length > 0 && applied === 0) return new PatternError(skips.map((e) => e.message).join("; "), path, "skip");
  for (const key of sortResourceKeys(plainKeys, pattern)) {
    const err = handle(key, pattern[key], resource, path, ac);
    if (err) return err;
  }
  return undefined;
}

/** Global anchors and keys with anchors below them first, the rest after, each group sorted. */
function sortResourceKeys(keys: string[], pattern: Obj): string[] {
  const first: string[] = [];
  const rest: string[] = [];
  for (const k of [...keys].sort()) {
    if (parseAnchor(k)?.modifier === "<" || hasNestedAnchors(pattern[k])) first.unshift(k);
    else rest.push(k);
  }
  return [...first, ...rest];
}

function hasNestedAnchors(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasNestedAnchors);
  if (isObject(v)) return Object.keys(v).some((k) => parseAnchor(k) !== undefined && parseAnchor(k)!.modifier !== "+") || Object.values(v).some(hasNestedAnchors);
  return false;
}

function handle(key: string, pattern: Json, resource: Obj, path: string, ac: AnchorMap): PatternError | undefined {
  const a = parseAnchor(key);
  const at = (k: string) => `${path}${k}/`;
  if (!a || a.modifier === "+") {
    const name = a ? a.key : key;
    if (a) return undefined; // add-if-not-present: mutation only
    const value = resource[name];
    if (pattern === "*") return value !== undefined && value !== null ? undefined : new PatternError(`${path}/${name} not found`, path);
    return validateElement(value, pattern, at(name), ac);
  }
  const present = Object.hasOwn(resource, a.key);
  const value = resource[a.key];
  switch (a.modifier) {
    case "X":
      return present ? new PatternError(`${at(a.key)} is not allowed`, at(a.key), "negation") : undefined;
    case "=":
      return present ? validateElement(value, pattern, at(a.key), ac) : undefined;
    case "":
      if (!present) return new PatternError("conditional anchor key doesn't exist in the resource", at(a.key), "conditional");
      {
        const err = validateElement(value, pattern, at(a.key), ac);
        return err ? new PatternError(err.message, err.path, "conditional") : undefined;
      }
    case "<":
      if (!present) return undefined;
      {
        const err = validateElement(value, pattern, at(a.key), ac);
        return err ? new PatternError(err.message, err.path, "global") : undefined;
      }
    case "^": {
      if (!present) return undefined;
      if (!Array.isArray(value)) return new PatternError(`invalid resource type: Existence ^ () anchor can be used only on list/array type resource`, at(a.key));
      if (!Array.isArray(pattern)) return new PatternError(`invalid pattern type: Pattern has to be of list to compare against resource`, at(a.key));
      for (const p of pattern) {
        if (!isObject(p)) return new PatternError(`invalid pattern type: Pattern has to be of type map to compare against items in resource`, at(a.key));
        const found = value.some((item, i) => !validateElement(item, p, `${at(a.key)}${i}/`, ac));
        if (!found) return new PatternError(`existence anchor validation failed at path ${at(a.key)}`, at(a.key));
      }
      return undefined;
    }
  }
  return undefined;
}

function validateArray(resource: Json[], pattern: Json[], path: string, ac: AnchorMap): PatternError | undefined {
  if (pattern.length === 0) return new PatternError("pattern Array empty", path);
  const first = pattern[0];
  // One map pattern is checked against every element; a list of patterns element by element.
  if (isObject(first)) return validateElements(resource.length, (i) => validateElement(resource[i], first, `${path}${i}/`, ac), path);
  if (!Array.isArray(first)) return validateElement(resource, first, path, ac);
  if (resource.length < pattern.length) return new PatternError(`validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`, "");
  return validateElements(pattern.length, (i) => validateElement(resource[i], pattern[i], `${path}${i}/`, ac), path);
}

/** The first failure among `count` elements; when every one was skipped (a conditional anchor), a skip. */
function validateElements(count: number, check: (i: number) => PatternError | undefined, path: string): PatternError | undefined {
  const skips: PatternError[] = [];
  let applied = 0;
  for (let i = 0; i < count; i++) {
    const err = check(i);
    if (err) {
      if (isSkip(err)) {
        skips.push(err);
        continue;
      }
      return err;
    }
    applied++;
  }
  return applied === 0 && skips.length > 0 ? new PatternError(skips.map((e) => e.message).join("; "), path, "skip") : undefined;
}

/** Wildcards in the keys of `metadata.labels` and `metadata.annotations` take the resource's matching key. */
function expandMetadataWildcards(pattern: Obj, resource: Obj): Obj {
  const metaKey = Object.keys(pattern).find((k) => k === "metadata" || parseAnchor(k)?.key === "metadata");
  if (!metaKey || !isObject(pattern[metaKey]) || !isObject(resource.metadata)) return pattern;
  const meta = { ...(pattern[metaKey] as Obj) };
  let changed = false;
  for (const tag of ["labels", "annotations"]) {
    const tagKey = Object.keys(meta).find((k) => k === tag || parseAnchor(k)?.key === tag);
    const have = (resource.metadata as Obj)[tag];
    if (!tagKey || !isObject(meta[tagKey]) || !isObject(have)) continue;
    const out: Obj = {};
    for (const [k, v] of Object.entries(meta[tagKey] as Obj)) {
      const a = parseAnchor(k);
      const bare = a ? a.key : k;
      if (!hasWildcard(bare)) {
        out[k] = v;
        continue;
      }
      const match = Object.keys(have).find((rk) => wildcardMatch(bare, rk));
      const resolved = match ?? bare;
      out[a ? `${a.modifier}(${resolved})` : resolved] = v;
    }
    meta[tagKey] = out;
    changed = true;
  }
  return changed ? { ...pattern, [metaKey]: meta } : pattern;
}

// --- values ---

/** pattern.Validate: one resource value against one pattern value. */
export function matchValue(value: Json, pattern: Json): boolean {
  if (typeof pattern === "boolean") return value === pattern;
  if (typeof pattern === "number") {
    if (typeof value === "number") return value === pattern;
    if (typeof value === "string") return value.trim() !== "" && Number(value) === pattern && /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim());
    return false;
  }
  if (pattern === null || pattern === undefined) return value === null || value === undefined || value === 0 || value === "" || value === false;
  if (isObject(pattern)) return isObject(value);
  if (typeof pattern === "string") return matchStringPattern(value, pattern);
  return false;
}

function matchStringPattern(value: Json, pattern: string): boolean {
  if (value === pattern) return true;
  return pattern.split("|").some((or) => or.trim().split("&").every((and) => matchOperand(value, and.trim())));
}

const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

function operatorOf(p: string): string {
  if (p.length < 2) return "";
  for (const op of [">=", "<=", ">", "<", "!"]) if (p.startsWith(op)) return op;
  if (NOT_IN_RANGE.test(p)) return "!-";
  if (IN_RANGE.test(p)) return "-";
  return "";
}

function matchOperand(value: Json, operand: string): boolean {
  const op = operatorOf(operand);
  if (op === "-") {
    const m = IN_RANGE.exec(operand)!;
    return matchOperand(value, `>= ${m[1]}`) && matchOperand(value, `<= ${m[2]}`);
  }
  if (op === "!-") {
    const m = NOT_IN_RANGE.exec(operand)!;
    return matchOperand(value, `< ${m[1]}`) || matchOperand(value, `> ${m[2]}`);
  }
  const p = operand.slice(op.length).trim();
  const duration = compareWith(value, p, op, parseDuration, (a, b) => a - b);
  if (duration !== undefined) return duration;
  const q = compareWith(value, p, op, (s) => quantity(s), (a, b) => a.compare(b));
  if (q !== undefined) return q;
  if (op !== "" && op !== "!") return false;
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number") text = Number.isInteger(value) ? String(value) : goExponent(value);
  else if (typeof value === "boolean") text = String(value);
  else return false;
  const matched = wildcardMatch(p, text);
  return op === "!" ? !matched : matched;
}

/** Both sides parsed (a number value read as text, null as "0"), then compared; undefined when either does not parse. */
function compareWith<T>(value: Json, pattern: string, op: string, parse: (s: string) => T | undefined, cmp: (a: T, b: T) => number): boolean | undefined {
  const p = parse(pattern);
  if (p === undefined) return undefined;
  let text: string;
  if (value === null || value === undefined) text = "0";
  else if (typeof value === "string") text = value;
  else if (typeof value === "number") text = Number.isInteger(value) ? String(value) : value.toFixed(6);
  else return undefined;
  const v = parse(text);
  if (v === undefined) return undefined;
  const c = cmp(v, p);
  switch (op) {
    case "":
      return c === 0;
    case "!":
      return c !== 0;
    case ">":
      return c > 0;
    case "<":
      return c < 0;
    case ">=":
      return c >= 0;
    case "<=":
      return c <= 0;
  }
  return undefined;
}

/** strconv.FormatFloat(v, 'E', -1, 64). */
function goExponent(v: number): string {
  return v.toExponential().toUpperCase().replace(/E\+?(-?)(\d)$/, "E$1+0$2").replace("E+-", "E-");
}

function typeOf(v: unknown): string {
  return v === null || v === undefined ? "nil" : Array.isArray(v) ? "array" : typeof v;
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
