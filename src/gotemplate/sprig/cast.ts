import { formatValue } from "../../go/fmt.js";
import { parseFloat64, parseInt0 } from "../../go/number.js";
import { GoFunc, GoNum, GoStruct, isNilCollection, typeOf, type CallContext, type GoType, type Value } from "../../go/values.js";

/** Conversions sprig relies on: spf13/cast (ToInt64, ToInt, ToFloat64), strval, empty, and a signature helper. */

export function fn(
  params: GoType[],
  result: GoType,
  impl: (args: Value[], ctx: CallContext) => Value,
  opts: { variadic?: GoType; error?: boolean } = {},
): GoFunc {
  return new GoFunc({ params, result, variadic: opts.variadic, error: opts.error }, impl);
}

/** cast's trimZeroDecimal: "12.00" → "12", "12.01" unchanged. */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === ".") {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === "0") foundZero = true;
    else return s;
  }
  return s;
}

/** Go's int64(float64): truncation, with amd64's result for values out of range. */
function truncInt64(f: number): number {
  if (!Number.isFinite(f) || Math.abs(f) >= 9.223372036854776e18) return -9223372036854775808;
  return Math.trunc(f) || 0;
}

function castInt(v: Value): number {
  switch (typeof v) {
    case "number":
      return truncInt64(v);
    case "boolean":
      return v ? 1 : 0;
    case "string": {
      const n = parseInt0(trimZeroDecimal(v));
      return n === undefined ? 0 : Number(n);
    }
  }
  if (v instanceof GoNum) return v.type.kind.startsWith("float") ? truncInt64(v.value) : v.value;
  return 0;
}

/** cast.ToInt64 (0 when it cannot convert). */
export const toInt64 = castInt;
/** cast.ToInt */
export const toInt = castInt;

/** cast.ToFloat64 (0 when it cannot convert). */
export function toFloat64(v: Value): number {
  switch (typeof v) {
    case "number":
      return v;
    case "boolean":
      return v ? 1 : 0;
    case "string": {
      const f = parseGoFloat(v);
      return f ?? 0;
    }
  }
  if (v instanceof GoNum) return v.value;
  return 0;
}

/** strconv.ParseFloat(s, 64); undefined on error. */
export const parseGoFloat = parseFloat64;

/** sprig's strval: strings as they are, []byte as text, Stringers by String(), else %v. */
export function strval(v: Value): string {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString("utf8");
  if ((v instanceof GoStruct || v instanceof GoNum) && v.type.stringer) return v.type.stringer(v);
  return formatValue(v === undefined ? null : v);
}

/** sprig's empty: nil, zero numbers, false, "", empty collections; structs never. */
export function empty(v: Value): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case "boolean":
      return !v;
    case "string":
      return v.length === 0;
    case "number":
      return v === 0;
  }
  if (v instanceof GoNum) return v.value === 0;
  if (v instanceof GoStruct) return false;
  if (v instanceof GoFunc) return false;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (isNilCollection(v)) return true;
  return Object.keys(v).length === 0;
}

/** A Go runtime panic's text for a nil where reflect.TypeOf(x).Kind() is called. */
export const NIL_DEREF = "runtime error: invalid memory address or nil pointer dereference";

/** reflect.Kind name of a value, as sprig's errors print it. */
export function kindName(v: Value): string {
  const t = typeOf(v);
  if (!t) return "invalid";
  return t.kind === "uint8" && v instanceof GoNum ? "uint8" : t.kind;
}
