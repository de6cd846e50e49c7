import { decimalOp } from "../../go/decimal.js";
import { GoError, GoNum, T, type Value } from "../../go/values.js";
import { fn, toFloat64, toInt, toInt64 } from "./cast.js";
import { untilStep } from "./lists.js";
import { sprint } from "../../go/fmt.js";

/** sprig's numeric.go and the arithmetic of functions.go (int64 wraps like Go's, floats through decimals). */

const A = T.any;
const I64 = T.int64;
const F64 = T.float64;
const n = (v: Value) => (v instanceof GoNum ? v.value : (v as number));

/** int64 arithmetic with Go's wrap-around. */
const wrap = (x: bigint) => Number(BigInt.asIntN(64, x));
const big = (x: number) => BigInt(Math.trunc(x));

function divInt(a: number, b: number, op: "div" | "mod"): number {
  if (b === 0) throw new GoError("runtime error: integer divide by zero");
  const x = big(a);
  const y = big(b);
  return wrap(op === "div" ? x / y : x % y);
}

function seq(params: number[]): string {
  let increment = 1;
  let list: Value[];
  switch (params.length) {
    case 1: {
      const start = 1;
      const end = params[0];
      if (end < start) increment = -1;
      list = untilStep(start, end + increment, increment);
      break;
    }
    case 3: {
      const [start, step, end] = params;
      if (end < start) {
        increment = -1;
        if (step > 0) return "";
      }
      list = untilStep(start, end + increment, step);
      break;
    }
    case 2: {
      const [start, end] = params;
      const step = end < start ? -1 : 1;
      list = untilStep(start, end + step, step);
      break;
    }
    default:
      return "";
  }
  return list.map((x) => sprint([x])).join(" ");
}

function round(a: Value, p: number, rOpt: Value[]): number {
  const roundOn = rOpt.length > 0 ? toFloat64(rOpt[0]) : 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, p);
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

/** strconv.ParseInt(fmt.Sprint(v), 8, 64), 0 on error (sprig's toDecimal). */
function toDecimal(v: Value): number {
  const m = /^([+-]?)([0-7]+)$/.exec(sprint([v ?? null]));
  if (!m) return 0;
  const x = BigInt("0o" + m[2]) * (m[1] === "-" ? -1n : 1n);
  return x < -(1n << 63n) || x >= 1n << 63n ? 0 : Number(x);
}

export const numericFuncs = {
  int64: fn([A], I64, ([v]) => toInt64(v)),
  int: fn([A], T.int, ([v]) => toInt(v)),
  float64: fn([A], F64, ([v]) => toFloat64(v)),
  seq: fn([], T.string, (ps) => seq(ps.map(n)), { variadic: T.int }),
  toDecimal: fn([A], I64, ([v]) => toDecimal(v)),
  add1: fn([A], I64, ([v]) => wrap(big(toInt64(v)) + 1n)),
  add: fn([], I64, (vs) => wrap(vs.reduce((s, v) => s + big(toInt64(v)), 0n)), { variadic: A }),
  sub: fn([A, A], I64, ([a, b]) => wrap(big(toInt64(a)) - big(toInt64(b)))),
  div: fn([A, A], I64, ([a, b]) => divInt(toInt64(a), toInt64(b), "div")),
  mod: fn([A, A], I64, ([a, b]) => divInt(toInt64(a), toInt64(b), "mod")),
  mul: fn([A], I64, ([a, ...vs]) => wrap(vs.reduce((p, v) => p * big(toInt64(v)), big(toInt64(a)))), { variadic: A }),
  randInt: fn([T.int, T.int], T.int, ([lo, hi], ctx) => {
    const min = n(lo);
    const span = n(hi) - min;
    if (span <= 0) throw new GoError("invalid argument to Intn");
    return Math.floor(ctx.random() * span) + min;
  }),
  add1f: fn([A], F64, ([v]) => decimalOp("add", toFloat64(v), [1])),
  addf: fn([], F64, (vs) => decimalOp("add", 0, vs.map(toFloat64)), { variadic: A }),
  subf: fn([A], F64, ([a, ...vs]) => decimalOp("sub", toFloat64(a), vs.map(toFloat64)), { variadic: A }),
  divf: fn(
    [A],
    F64,
    ([a, ...vs]) => {
      try {
        return decimalOp("div", toFloat64(a), vs.map(toFloat64));
      } catch (err) {
        throw new GoError((err as Error).message);
      }
    },
    { variadic: A },
  ),
  mulf: fn([A], F64, ([a, ...vs]) => decimalOp("mul", toFloat64(a), vs.map(toFloat64)), { variadic: A }),
  biggest: fn([A], I64, ([a, ...vs]) => vs.reduce<number>((m, v) => Math.max(m, toInt64(v)), toInt64(a)), { variadic: A }),
  max: fn([A], I64, ([a, ...vs]) => vs.reduce<number>((m, v) => Math.max(m, toInt64(v)), toInt64(a)), { variadic: A }),
  min: fn([A], I64, ([a, ...vs]) => vs.reduce<number>((m, v) => Math.min(m, toInt64(v)), toInt64(a)), { variadic: A }),
  maxf: fn([A], F64, ([a, ...vs]) => vs.reduce<number>((m, v) => Math.max(m, toFloat64(v)), toFloat64(a)), { variadic: A }),
  minf: fn([A], F64, ([a, ...vs]) => vs.reduce<number>((m, v) => Math.min(m, toFloat64(v)), toFloat64(a)), { variadic: A }),
  ceil: fn([A], F64, ([v]) => Math.ceil(toFloat64(v))),
  floor: fn([A], F64, ([v]) => Math.floor(toFloat64(v))),
  round: fn([A, T.int], F64, ([a, p, ...r]) => round(a, n(p), r), { variadic: F64 }),
};
