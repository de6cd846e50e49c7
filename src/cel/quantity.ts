/** Kubernetes' CEL quantity library: resource.Quantity values held exactly, as a fraction. */

export class Quantity {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}

  compare(other: Quantity): number {
    const a = this.num * other.den;
    const b = other.num * this.den;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  add(other: Quantity, sign: 1n | -1n = 1n): Quantity {
    return reduce(this.num * other.den + sign * other.num * this.den, this.den * other.den);
  }

  isInteger(): boolean {
    return this.num % this.den === 0n && within64(this.num / this.den);
  }
}

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const SYNTAX = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

export function parseQuantity(text: string): Quantity | undefined {
  const m = SYNTAX.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "") || text.length > 100) return undefined;
  const [, sign, whole, fraction = "", suffix = ""] = m;
  let num = BigInt(`${whole}${fraction}` || "0") * (sign === "-" ? -1n : 1n);
  let den = 10n ** BigInt(fraction.length);
  let exp = 0;
  if (suffix in BINARY) num *= BINARY[suffix]!;
  else if (suffix in DECIMAL) exp = DECIMAL[suffix]!;
  else exp = Number(suffix.slice(1));
  if (Math.abs(exp) > 1000) return undefined;
  if (exp > 0) num *= 10n ** BigInt(exp);
  else if (exp < 0) den *= 10n ** BigInt(-exp);
  return reduce(num, den);
}

function reduce(num: bigint, den: bigint): Quantity {
  const g = gcd(num < 0n ? -num : num, den);
  return g > 1n ? new Quantity(num / g, den / g) : new Quantity(num, den);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

function within64(n: bigint): boolean {
  return n >= -(1n << 63n) && n < 1n << 63n;
}

export function quantityOf(text: string): Quantity {
  const q = parseQuantity(text);
  if (!q) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`);
  return q;
}

export function asInteger(q: Quantity): bigint {
  if (!q.isInteger()) throw new Error("cannot convert value to integer");
  return q.num / q.den;
}

export function fromInt(n: bigint): Quantity {
  return new Quantity(n, 1n);
}

/** A number as an exact fraction (through its shortest decimal text). */
export function fromNumber(n: number): Quantity {
  return parseQuantity(n.toFixed(20).replace(/\.?0+$/, "")) ?? new Quantity(0n, 1n);
}

export function scale(q: Quantity, num: bigint, den: bigint): Quantity {
  const n = q.num * num;
  const d = q.den * den;
  return d < 0n ? new Quantity(-n, -d) : new Quantity(n, d);
}

const BINARY_SUFFIXES: [string, bigint][] = [
  ["Ei", 1n << 60n],
  ["Pi", 1n << 50n],
  ["Ti", 1n << 40n],
  ["Gi", 1n << 30n],
  ["Mi", 1n << 20n],
  ["Ki", 1n << 10n],
];
const DECIMAL_SUFFIXES: [string, number][] = [
  ["E", 18],
  ["P", 15],
  ["T", 12],
  ["G", 9],
  ["M", 6],
  ["k", 3],
  ["", 0],
  ["m", -3],
  ["u", -6],
  ["n", -9],
];

/** resource.Quantity's canonical text: the largest suffix that keeps the number whole (binary when `binary` and whole). */
export function formatQuantity(q: Quantity, binary: boolean): string {
  if (q.num === 0n) return "0";
  const sign = q.num < 0n ? "-" : "";
  const num = q.num < 0n ? -q.num : q.num;
  if (binary && num % q.den === 0n) {
    const whole = num / q.den;
    for (const [suffix, size] of BINARY_SUFFIXES) if (whole % size === 0n) return `${sign}${whole / size}${suffix}`;
    if (whole < 1024n) return `${sign}${whole}`;
  }
  for (const [suffix, exp] of DECIMAL_SUFFIXES) {
    const n = exp >= 0 ? num : num * 10n ** BigInt(-exp);
    const d = exp >= 0 ? q.den * 10n ** BigInt(exp) : q.den;
    if (n % d === 0n) return `${sign}${n / d}${suffix}`;
  }
  // Below a nano: rounded up, as Kubernetes does.
  const n = num * 10n ** 9n;
  return `${sign}${(n + q.den - 1n) / q.den}n`;
}
