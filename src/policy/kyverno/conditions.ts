import { goSprint, parseDuration, quantity } from "./go-values.js";
import { substituteAll, type VariableScope } from "./variables.js";
import { wildcardMatch } from "./wildcard.js";
import { matchValue } from "./pattern.js";
import semver from "semver";

/** Kyverno's conditions (preconditions, deny): `{any, all}` or a list (all), each `key operator value`. */

export class BadOperator extends Error {}

export interface Condition {
  key?: unknown;
  operator?: string;
  value?: unknown;
  message?: string;
}

type Conditions = Condition[] | { any?: Condition[]; all?: Condition[] };

export const OPERATORS = new Set([
  "equal",
  "equals",
  "notequal",
  "notequals",
  "in",
  "anyin",
  "allin",
  "notin",
  "anynotin",
  "allnotin",
  "greaterthanorequals",
  "greaterthan",
  "lessthanorequals",
  "lessthan",
  "durationgreaterthanorequals",
  "durationgreaterthan",
  "durationlessthanorequals",
  "durationlessthan",
]);

/** The operators a conditions block names that Kyverno does not know (checked when the policy loads). */
export function unknownOperators(conditions: unknown): string[] {
  const out: string[] = [];
  const visit = (c: unknown) => {
    if (Array.isArray(c)) c.forEach(visit);
    else if (c && typeof c === "object") {
      const o = c as Record<string, unknown>;
      if ("operator" in o && !OPERATORS.has(String(o.operator).toLowerCase())) out.push(String(o.operator));
      if (o.any) visit(o.any);
      if (o.all) visit(o.all);
    }
  };
  visit(conditions);
  return out;
}

export function evaluateConditions(conditions: unknown, scope: VariableScope): { result: boolean; message: string } {
  if (!conditions) return { result: true, message: "" };
  if (Array.isArray(conditions)) {
    // A list of blocks ({any, all}) or of conditions; every one must hold.
    const messages: string[] = [];
    for (const c of conditions as (Condition | Conditions)[]) {
      const r = isBlock(c) ? evaluateBlock(c as { any?: Condition[]; all?: Condition[] }, scope) : evaluateOne(c as Condition, scope);
      if (!r.result) return r;
      if (r.message) messages.push(r.message);
    }
    return { result: true, message: messages.join(";") };
  }
  return evaluateBlock(conditions as { any?: Condition[]; all?: Condition[] }, scope);
}

function isBlock(c: unknown): boolean {
  return !!c && typeof c === "object" && ("any" in c || "all" in c) && !("key" in c);
}

function evaluateBlock(block: { any?: Condition[]; all?: Condition[] }, scope: VariableScope): { result: boolean; message: string } {
  let anyResult = true;
  const falseMessages: string[] = [];
  const trueMessages: string[] = [];
  if (block.any) {
    anyResult = false;
    for (const c of block.any) {
      const r = evaluateOne(c, scope);
      if (r.result) {
        anyResult = true;
        if (r.message) trueMessages.push(r.message);
        break;
      }
      if (r.message) falseMessages.push(r.message);
    }
  }
  let allResult = true;
  for (const c of block.all ?? []) {
    const r = evaluateOne(c, scope);
    if (!r.result) {
      allResult = false;
      if (r.message) falseMessages.push(r.message);
      break;
    }
    if (r.message) trueMessages.push(r.message);
  }
  const result = anyResult && allResult;
  return { result, message: (result ? trueMessages : falseMessages).join("; ") };
}

function evaluateOne(c: Condition, scope: VariableScope): { result: boolean; message: string } {
  const key = substituteAll(c.key ?? null, scope);
  const value = substituteAll(c.value ?? null, scope);
  const op = String(c.operator ?? "").toLowerCase();
  if (!OPERATORS.has(op)) throw new BadOperator(`unknown condition operator ${JSON.stringify(c.operator)}`);
  return { result: compare(op, key, value), message: c.message ?? "" };
}

export function compare(op: string, key: unknown, value: unknown): boolean {
  switch (op) {
    case "equal":
    case "equals":
      return equals(key, value);
    case "notequal":
    case "notequals":
      return notEquals(key, value);
    case "in":
      return inOp(key, value, false);
    case "notin":
      return inOp(key, value, true);
    case "anyin":
      return setOp(key, value, "anyin");
    case "allin":
      return setOp(key, value, "allin");
    case "anynotin":
      return setOp(key, value, "anynotin");
    case "allnotin":
      return setOp(key, value, "allnotin");
    case "greaterthan":
    case "greaterthanorequals":
    case "lessthan":
    case "lessthanorequals":
      return numeric(op, key, value);
    default:
      return durationOp(op, key, value);
  }
}

/** Both sides as durations (seconds), when at least one is a duration string and the other a duration or a number of seconds. */
function durations(key: unknown, value: unknown): [number, number] | undefined {
  const asDuration = (v: unknown) => (typeof v === "string" && v !== "0" ? parseDuration(v) : undefined);
  let k = asDuration(key);
  let v = asDuration(value);
  if (k === undefined && v === undefined) return undefined;
  if (k === undefined) k = typeof key === "number" ? key : undefined;
  if (v === undefined) v = typeof value === "number" ? value : undefined;
  return k === undefined || v === undefined ? undefined : [k, v];
}

function equals(key: unknown, value: unknown): boolean {
  if (typeof key === "boolean") return value === key;
  if (typeof key === "number") {
    if (typeof value === "number") return value === key;
    if (typeof value === "string") {
      const n = Number(value);
      return value.trim() !== "" && Number.isFinite(n) && n === key;
    }
    return false;
  }
  if (typeof key === "string") {
    const d = durations(key, value);
    if (d) return d[0] === d[1];
    const qk = quantity(key);
    if (qk && typeof value === "string") {
      const qv = quantity(value);
      return !!qv && qk.compare(qv) === 0;
    }
    return typeof value === "string" && wildcardMatch(value, key);
  }
  if (Array.isArray(key) || (key && typeof key === "object")) return JSON.stringify(sortKeys(key)) === JSON.stringify(sortKeys(value));
  return false;
}

function notEquals(key: unknown, value: unknown): boolean {
  if (typeof key === "string") {
    const d = durations(key, value);
    if (d) return d[0] !== d[1];
    const qk = quantity(key);
    if (qk && typeof value === "string") {
      if (value === "") return !wildcardMatch(value, key);
      const qv = quantity(value);
      return !qv || qk.compare(qv) !== 0;
    }
    return !(typeof value === "string" && wildcardMatch(value, key));
  }
  if (key === null || key === undefined) return true;
  return !equals(key, value);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The deprecated In/NotIn: exact membership, a string value read as a JSON list. */
function inOp(key: unknown, value: unknown, negate: boolean): boolean {
  if (Array.isArray(key)) {
    const keys = key.map(String);
    let values: string[] | undefined;
    if (Array.isArray(value)) values = value.every((v) => typeof v === "string") ? (value as string[]) : undefined;
    else if (typeof value === "string") values = keys.length === 1 && keys[0] === value ? [value] : parseJsonList(value);
    if (!values) return false;
    const all = keys.every((k) => values.includes(k));
    return negate ? !all : all;
  }
  if (key === null || key === undefined || typeof key === "object") return false;
  const k = goSprint(key);
  let found: boolean | undefined;
  if (Array.isArray(value)) found = value.some((v) => wildcardMatch(goSprint(v), k) || wildcardMatch(k, goSprint(v)));
  else if (typeof value === "string") {
    if (wildcardMatch(value, k)) found = true;
    else {
      const parsed = parseJsonList(value);
      found = parsed ? parsed.includes(k) : undefined;
    }
  }
  if (found === undefined) return false;
  return negate ? !found : found;
}

function parseJsonList(s: string): string[] | undefined {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
  } catch {
    return undefined;
  }
}

const RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

/** A string value as the In operators read it: a JSON list of strings, or the string alone; undefined for other JSON. */
function jsonListOr(value: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [value];
  }
  return Array.isArray(parsed) && parsed.every((x) => typeof x === "string") ? (parsed as string[]) : undefined;
}

/** AnyIn, AllIn, AnyNotIn, AllNotIn, as Kyverno's handlers read a single key and a list of keys. */
function setOp(key: unknown, value: unknown, op: "anyin" | "allin" | "anynotin" | "allnotin"): boolean {
  const negate = op === "anynotin" || op === "allnotin";
  const both = (a: string, b: string) => wildcardMatch(a, b) || wildcardMatch(b, a);
  if (typeof key === "string" || typeof key === "number" || typeof key === "boolean") {
    const k = goSprint(key);
    let exists: boolean | undefined;
    if (Array.isArray(value)) exists = value.some((v) => both(goSprint(v), k));
    else if (typeof value === "string") {
      if (wildcardMatch(value, k)) exists = true;
      else if (RANGE.test(value)) exists = matchValue(k, value);
      else exists = jsonListOr(value)?.includes(k);
    }
    if (exists === undefined) return false;
    return negate ? !exists : exists;
  }
  if (!Array.isArray(key)) return false;
  const keys = key.map(goSprint);
  let values: string[] | undefined;
  if (Array.isArray(value)) values = value.map(goSprint);
  else if ((typeof value === "number" || typeof value === "boolean") && (op === "anyin" || op === "anynotin")) values = [goSprint(value)];
  else if (typeof value === "string") {
    if (keys.length === 1 && keys[0] === value) return !negate;
    if (RANGE.test(value)) {
      const inRange = (k: string) => matchValue(k, value);
      if (op === "anyin") return keys.some(inRange);
      if (op === "allin") return keys.every(inRange);
      if (op === "anynotin") return keys.some((k) => matchValue(k, value.replace("-", "!-")));
      return keys.every((k) => !inRange(k));
    }
    values = jsonListOr(value);
  }
  if (!values) return false;
  const found = (k: string) => values!.some((v) => both(k, v));
  if (op === "anyin") return keys.some(found);
  if (op === "allin") return keys.every(found);
  if (op === "anynotin") return keys.some((k) => !found(k));
  return keys.every((k) => !found(k));
}

function numeric(op: string, key: unknown, value: unknown): boolean {
  const cmp = (a: number, b: number) => (op === "greaterthan" ? a > b : op === "greaterthanorequals" ? a >= b : op === "lessthan" ? a < b : a <= b);
  const num = (v: unknown): number | undefined =>
    typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : undefined;
  if (typeof key === "number") {
    const d = durations(key, value);
    if (d) return cmp(d[0], d[1]);
    const v = num(value);
    return v !== undefined && cmp(key, v);
  }
  if (typeof key !== "string") return false;
  const d = durations(key, value);
  if (d) return cmp(d[0], d[1]);
  const qk = quantity(key);
  const qv = typeof value === "string" ? quantity(value) : undefined;
  if (qk && qv) return cmp(qk.compare(qv), 0);
  const k = num(key);
  if (k !== undefined) {
    const v = num(value);
    return v !== undefined && cmp(k, v);
  }
  const vk = semver.parse(key);
  const vv = typeof value === "string" ? semver.parse(value) : null;
  if (vk && vv) return cmp(semver.compare(vk, vv), 0);
  return false;
}

function durationOp(op: string, key: unknown, value: unknown): boolean {
  const d = durations(key, value);
  if (!d) return false;
  const [a, b] = d;
  if (op === "durationgreaterthan") return a > b;
  if (op === "durationgreaterthanorequals") return a >= b;
  if (op === "durationlessthan") return a < b;
  return a <= b;
}
