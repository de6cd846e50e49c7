/**
 * JSON as CEL sees it: integers as int (bigint), doubles as double, objects as maps (null-prototype
 * objects, so a `__proto__` key is data). Converted once per object (objects are shared by every
 * policy that reads them), measuring the widest collection and the longest string for the budget.
 */

export interface Sized {
  value: unknown;
  /** The most items of any list or map inside. */
  widest: number;
  /** The longest string inside. */
  longestString: number;
}

const cache = new WeakMap<object, Sized>();

export function toCel(json: unknown): Sized {
  if (json && typeof json === "object") {
    const hit = cache.get(json);
    if (hit) return hit;
  }
  const size = { widest: 0, longestString: 0 };
  const value = convert(json, size);
  const sized = { value, ...size };
  if (json && typeof json === "object") cache.set(json, sized);
  return sized;
}

function convert(v: unknown, size: { widest: number; longestString: number }): unknown {
  if (typeof v === "number") return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === "string") {
    if (v.length > size.longestString) size.longestString = v.length;
    return v;
  }
  if (Array.isArray(v)) {
    if (v.length > size.widest) size.widest = v.length;
    return v.map((x) => convert(x, size));
  }
  if (v && typeof v === "object") {
    const out = Object.create(null) as Record<string, unknown>;
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      out[k] = convert(x, size);
      n++;
    }
    if (n > size.widest) size.widest = n;
    return out;
  }
  return v;
}

/** A CEL value back as JSON-like data (for messages and Kyverno's use of results). */
export function fromCel(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), fromCel(x)]));
  if (v && typeof v === "object" && (Object.getPrototypeOf(v) === null || Object.getPrototypeOf(v) === Object.prototype)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromCel(x)]));
  }
  return v;
}
