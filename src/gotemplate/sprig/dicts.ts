import { deepCopy, mergeMaps } from "../reflectutil.js";
import { sortedKeys } from "../../go/sort.js";
import { GoError, MAP_ANY, SLICE_ANY, SLICE_STRING, T, typeOf, typed, type GoMap, type Value } from "../../go/values.js";
import { fn, strval } from "./cast.js";

/**
 * sprig's dict functions (dict.go). Where Go iterates a map in random order (keys, values), the
 * result here is in key order, so that a render is reproducible.
 */

const A = T.any;
const S = T.string;
const M = MAP_ANY;

const asMap = (v: Value) => (v ?? {}) as GoMap;

function dig(ps: Value[]): Value {
  if (ps.length < 3) throw new GoError("dig needs at least three arguments");
  let dict = ps[ps.length - 1];
  const def = ps[ps.length - 2];
  const keys = ps.slice(0, -2);
  const assertMap = (v: Value): GoMap => {
    const t = typeOf(v);
    if (!t || t !== M) throw new GoError(`interface conversion: interface {} is ${t?.name ?? "nil"}, not map[string]interface {}`);
    return v as GoMap;
  };
  let m = assertMap(dict);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (typeof k !== "string") throw new GoError(`interface conversion: interface {} is ${typeOf(k)?.name ?? "nil"}, not string`);
    if (!Object.hasOwn(m, k)) return def;
    dict = m[k];
    if (i === keys.length - 1) return dict;
    m = assertMap(dict);
  }
  return def;
}

function merge(args: Value[], overwrite: boolean): Value {
  const dst = asMap(args[0]);
  for (const src of args.slice(1)) if (src) mergeMaps(dst, src as GoMap, overwrite);
  return dst;
}

export const dictFuncs = {
  dict: fn(
    [],
    M,
    (args) => {
      const d: GoMap = {};
      for (let i = 0; i < args.length; i += 2) d[strval(args[i] ?? null)] = i + 1 < args.length ? args[i + 1] : "";
      return d;
    },
    { variadic: A },
  ),
  get: fn([M, S], A, ([d, k]) => (Object.hasOwn(asMap(d), k as string) ? asMap(d)[k as string] : "")),
  set: fn([M, S, A], M, ([d, k, v]) => {
    if (!d) throw new GoError("assignment to entry in nil map");
    (d as GoMap)[k as string] = v;
    return d;
  }),
  unset: fn([M, S], M, ([d, k]) => {
    if (d) delete (d as GoMap)[k as string];
    return d;
  }),
  hasKey: fn([M, S], T.bool, ([d, k]) => Object.hasOwn(asMap(d), k as string)),
  pluck: fn([S], SLICE_ANY, ([k, ...ds]) => ds.filter((d) => Object.hasOwn(asMap(d), k as string)).map((d) => asMap(d)[k as string]), { variadic: M }),
  keys: fn(
    [],
    SLICE_STRING,
    (ds) =>
      typed(
        ds.flatMap((d) => sortedKeys(asMap(d))),
        SLICE_STRING,
      ),
    { variadic: M },
  ),
  pick: fn(
    [M],
    M,
    ([d, ...ks]) => {
      const out: GoMap = {};
      for (const k of ks) if (Object.hasOwn(asMap(d), k as string)) out[k as string] = asMap(d)[k as string];
      return out;
    },
    { variadic: S },
  ),
  omit: fn(
    [M],
    M,
    ([d, ...ks]) => {
      const out: GoMap = {};
      for (const k of sortedKeys(asMap(d))) if (!ks.includes(k)) out[k] = asMap(d)[k];
      return out;
    },
    { variadic: S },
  ),
  merge: fn([M], A, (args) => merge(args, false), { variadic: M }),
  mergeOverwrite: fn([M], A, (args) => merge(args, true), { variadic: M }),
  mustMerge: fn([M], A, (args) => merge(args, false), { variadic: M, error: true }),
  mustMergeOverwrite: fn([M], A, (args) => merge(args, true), { variadic: M, error: true }),
  values: fn([M], SLICE_ANY, ([d]) => sortedKeys(asMap(d)).map((k) => asMap(d)[k])),
  deepCopy: fn([A], A, ([v]) => deepCopy(v ?? null)),
  mustDeepCopy: fn([A], A, ([v]) => deepCopy(v ?? null), { error: true }),
  dig: fn([], A, dig, { variadic: A, error: true }),
};
