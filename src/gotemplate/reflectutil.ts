import { GoFunc, GoNum, GoStruct, isNilCollection, typed, typeOf, type GoMap, type Value } from "../go/values.js";

/** reflect.DeepEqual, copystructure.Copy and mergo.Merge over template values. */

export function deepEqual(a: Value, b: Value): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  const ta = typeOf(a)!;
  const tb = typeOf(b)!;
  if (ta.name !== tb.name) return false;
  if (a instanceof GoNum) return a.value === (b as GoNum).value || (Number.isNaN(a.value) && false);
  if (typeof a !== "object") return a === b;
  if (a instanceof GoStruct) {
    const bs = b as GoStruct;
    return Object.keys(a.fields).every((k) => deepEqual(a.fields[k], bs.fields[k]));
  }
  if (a instanceof GoFunc) return false;
  if (isNilCollection(a) !== isNilCollection(b)) return false;
  if (a instanceof Uint8Array) {
    const bb = b as Uint8Array;
    return a.length === bb.length && a.every((x, i) => x === bb[i]);
  }
  if (Array.isArray(a)) {
    const bb = b as Value[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const am = a as GoMap;
  const bm = b as GoMap;
  const ka = Object.keys(am);
  if (ka.length !== Object.keys(bm).length) return false;
  return ka.every((k) => Object.hasOwn(bm, k) && deepEqual(am[k], bm[k]));
}

/** copystructure.Copy: a deep copy that keeps Go types. */
export function deepCopy(v: Value): Value {
  if (v === null || v === undefined || typeof v !== "object") return v;
  if (v instanceof GoNum || v instanceof GoFunc) return v;
  if (v instanceof GoStruct) {
    const fields: Record<string, Value> = {};
    for (const [k, x] of Object.entries(v.fields)) fields[k] = deepCopy(x);
    return new GoStruct(v.type, fields);
  }
  if (v instanceof Uint8Array) return Uint8Array.from(v);
  const t = typeOf(v)!;
  if (Array.isArray(v)) {
    const out = v.map(deepCopy);
    return t.elem?.kind === "interface" ? out : typed(out, t);
  }
  const out: GoMap = {};
  for (const k of Object.keys(v)) out[k] = deepCopy(v[k]);
  return t.elem?.kind === "interface" ? out : typed(out, t);
}

/** mergo's isEmptyValue (dereferencing interfaces). */
function isEmptyValue(v: Value): boolean {
  if (v === undefined || v === null) return true;
  switch (typeof v) {
    case "boolean":
      return !v;
    case "string":
      return v === "";
    case "number":
      return v === 0;
  }
  if (v instanceof GoNum) return v.value === 0;
  if (v instanceof GoStruct || v instanceof GoFunc) return false;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  return Object.keys(v).length === 0;
}

const isMapValue = (v: Value): v is GoMap =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof GoNum) &&
  !(v instanceof GoStruct) &&
  !(v instanceof GoFunc) &&
  !(v instanceof Uint8Array);

/**
 * mergo.Merge(&dst, src) for map[string]interface{} (WithOverride when `overwrite`): nested maps
 * merge in place; with override a source value replaces the destination's even when empty,
 * otherwise only missing or empty destination values are filled.
 */
export function mergeMaps(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const key of Object.keys(src)) {
    const s = src[key];
    const has = Object.hasOwn(dst, key);
    const d = has ? dst[key] : undefined;
    if (s === null || s === undefined) {
      if (overwrite) dst[key] = null;
      continue;
    }
    if (isMapValue(s) && has && isMapValue(d)) mergeMaps(d, s, overwrite);
    if (has && !isEmptyValue(d)) {
      if (Array.isArray(s) || s instanceof Uint8Array) {
        if (overwrite) dst[key] = s;
        continue;
      }
      if (isMapValue(s) && isMapValue(d)) continue;
    }
    if (overwrite || !has || isEmptyValue(d)) dst[key] = s;
  }
}
