/** Go's strconv number parsing as text/template uses it (base 0, underscores, hex floats). */

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

/** strconv's underscoreOK: underscores only between digits (or after a base prefix). */
export function underscoreOK(text: string): boolean {
  let s = text;
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1])) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.ParseUint(s, 0, 64) without the sign; undefined on any error. */
export function parseUint0(text: string): bigint | undefined {
  const s = text;
  if (s === "") return undefined;
  let base = 10;
  let digits = s;
  if (s[0] === "0") {
    if (s.length >= 3 && (s[1] === "x" || s[1] === "X")) {
      base = 16;
      digits = s.slice(2);
    } else if (s.length >= 3 && (s[1] === "o" || s[1] === "O")) {
      base = 8;
      digits = s.slice(2);
    } else if (s.length >= 3 && (s[1] === "b" || s[1] === "B")) {
      base = 2;
      digits = s.slice(2);
    } else if (s.length > 1) {
      base = 8;
      digits = s.slice(1);
    }
  }
  if (digits.includes("_")) {
    if (!underscoreOK(text)) return undefined;
    digits = digits.replace(/_/g, "");
  }
  if (digits === "") return undefined;
  let v = 0n;
  const b = BigInt(base);
  for (const c of digits) {
    const d = parseInt(c, 36);
    if (Number.isNaN(d) || d >= base) return undefined;
    v = v * b + BigInt(d);
    if (v > UINT64_MAX) return undefined;
  }
  return v;
}

/** strconv.ParseInt(s, 0, 64); undefined on any error. */
export function parseInt0(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  const u = parseUint0(s);
  if (u === undefined) return undefined;
  const v = neg ? -u : u;
  if (v < INT64_MIN || v > INT64_MAX) return undefined;
  return v;
}

/** strconv.ParseFloat(s, 64): decimal or hexadecimal, underscores as Go allows. */
export function parseFloat64(text: string): number | undefined {
  let s = text;
  if (s.includes("_")) {
    if (!underscoreOK(s)) return undefined;
    s = s.replace(/_/g, "");
  }
  let sign = 1;
  if (s[0] === "+" || s[0] === "-") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  const lower = s.toLowerCase();
  if (lower === "inf" || lower === "infinity") return sign * Infinity;
  if (lower === "nan") return NaN;
  if (lower.startsWith("0x")) {
    const m = /^0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?\d+)$/.exec(lower);
    if (!m || (m[1] === "" && (m[2] ?? "") === "")) return undefined;
    const mant = m[1] + (m[2] ?? "");
    let v = 0;
    for (const c of mant) v = v * 16 + parseInt(c, 16);
    const exp = Number(m[3]) - 4 * (m[2] ?? "").length;
    return sign * v * Math.pow(2, exp);
  }
  if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  const v = Number(s);
  if (!Number.isFinite(v)) return undefined;
  return sign * v;
}
