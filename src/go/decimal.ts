// go/: what imitates Go's standard library (and Masterminds semver, libyaml's emitter tables) exactly, once for the whole project, tested against Go's own tables.
/**
 * The arithmetic of shopspring/decimal as sprig's addf, subf, mulf and divf use it: each float
 * becomes the decimal of its shortest representation, the operation is exact (division rounds
 * half away from zero to 16 places), and the result is read back as the nearest float64.
 */

interface Dec {
  coef: bigint;
  exp: number;
}

function fromFloat(f: number): Dec {
  if (f === 0 || !Number.isFinite(f)) return { coef: 0n, exp: 0 };
  const [mant, e] = Math.abs(f).toExponential().split("e");
  const digits = mant.replace(".", "");
  const exp = Number(e) - (digits.length - 1);
  const coef = BigInt(digits);
  return { coef: f < 0 ? -coef : coef, exp };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.exp === b.exp) return [a.coef, b.coef, a.exp];
  if (a.exp < b.exp) return [a.coef, b.coef * 10n ** BigInt(b.exp - a.exp), a.exp];
  return [a.coef * 10n ** BigInt(a.exp - b.exp), b.coef, b.exp];
}

const add = (a: Dec, b: Dec): Dec => {
  const [x, y, exp] = align(a, b);
  return { coef: x + y, exp };
};
const sub = (a: Dec, b: Dec): Dec => {
  const [x, y, exp] = align(a, b);
  return { coef: x - y, exp };
};
const mul = (a: Dec, b: Dec): Dec => ({ coef: a.coef * b.coef, exp: a.exp + b.exp });

const DIVISION_PRECISION = 16;

function div(a: Dec, b: Dec): Dec {
  if (b.coef === 0n) throw new Error("decimal division by 0");
  // a / b = (a.coef / b.coef) * 10^(a.exp - b.exp); scale so the quotient has 17 places, then round.
  const places = DIVISION_PRECISION + 1;
  const shift = places + a.exp - b.exp;
  let num = a.coef;
  let den = b.coef;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  let q = num / den;
  const neg = q < 0n || (q === 0n && num < 0n !== den < 0n);
  let mag = q < 0n ? -q : q;
  const last = mag % 10n;
  mag /= 10n;
  if (last >= 5n) mag += 1n;
  q = neg ? -mag : mag;
  return { coef: q, exp: -DIVISION_PRECISION };
}

function toFloat(d: Dec): number {
  return Number(`${d.coef}e${d.exp}`);
}

export type DecimalOp = "add" | "sub" | "mul" | "div";

const OPS: Record<DecimalOp, (a: Dec, b: Dec) => Dec> = { add, sub, mul, div };

/** execDecimalOp: a op b1 op b2 ... */
export function decimalOp(op: DecimalOp, a: number, rest: number[]): number {
  let acc = fromFloat(a);
  for (const x of rest) acc = OPS[op](acc, fromFloat(x));
  return toFloat(acc);
}
