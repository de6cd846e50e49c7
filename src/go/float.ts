/** Go's strconv.FormatFloat: shortest and fixed precision, rounding exact decimals half to even. */

interface Digits {
  /** Significant digits without leading or trailing zeros ("" for zero). */
  d: string;
  /** Position of the decimal point relative to the start of d. */
  dp: number;
}

const view = new DataView(new ArrayBuffer(8));

/** The exact decimal expansion of |v| (finite). */
function exactDigits(v: number): Digits {
  if (v === 0) return { d: "", dp: 0 };
  view.setFloat64(0, Math.abs(v));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  let s: string;
  let dp: number;
  if (exp >= 0) {
    s = (mant << BigInt(exp)).toString();
    dp = s.length;
  } else {
    s = (mant * 5n ** BigInt(-exp)).toString();
    dp = s.length + exp;
  }
  return trimZeros({ d: s, dp });
}

function trimZeros(x: Digits): Digits {
  let d = x.d;
  let lead = 0;
  while (lead < d.length && d[lead] === "0") lead++;
  d = d.slice(lead).replace(/0+$/, "");
  return { d, dp: d === "" ? 0 : x.dp - lead };
}

/** Shortest digits that read back as v (JS and Go agree on the shortest, closest digits). */
function shortestDigits(v: number, bitSize: 32 | 64): Digits {
  if (v === 0) return { d: "", dp: 0 };
  const a = Math.abs(v);
  if (bitSize === 32) {
    for (let p = 1; p <= 9; p++) {
      const s = a.toExponential(p - 1);
      if (Math.fround(Number(s)) === Math.fround(a)) return fromExponential(s);
    }
  }
  return fromExponential(a.toExponential());
}

function fromExponential(s: string): Digits {
  const [mant, e] = s.split("e");
  const d = mant.replace(".", "");
  return trimZeros({ d, dp: Number(e) + 1 });
}

/** Rounds to nd significant digits, half to even on exact ties. */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0) return { d: "", dp: 0 };
  if (nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  let up: boolean;
  if (next === 5 && nd + 1 === x.d.length) up = nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  else up = next >= 5;
  let d = x.d.slice(0, nd);
  let dp = x.dp;
  if (up) {
    let i = d.length - 1;
    while (i >= 0 && d[i] === "9") i--;
    if (i < 0) {
      d = "1";
      dp++;
    } else d = d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1);
  }
  return trimZeros({ d, dp });
}

const digitAt = (x: Digits, i: number) => (i >= 0 && i < x.d.length ? x.d[i] : "0");

function fmtE(x: Digits, prec: number, upper: boolean): string {
  let s = digitAt(x, 0);
  if (prec > 0) {
    s += ".";
    for (let i = 1; i <= prec; i++) s += digitAt(x, i);
  }
  const exp = x.d === "" ? 0 : x.dp - 1;
  const ae = Math.abs(exp);
  return s + (upper ? "E" : "e") + (exp < 0 ? "-" : "+") + (ae < 10 ? "0" : "") + ae;
}

function fmtF(x: Digits, prec: number): string {
  let s = "";
  if (x.dp > 0) for (let i = 0; i < x.dp; i++) s += digitAt(x, i);
  else s = "0";
  if (prec > 0) {
    s += ".";
    for (let i = 0; i < prec; i++) s += digitAt(x, x.dp + i);
  }
  return s;
}

export type FloatFormat = "e" | "E" | "f" | "g" | "G" | "b" | "x" | "X";

/** strconv.FormatFloat(v, fmt, prec, bitSize). */
export function formatFloat(v: number, fmt: FloatFormat, prec: number, bitSize: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const neg = v < 0 || Object.is(v, -0);
  const sign = neg ? "-" : "";
  if (fmt === "b") return sign + binaryExp(Math.abs(v));
  if (fmt === "x" || fmt === "X") return sign + hexFloat(Math.abs(v), prec, fmt === "X");
  const shortest = prec < 0;
  let digs: Digits;
  if (shortest) {
    digs = shortestDigits(v, bitSize);
    switch (fmt) {
      case "e":
      case "E":
        prec = Math.max(digs.d.length - 1, 0);
        break;
      case "f":
        prec = Math.max(digs.d.length - digs.dp, 0);
        break;
      default:
        prec = digs.d.length;
    }
  } else {
    const exact = exactDigits(v);
    if (fmt === "e" || fmt === "E") digs = roundDigits(exact, prec + 1);
    else if (fmt === "f") digs = roundDigits(exact, exact.dp + prec);
    else {
      if (prec === 0) prec = 1;
      digs = roundDigits(exact, prec);
    }
  }
  switch (fmt) {
    case "e":
    case "E":
      return sign + fmtE(digs, prec, fmt === "E");
    case "f":
      return sign + fmtF(digs, prec);
  }
  let eprec = prec;
  if (eprec > digs.d.length && digs.d.length >= digs.dp) eprec = digs.d.length;
  if (shortest) eprec = 6;
  const exp = digs.dp - 1;
  if (digs.d !== "" && (exp < -4 || exp >= eprec)) {
    if (prec > digs.d.length) prec = digs.d.length;
    return sign + fmtE(digs, prec - 1, fmt === "G");
  }
  if (prec > digs.dp) prec = digs.d.length;
  return sign + fmtF(digs, Math.max(prec - digs.dp, 0));
}

function binaryExp(a: number): string {
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp = biased - 1075;
  if (biased === 0) exp = -1074;
  else mant |= 1n << 52n;
  return `${mant}p${exp >= 0 ? "+" : ""}${exp}`;
}

function hexFloat(a: number, prec: number, upper: boolean): string {
  let out: string;
  if (a === 0) {
    out = "0x0" + (prec > 0 ? "." + "0".repeat(prec) : "") + "p+00";
  } else {
    let exp = Math.floor(Math.log2(a));
    let m = a / Math.pow(2, exp);
    if (m >= 2) {
      m /= 2;
      exp++;
    } else if (m < 1) {
      m *= 2;
      exp--;
    }
    let frac = m - 1;
    let digits = "";
    const max = prec < 0 ? 13 : prec;
    for (let i = 0; i < max; i++) {
      frac *= 16;
      const d = Math.floor(frac);
      digits += d.toString(16);
      frac -= d;
    }
    if (prec >= 0 && frac >= 0.5) {
      const n = BigInt("0x1" + digits) + 1n;
      let hex = n.toString(16);
      if (hex.length > digits.length + 1) {
        exp++;
        hex = hex.slice(0, -1);
      }
      digits = hex.slice(1);
    }
    if (prec < 0) digits = digits.replace(/0+$/, "");
    const ae = Math.abs(exp);
    out = "0x1" + (digits ? "." + digits : "") + "p" + (exp < 0 ? "-" : "+") + (ae < 10 ? "0" : "") + ae;
  }
  return upper ? out.toUpperCase() : out;
}
