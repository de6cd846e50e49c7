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

type Anchor = { modifier: string; key: string };

/** Pattern keys come from the policies, so the parsed anchors are kept (a bounded set). */
const anchors = new Map<string, Anchor | undefined>();

function parseAnchor(key: string): Anchor | undefined {
  if (anchors.has(key)) return anchors.get(key);
  const m = ANCHOR.exec(key.trim());
  const parsed = m ? { modifier: m[1] ?? "", key: m[2]! } : undefined;
  anchors.set(key, parsed);
  return parsed;
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
    if (!isObject(resource))
      return new PatternError(`pattern and resource have different structures. Path: ${path}. Expected map, found ${typeOf(resource)}`, path);
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
    if (!Array.isArray(resource))
      return new PatternError(`validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`, path);
    return validateArray(resource, pattern, path, ac);
  }
  if (Array.isArray(resource)) {
    for (const r of resource)
      if (!matchValue(r, pattern)) return new PatternError(`resource value '${show(resource)}' does not match '${show(pattern)}' at path ${path}`, path);
    return undefined;
  }
  if (!matchValue(resource, pattern)) return new PatternError(`resource value '${show(resource)}' does not match '${show(pattern)}' at path ${path}`, path);
  return undefined;
}

function validateMap(resource: Obj, patternIn: Obj, path: string, ac: AnchorMap): PatternError | undefined {
  const pattern = expandMetadataWildcards(patternIn, resource);
  const { anchorKeys, plainKeys } = keyOrder(pattern);
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
  for (const key of plainKeys) {
    const err = handle(key, pattern[key], resource, path, ac);
    if (err) return err;
  }
  return undefined;
}

/** The order a map pattern's keys are checked in, worked out once per pattern object. */
const keyOrders = new WeakMap<Obj, { anchorKeys: string[]; plainKeys: string[] }>();

function keyOrder(pattern: Obj): { anchorKeys: string[]; plainKeys: string[] } {
  const known = keyOrders.get(pattern);
  if (known) return known;
  const anchorKeys: string[] = [];
  const plain: string[] = [];
  for (const key of Object.keys(pattern)) {
    const a = parseAnchor(key);
    if (a && ["", "^", "=", "X"].includes(a.modifier)) anchorKeys.push(key);
    else plain.push(key);
  }
  anchorKeys.sort();
  const order = { anchorKeys, plainKeys: sortResourceKeys(plain, pattern) };
  keyOrders.set(pattern, order);
  return order;
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
  if (isObject(v))
    return Object.keys(v).some((k) => parseAnchor(k) !== undefined && parseAnchor(k)!.modifier !== "+") || Object.values(v).some(hasNestedAnchors);
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
      if (!Array.isArray(value))
        return new PatternError(`invalid resource type: Existence ^ () anchor can be used only on list/array type resource`, at(a.key));
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
  if (resource.length < pattern.length)
    return new PatternError(
      `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`,
      "",
    );
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
    if (!Object.keys(meta[tagKey] as Obj).some((k) => hasWildcard(parseAnchor(k)?.key ?? k))) continue;
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
  return compiledPattern(pattern).some((or) => or.every((and) => matchOperand(value, and)));
}

/** An operand of a string pattern, parsed once: its operator and the pattern as a duration and a quantity. */
interface Operand {
  op: string;
  text: string;
  duration: number | undefined;
  quantity: ReturnType<typeof quantity>;
  range?: [Operand, Operand];
}

/** String patterns come from the policies, so each is split and parsed once (a bounded set). */
const compiled = new Map<string, Operand[][]>();

function compiledPattern(pattern: string): Operand[][] {
  let known = compiled.get(pattern);
  if (!known) {
    known = pattern.split("|").map((or) =>
      or
        .trim()
        .split("&")
        .map((and) => operandOf(and.trim())),
    );
    compiled.set(pattern, known);
  }
  return known;
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

function operandOf(operand: string): Operand {
  const op = operatorOf(operand);
  if (op === "-" || op === "!-") {
    const m = (op === "-" ? IN_RANGE : NOT_IN_RANGE).exec(operand)!;
    const range: [Operand, Operand] = op === "-" ? [operandOf(`>= ${m[1]}`), operandOf(`<= ${m[2]}`)] : [operandOf(`< ${m[1]}`), operandOf(`> ${m[2]}`)];
    return { op, text: operand, duration: undefined, quantity: undefined, range };
  }
  const text = operand.slice(op.length).trim();
  return { op, text, duration: parseDuration(text), quantity: quantity(text) };
}

function matchOperand(value: Json, operand: Operand): boolean {
  const { op, text: p, range } = operand;
  if (range)
    return op === "-" ? matchOperand(value, range[0]) && matchOperand(value, range[1]) : matchOperand(value, range[0]) || matchOperand(value, range[1]);
  const duration = compareWith(value, operand.duration, op, parseDuration, (a, b) => a - b);
  if (duration !== undefined) return duration;
  const q = compareWith(
    value,
    operand.quantity,
    op,
    (s) => quantity(s),
    (a, b) => a.compare(b),
  );
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
function compareWith<T>(value: Json, p: T | undefined, op: string, parse: (s: string) => T | undefined, cmp: (a: T, b: T) => number): boolean | undefined {
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
  return v
    .toExponential()
    .toUpperCase()
    .replace(/E\+?(-?)(\d)$/, "E$1+0$2")
    .replace("E+-", "E-");
}

function typeOf(v: unknown): string {
  return v === null || v === undefined ? "nil" : Array.isArray(v) ? "array" : typeof v;
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
