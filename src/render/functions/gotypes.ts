import { GoNum, T } from "../../go/values.js";
import { marshalJson } from "../../go/json.js";
import type { Value } from "../../go/values.js";

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

/** Go's encoding/json Marshal (the project's one, src/go/json.ts): map keys sorted, no spaces, HTML characters escaped. */
export function goJsonMarshal(v: unknown): string {
  return marshalJson(toPlainJson(v) as Value);
}
