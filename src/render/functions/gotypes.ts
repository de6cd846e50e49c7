import { GoNum, T } from "../../gotemplate/index.js";

/**
 * Go's dynamic types, as functions written in Go see JSON values. Kubernetes' JSON decoder gives
 * int64 for integral numbers and float64 otherwise, so a plain JS number maps to one of those by
 * its value. A box records a number whose Go type differs from that default (an integral
 * float64 from a conversion, or a Go `int`), for as long as a transform chain runs: the template
 * engine's GoNum, the project's one model of Go numbers.
 */
export type GoNumberType = "int" | "int64" | "float64";
export type GoNumber = GoNum;

export function goNumber(type: GoNumberType, value: number): GoNumber {
  return new GoNum(T[type], value);
}

export function isGoNumber(v: unknown): v is GoNumber {
  return v instanceof GoNum && (v.type === T.int || v.type === T.int64 || v.type === T.float64);
}

/** A value of a Go type JSON cannot produce (e.g. `[]int`), used only to reproduce Go errors. */
export class GoOpaque {
  constructor(
    readonly type: string,
    readonly value: unknown,
  ) {}
}

export function float64(value: number): number | GoNumber {
  return Number.isInteger(value) ? goNumber("float64", value) : value;
}

export function numberValue(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (isGoNumber(v)) return v.value;
  return undefined;
}

export function numberType(v: unknown): GoNumberType | undefined {
  if (isGoNumber(v)) return v.type.name as GoNumberType;
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return undefined;
}

/** Go's `%T` of a decoded JSON value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (v instanceof GoOpaque) return v.type;
  const n = numberType(v);
  if (n) return n;
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Replaces GoNumber boxes with plain numbers: what a JSON round trip does. */
export function toPlainJson(v: unknown): unknown {
  if (isGoNumber(v)) return v.value;
  if (v instanceof GoOpaque) return toPlainJson(v.value);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlainJson(x)]));
  }
  return v;
}

/** Go's encoding/json Marshal: map keys sorted, no spaces, HTML characters escaped. */
export function goJsonMarshal(v: unknown): string {
  return marshal(toPlainJson(v));
}

function marshal(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return formatJsonNumber(v);
  if (typeof v === "string") return goJsonString(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(marshal).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${goJsonString(k)}:${marshal(o[k])}`)
    .join(",")}}`;
}

function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Go's float formatting in encoding/json: shortest repr, exponent only below 1e-6 or from 1e21. */
function formatJsonNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return n.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  return String(n);
}
