import { Quantity } from "./quantity.js";

/** Ordering and equality of CEL values, as the list and set libraries need them. */

export function compare(a: unknown, b: unknown): number {
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Quantity && b instanceof Quantity) return a.compare(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  throw new Error(`no such overload: cannot compare ${typeof a} and ${typeof b}`);
}

export function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
    // biome-ignore lint/suspicious/noDoubleEquals: a bigint and a number compare by value only loosely
    return a == b;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && Object.getPrototypeOf(a) === null && Object.getPrototypeOf(b) === null) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

export function extreme(list: unknown[], sign: 1 | -1): unknown {
  if (list.length === 0) throw new Error(`${sign > 0 ? "max" : "min"} called on empty list`);
  return list.reduce((best, v) => (compare(v, best) * sign > 0 ? v : best));
}

export function sum(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  if (list.every((v) => typeof v === "bigint")) return (list as bigint[]).reduce((a, b) => a + b, 0n);
  if (list.every((v) => typeof v === "number")) return (list as number[]).reduce((a, b) => a + b, 0);
  if (list.every((v) => v instanceof Quantity)) return (list as Quantity[]).reduce((a, b) => a.add(b));
  throw new Error("no such overload: sum of a list of mixed types");
}
