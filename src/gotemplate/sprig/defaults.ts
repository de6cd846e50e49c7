import { marshalJson, unmarshalJson } from "../../go/json.js";
import { sprintf } from "../../go/fmt.js";
import { GoError, T, typeOf, type Value } from "../../go/values.js";
import { deepEqual } from "../reflectutil.js";
import { empty, fn } from "./cast.js";

/** sprig's defaults.go (default, empty, coalesce, all, any, JSON, ternary), reflect.go and fail. */

const A = T.any;
const S = T.string;

/** reflect.Value.Kind().String() of an interface{} argument. */
function kindOf(v: Value): string {
  const t = typeOf(v);
  if (!t) return "invalid";
  return t.kind === "interface" ? "interface" : t.kind;
}

const json = (v: Value, opts?: Parameters<typeof marshalJson>[1]) => marshalJson(v ?? null, opts);

function orEmpty(f: () => string): string {
  try {
    return f();
  } catch (err) {
    if (err instanceof GoError) return "";
    throw err;
  }
}

export const defaultFuncs = {
  default: fn([A], A, ([d, ...given]) => (given.length === 0 || empty(given[0]) ? d : given[0]), { variadic: A }),
  empty: fn([A], T.bool, ([v]) => empty(v)),
  coalesce: fn([], A, (vs) => vs.find((v) => !empty(v)) ?? null, { variadic: A }),
  all: fn([], T.bool, (vs) => vs.every((v) => !empty(v)), { variadic: A }),
  any: fn([], T.bool, (vs) => vs.some((v) => !empty(v)), { variadic: A }),
  fromJson: fn([S], A, ([s]) => {
    try {
      return unmarshalJson(s as string);
    } catch (err) {
      if (err instanceof GoError) return null;
      throw err;
    }
  }),
  mustFromJson: fn([S], A, ([s]) => unmarshalJson(s as string), { error: true }),
  toJson: fn([A], S, ([v]) => orEmpty(() => json(v))),
  toPrettyJson: fn([A], S, ([v]) => orEmpty(() => json(v, { indent: "  " }))),
  toRawJson: fn([A], S, ([v]) => json(v, { escapeHTML: false })),
  mustToJson: fn([A], S, ([v]) => json(v), { error: true }),
  mustToPrettyJson: fn([A], S, ([v]) => json(v, { indent: "  " }), { error: true }),
  mustToRawJson: fn([A], S, ([v]) => json(v, { escapeHTML: false }), { error: true }),
  ternary: fn([A, A, T.bool], A, ([vt, vf, c]) => (c ? vt : vf)),
  typeOf: fn([A], S, ([v]) => sprintf("%T", [v ?? null])),
  typeIs: fn([S, A], T.bool, ([t, v]) => t === sprintf("%T", [v ?? null])),
  typeIsLike: fn([S, A], T.bool, ([t, v]) => {
    const name = sprintf("%T", [v ?? null]);
    return t === name || "*" + t === name;
  }),
  kindOf: fn([A], S, ([v]) => kindOf(v)),
  kindIs: fn([S, A], T.bool, ([k, v]) => k === kindOf(v)),
  deepEqual: fn([A, A], T.bool, ([a, b]) => deepEqual(a ?? null, b ?? null)),
  fail: fn(
    [S],
    S,
    ([msg]) => {
      throw new GoError(msg as string);
    },
    { error: true },
  ),
};
