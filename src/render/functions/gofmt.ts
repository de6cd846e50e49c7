import { GoNumber, GoOpaque, goTypeName, numberType, numberValue } from "./gotypes.js";

/**
 * Go's fmt.Sprintf for the verbs compositions use in string transforms and combines
 * (%s %v %d %q %t %f %e %g %x %X %o %b %%), with flags, width, precision and explicit argument
 * indexes, including Go's in-band error forms (`%!d(string=x)`, `%!s(MISSING)`, `%!(EXTRA ...)`).
 */
export function goSprintf(format: string, args: unknown[]): string {
  let out = "";
  let argIndex = 0;
  let reordered = false;
  const spec = /%([-+# 0]*)(?:\[(\d+)\])?(\d+)?(?:\.(\d*))?(.?)/y;
  for (let i = 0; i < format.length; ) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    spec.lastIndex = pct;
    const m = spec.exec(format)!;
    i = spec.lastIndex;
    const [, flags = "", explicit, width, precision, verb = ""] = m;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (verb === "") {
      out += "%!(NOVERB)";
      continue;
    }
    if (explicit !== undefined) {
      argIndex = Number(explicit) - 1;
      reordered = true;
    }
    if (argIndex < 0 || argIndex >= args.length) {
      out += `%!${verb}(${explicit !== undefined ? "BADINDEX" : "MISSING"})`;
      continue;
    }
    const f: Spec = {
      minus: flags.includes("-"),
      plus: flags.includes("+"),
      sharp: flags.includes("#"),
      space: flags.includes(" "),
      zero: flags.includes("0"),
      width: width === undefined ? undefined : Number(width),
      precision: precision === undefined ? undefined : Number(precision || "0"),
    };
    out += formatArg(args[argIndex++], verb, f);
  }
  if (!reordered && argIndex < args.length) {
    out += `%!(EXTRA ${args
      .slice(argIndex)
      .map((a) => `${goTypeName(a)}=${formatValue(a)}`)
      .join(", ")})`;
  }
  return out;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  precision?: number;
}

function pad(s: string, f: Spec, numeric: boolean): string {
  if (f.width === undefined || s.length >= f.width) return s;
  const fill = f.width - s.length;
  if (f.minus) return s + " ".repeat(fill);
  if (f.zero && numeric) {
    const sign = /^[+-]/.test(s) ? s[0] : "";
    return sign + "0".repeat(fill) + s.slice(sign.length);
  }
  return " ".repeat(fill) + s;
}

function badVerb(v: unknown, verb: string): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${formatValue(v)})`;
}

function formatArg(v: unknown, verb: string, f: Spec): string {
  if (Array.isArray(v) && verb !== "v") {
    return pad(`[${v.map((x) => formatArg(x, verb, { ...f, width: undefined })).join(" ")}]`, f, false);
  }
  switch (verb) {
    case "v":
      return pad(formatValue(v), f, typeof v === "number");
    case "s":
      return typeof v === "string" ? pad(truncate(v, f.precision), f, false) : badVerb(v, verb);
    case "q":
      return typeof v === "string" ? pad(JSON.stringify(v), f, false) : badVerb(v, verb);
    case "t":
      return typeof v === "boolean" ? pad(String(v), f, false) : badVerb(v, verb);
    case "d":
    case "x":
    case "X":
    case "o":
    case "b":
      return formatInteger(v, verb, f);
    case "f":
    case "F":
    case "e":
    case "E":
    case "g":
    case "G":
      return formatFloat(v, verb, f);
    default:
      return badVerb(v, verb);
  }
}

function truncate(s: string, precision?: number): string {
  return precision === undefined ? s : [...s].slice(0, precision).join("");
}

function signed(s: string, negative: boolean, f: Spec): string {
  if (negative) return `-${s}`;
  if (f.plus) return `+${s}`;
  if (f.space) return ` ${s}`;
  return s;
}

function formatInteger(v: unknown, verb: string, f: Spec): string {
  if (typeof v === "string" && (verb === "x" || verb === "X")) {
    const hex = Buffer.from(v, "utf8").toString("hex");
    return pad(verb === "X" ? hex.toUpperCase() : hex, f, false);
  }
  const t = numberType(v);
  if (t !== "int" && t !== "int64") return badVerb(v, verb);
  const n = numberValue(v)!;
  const radix = { d: 10, x: 16, X: 16, o: 8, b: 2 }[verb]!;
  let digits = Math.abs(n).toString(radix);
  if (verb === "X") digits = digits.toUpperCase();
  if (f.precision !== undefined) digits = digits.padStart(f.precision, "0");
  if (f.sharp && radix === 16) digits = (verb === "X" ? "0X" : "0x") + digits;
  if (f.sharp && radix === 8) digits = `0${digits}`;
  return pad(signed(digits, n < 0, f), f, f.precision === undefined);
}

function formatFloat(v: unknown, verb: string, f: Spec): string {
  if (numberType(v) !== "float64") return badVerb(v, verb);
  const n = numberValue(v)!;
  const abs = Math.abs(n);
  let s: string;
  if (verb === "f" || verb === "F") s = abs.toFixed(f.precision ?? 6);
  else if (verb === "e" || verb === "E") s = goExponent(abs.toExponential(f.precision ?? 6));
  else s = f.precision === undefined ? shortestG(abs, 21) : goExponent(abs.toPrecision(f.precision || 1));
  if (verb === "E" || verb === "G") s = s.toUpperCase();
  return pad(signed(s, n < 0 || Object.is(n, -0), f), f, true);
}

/** JS writes `1e+6`; Go writes `1e+06`. */
function goExponent(s: string): string {
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** Go's shortest %g / %v float formatting: exponent when exp < -4 or exp >= threshold. */
function shortestG(abs: number, threshold: number): string {
  if (abs === 0) return "0";
  if (!Number.isFinite(abs)) return abs === Infinity ? "+Inf" : "NaN";
  const exponential = abs.toExponential();
  const e = Number(exponential.split("e")[1]);
  if (e < -4 || e >= threshold) return goExponent(exponential);
  return String(abs).includes("e") ? abs.toFixed(Math.max(0, -e + 20)).replace(/\.?0+$/, "") : String(abs);
}

/** Go's %v. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (v instanceof GoNumber) return v.type === "float64" ? formatFloatV(v.value) : String(v.value);
  if (typeof v === "number") return Number.isInteger(v) ? v.toFixed(0) : formatFloatV(v);
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(" ")}]`;
  if (v instanceof GoOpaque) return formatValue(v.value);
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${formatValue(o[k])}`)
    .join(" ")}]`;
}

function formatFloatV(n: number): string {
  const s = shortestG(Math.abs(n), 21);
  return n < 0 ? `-${s}` : s;
}
