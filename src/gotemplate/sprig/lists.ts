import { charge } from "../budget.js";
import { deepEqual } from "../reflectutil.js";
import { GoError, GoNum, SLICE_ANY, T, int, nilOf, sliceOf, typeOf, typed, type Value } from "../../go/values.js";
import { empty, fn, kindName, NIL_DEREF, toInt } from "./cast.js";

/** sprig's list functions (list.go). The non-must forms panic where the must forms return an error. */

const A = T.any;
const LIST = SLICE_ANY;

/** The elements of a slice or array argument, or the error sprig gives for another type. */
function elements(v: Value, verb: string): Value[] {
  if (v === undefined || v === null) throw new GoError(NIL_DEREF);
  if (Array.isArray(v)) return v;
  if (v instanceof Uint8Array) return [...v].map((b) => new GoNum(T.uint8, b));
  throw new GoError(`${verb} ${kindName(v)}`);
}

const nilList = () => nilOf(LIST);

/** Both forms of a sprig list function: panicking and error-returning behave the same here. */
function pair<K extends string>(name: K, params: (typeof A)[], result: typeof A, impl: (args: Value[]) => Value, variadic?: typeof A) {
  const must = `must${name[0].toUpperCase()}${name.slice(1)}`;
  return {
    [name]: fn(params, result, impl, { variadic }),
    [must]: fn(params, result, impl, { variadic, error: true }),
  } as Record<string, ReturnType<typeof fn>>;
}

function chunk(size: number, list: Value): Value {
  const l = elements(list, "Cannot chunk type");
  const n = l.length;
  const cs = Math.floor((n - 1) / size) + 1;
  if (cs < 0 || !Number.isFinite(cs)) throw new GoError("runtime error: makeslice: len out of range");
  const out: Value[] = [];
  for (let i = 0; i < cs; i++) {
    let clen = size;
    if (i === cs - 1) {
      clen = Math.floor(n % size);
      if (clen === 0) clen = size;
    }
    const part: Value[] = [];
    for (let j = 0; j < clen; j++) {
      const ix = i * size + j;
      if (ix >= n) throw new GoError(`reflect: slice index out of range`);
      part.push(l[ix]);
    }
    out.push(part);
  }
  return typed(out, sliceOf(LIST));
}

function sliceList(list: Value, indices: Value[]): Value {
  const l = elements(list, "list should be type of slice or array but");
  if (l.length === 0) return null;
  const start = indices.length > 0 ? toInt(indices[0]) : 0;
  const end = indices.length < 2 ? l.length : toInt(indices[1]);
  if (start < 0 || end > l.length || start > end) throw new GoError("reflect: slice index out of range");
  const out = l.slice(start, end);
  const t = typeOf(list)!;
  return t.elem?.kind === "interface" ? out : typed(out, t);
}

export const listFuncs: Record<string, ReturnType<typeof fn>> = {
  list: fn([], LIST, (args) => args, { variadic: A }),
  tuple: fn([], LIST, (args) => args, { variadic: A }),
  ...pair("push", [A, A], LIST, ([l, v]) => [...elements(l, "Cannot push on type"), v]),
  ...pair("append", [A, A], LIST, ([l, v]) => [...elements(l, "Cannot push on type"), v]),
  ...pair("prepend", [A, A], LIST, ([l, v]) => [v, ...elements(l, "Cannot prepend on type")]),
  ...pair("chunk", [T.int, A], sliceOf(LIST), ([s, l]) => chunk(num(s), l)),
  ...pair("last", [A], A, ([l]) => {
    const e = elements(l, "Cannot find last on type");
    return e.length === 0 ? null : e[e.length - 1];
  }),
  ...pair("first", [A], A, ([l]) => {
    const e = elements(l, "Cannot find first on type");
    return e.length === 0 ? null : e[0];
  }),
  ...pair("rest", [A], LIST, ([l]) => {
    const e = elements(l, "Cannot find rest on type");
    return e.length === 0 ? nilList() : e.slice(1);
  }),
  ...pair("initial", [A], LIST, ([l]) => {
    const e = elements(l, "Cannot find initial on type");
    return e.length === 0 ? nilList() : e.slice(0, -1);
  }),
  ...pair("reverse", [A], LIST, ([l]) => [...elements(l, "Cannot find reverse on type")].reverse()),
  ...pair("compact", [A], LIST, ([l]) => elements(l, "Cannot compact on type").filter((x) => !empty(x))),
  ...pair("uniq", [A], LIST, ([l]) => {
    const out: Value[] = [];
    for (const x of elements(l, "Cannot find uniq on type")) if (!out.some((y) => deepEqual(x, y))) out.push(x);
    return out;
  }),
  ...pair("without", [A], LIST, ([l, ...omit]) => elements(l, "Cannot find without on type").filter((x) => !omit.some((o) => deepEqual(x, o))), A),
  ...pair("has", [A, A], T.bool, ([needle, hay]) => {
    if (hay === null || hay === undefined) return false;
    return elements(hay, "Cannot find has on type").some((x) => deepEqual(needle, x));
  }),
  ...pair("slice", [A], A, ([l, ...idx]) => sliceList(l, idx), A),
  concat: fn(
    [],
    A,
    (lists) => {
      const out: Value[] = [];
      for (const l of lists) {
        if (l === null || l === undefined) throw new GoError(NIL_DEREF);
        if (!Array.isArray(l) && !(l instanceof Uint8Array)) throw new GoError(`Cannot concat type ${kindName(l)} as list`);
        out.push(...elements(l, ""));
      }
      return lists.length === 0 || out.length === 0 ? nilList() : out;
    },
    { variadic: A },
  ),
  until: fn([T.int], sliceOf(T.int), ([c]) => {
    const count = num(c);
    return untilStep(0, count, count < 0 ? -1 : 1);
  }),
  untilStep: fn([T.int, T.int, T.int], sliceOf(T.int), ([a, b, s]) => untilStep(num(a), num(b), num(s))),
};

function num(v: Value): number {
  return v instanceof GoNum ? v.value : (v as number);
}

/** sprig's untilStep, as a []int. */
export function untilStep(start: number, stop: number, step: number): Value[] {
  // The list's length, charged before it is made: `until 100000000` ends here, not out of memory.
  const count = step !== 0 && (stop - start) / step > 0 ? Math.ceil((stop - start) / step) : 0;
  if (count > 0) charge(count, `a list of ${count} numbers`);
  const out: Value[] = [];
  if (stop < start) {
    if (step >= 0) return typed(out, sliceOf(T.int));
    for (let i = start; i > stop; i += step) out.push(int(i));
    return typed(out, sliceOf(T.int));
  }
  if (step <= 0) return typed(out, sliceOf(T.int));
  for (let i = start; i < stop; i += step) out.push(int(i));
  return typed(out, sliceOf(T.int));
}
