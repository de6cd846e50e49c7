import { formatValue as templateFormatValue, sprintf } from "../../go/fmt.js";
import { GoNum, sliceOf, T, typed, type Value } from "../../go/values.js";
import { GoOpaque, isGoNumber } from "./gotypes.js";

/**
 * Go's fmt for function-patch-and-transform's string transforms and combines: the project's one
 * fmt (src/gotemplate/fmt.ts: verbs, flags, width, precision, argument indexes and Go's in-band
 * error forms) over P&T's values, whose number boxes are already the template engine's GoNum.
 */
export function goSprintf(format: string, args: unknown[]): string {
  return sprintf(format, args.map(asGoValue));
}

/** Go's %v. */
export function formatValue(v: unknown): string {
  return templateFormatValue(asGoValue(v));
}

function asGoValue(v: unknown): Value {
  if (isGoNumber(v)) return v;
  if (v instanceof GoOpaque) return opaqueSlice(v) ?? asGoValue(v.value);
  if (Array.isArray(v)) return v.map(asGoValue);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asGoValue(x)]));
  return v as Value;
}

/** A slice of a basic Go type (`[]int`) as the template engine types it. */
function opaqueSlice(v: GoOpaque): Value | undefined {
  const elem = /^\[\](\w+)$/.exec(v.type)?.[1];
  const type = elem !== undefined && elem in T ? T[elem as keyof typeof T] : undefined;
  if (!type || !Array.isArray(v.value)) return undefined;
  return typed(
    v.value.map((x) => (typeof x === "number" ? new GoNum(type, x) : asGoValue(x))),
    sliceOf(type),
  );
}
