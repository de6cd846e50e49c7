import { createHash } from "node:crypto";
import { compileRe2 } from "../../../go/re2.js";
import { formatValue, goSprintf } from "../gofmt.js";
import { float64, goJsonMarshal, goTypeName, numberType, numberValue } from "../gotypes.js";
import { wrapError } from "./errors.js";
import { parseQuantity } from "./quantity.js";
import type { ConvertTransform, MatchPattern, MatchTransform, MathTransform, StringTransform, Transform } from "./types.js";
import { convertFormat, isValidIoType, validateConvertTransform, validateMathTransform } from "./validate.js";

/**
 * The transforms of function-patch-and-transform with Go's value semantics: numbers keep their
 * Go type (int64 vs float64) through a chain, regexps are RE2, errors read as the Go function's.
 */

export function resolveTransforms(transforms: Transform[] | undefined, input: unknown): unknown {
  let value = input;
  for (const [i, t] of (transforms ?? []).entries()) {
    try {
      value = resolve(t, value);
    } catch (err) {
      throw wrapError(err, `transform at index ${i} returned error`);
    }
  }
  return value;
}

export function resolve(t: Transform, input: unknown): unknown {
  const resolvers: Record<string, (config: never, input: unknown) => unknown> = {
    math: resolveMath,
    map: resolveMap,
    match: resolveMatch,
    string: resolveString,
    convert: resolveConvert,
  };
  const type = t.type ?? "";
  const resolver = resolvers[type];
  if (!resolver) throw new Error(`transform type ${type} is not supported`);
  const config = t[type as keyof Transform];
  if (config == null) throw new Error(`given transform type ${type} requires configuration`);
  try {
    return resolver(config as never, input);
  } catch (err) {
    throw wrapError(err, `${type} transform could not resolve`);
  }
}

export function resolveMath(t: MathTransform, input: unknown): unknown {
  const invalid = validateMathTransform(t);
  if (invalid) throw invalid;
  const type = numberType(input);
  if (!type) throw new Error(`input is required to be a number for math transformer, got ${goTypeName(input)}`);
  const n = numberValue(input)!;
  if (t.type === "Multiply") {
    return type === "float64" ? float64(n * t.multiply!) : n * t.multiply!;
  }
  const asInt = Math.trunc(n);
  if (t.type === "ClampMin" && asInt < t.clampMin!) return t.clampMin!;
  if (t.type === "ClampMax" && asInt > t.clampMax!) return t.clampMax!;
  return input;
}

export function resolveMap(pairs: Record<string, unknown>, input: unknown): unknown {
  if (typeof input !== "string") throw new Error(`type ${goTypeName(input)} is not supported for map transform`);
  if (!Object.hasOwn(pairs, input)) throw new Error(`key ${input} is not found in map`);
  return decodedJson(pairs[input]);
}

/** A value as Go's json.Unmarshal into `any` gives it: every number is a float64. */
function decodedJson(v: unknown): unknown {
  if (typeof v === "number") return float64(v);
  if (Array.isArray(v)) return v.map(decodedJson);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decodedJson(x)]));
  return v ?? null;
}

export function resolveMatch(t: MatchTransform, input: unknown): unknown {
  for (const [i, p] of (t.patterns ?? []).entries()) {
    let matched: boolean;
    try {
      matched = matches(p, input);
    } catch (err) {
      throw wrapError(err, `cannot match pattern at index ${i}`);
    }
    if (matched) return decodedJson(p.result);
  }
  if (t.fallbackTo === "Input") {
    if (t.fallbackValue != null) throw new Error("cannot set both a fallback value and the fallback to input flag");
    return input;
  }
  return decodedJson(t.fallbackValue);
}

function matches(p: MatchPattern, input: unknown): boolean {
  if (p.type === "literal") {
    if (p.literal == null) throw new Error("literal is required by type literal");
    if (typeof input !== "string") throw new Error(`unsupported input type '${goTypeName(input)}'`);
    return input === p.literal;
  }
  if (p.type === "regexp") {
    if (p.regexp == null) throw new Error("regexp is required by type regexp");
    const re = compileRegexp(p.regexp, "cannot compile regexp");
    if (input == null) throw new Error("unsupported input type 'null'");
    if (typeof input !== "string") throw new Error(`unsupported input type '${goTypeName(input)}'`);
    return re.matcher(input).find();
  }
  throw new Error(`unsupported pattern type '${p.type ?? ""}'`);
}

function compileRegexp(pattern: string, context: string) {
  try {
    return compileRe2(pattern);
  } catch (err) {
    throw wrapError(err, context);
  }
}

export function resolveString(t: StringTransform, input: unknown): string {
  const missing = (what: string) => new Error(`string transform of type ${t.type} ${what} is not set`);
  switch (t.type) {
    case "Format":
      if (t.fmt == null) throw missing("fmt");
      return goSprintf(t.fmt, [input]);
    case "Convert":
      if (t.convert == null) throw missing("convert");
      return stringConvert(t.convert, input);
    case "TrimPrefix":
    case "TrimSuffix": {
      if (t.trim == null) throw missing("trim");
      const s = formatValue(input);
      if (t.type === "TrimPrefix") return s.startsWith(t.trim) ? s.slice(t.trim.length) : s;
      return t.trim && s.endsWith(t.trim) ? s.slice(0, s.length - t.trim.length) : s;
    }
    case "Regexp":
      if (t.regexp == null) throw missing("regexp");
      return stringRegexp(input, t.regexp.match ?? "", t.regexp.group ?? 0);
    case "Join":
      if (t.join == null) throw missing("join");
      return stringJoin(input, t.join.separator ?? "");
    case "Replace":
      if (t.replace == null) throw missing("replace");
      return formatValue(input)
        .split(t.replace.search ?? "")
        .join(t.replace.replace ?? "");
    default:
      throw new Error(`type ${t.type} is not supported for string transform type`);
  }
}

function stringConvert(conversion: string, input: unknown): string {
  const str = formatValue(input);
  switch (conversion) {
    case "ToUpper":
      return str.toUpperCase();
    case "ToLower":
      return str.toLowerCase();
    case "ToJson":
      return goJsonMarshal(input);
    case "ToBase64":
      return Buffer.from(str, "utf8").toString("base64");
    case "FromBase64":
      return decodeBase64Strict(str);
    case "ToSha1":
    case "ToSha256":
    case "ToSha512": {
      const algorithm = conversion.slice(2).toLowerCase();
      return createHash(algorithm).update(hashInput(input)).digest("hex");
    }
    case "ToAdler32":
      return String(adler32(hashInput(input)));
    default:
      throw new Error(`type ${conversion} is not supported for string convert`);
  }
}

function hashInput(input: unknown): Buffer {
  return Buffer.from(typeof input === "string" ? input : goJsonMarshal(input), "utf8");
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}

const B64 = /[A-Za-z0-9+/]/;

/** Go's base64.StdEncoding.DecodeString: strict padding, errors name the offending byte. */
function decodeBase64Strict(s: string): string {
  const corrupt = (at: number) => wrapError(new Error(`illegal base64 data at input byte ${at}`), "string is not valid base64");
  const clean: string[] = [];
  let quantum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\r" || c === "\n") continue;
    if (c === "=") {
      if (quantum < 2) throw corrupt(i);
      const rest = s.slice(i).replace(/[\r\n]/g, "");
      const padNeeded = 4 - quantum;
      if (!rest.startsWith("=".repeat(padNeeded))) throw corrupt(i);
      if (rest.length > padNeeded) throw corrupt(i + padNeeded);
      clean.push(c.repeat(padNeeded));
      quantum = 0;
      break;
    }
    if (!B64.test(c)) throw corrupt(i);
    clean.push(c);
    quantum = (quantum + 1) % 4;
  }
  if (quantum !== 0) throw corrupt(s.length - quantum);
  return Buffer.from(clean.join(""), "base64").toString("utf8");
}

function stringRegexp(input: unknown, pattern: string, group: number): string {
  const re = compileRegexp(pattern, "could not compile regexp");
  const m = re.matcher(formatValue(input));
  if (!m.find() || group > m.groupCount()) {
    throw new Error(`regexp ${JSON.stringify(pattern)} had no matches for group ${group}`);
  }
  return m.group(group) ?? "";
}

function stringJoin(input: unknown, separator: string): string {
  if (!Array.isArray(input)) throw new Error("could not parse input array");
  if (input.length === 0) return "";
  const joined = input.map((v) => `${formatValue(v)}${separator}`).join("");
  // Go drops one trailing byte, whatever the separator's length.
  return separator.length > 0 ? joined.slice(0, -1) : joined;
}

type Conversion = (input: unknown) => unknown;

const CONVERSIONS: Record<string, Conversion> = {
  "string>int64>none": (i) => parseGoInt(i as string),
  "string>bool>none": (i) => parseGoBool(i as string),
  "string>float64>none": (i) => float64(parseGoFloat(i as string)),
  "string>float64>quantity": (i) => float64(parseQuantity(i as string)),
  "int64>string>none": (i) => String(numberValue(i)),
  "int64>bool>none": (i) => numberValue(i) === 1,
  "int64>float64>none": (i) => float64(numberValue(i)!),
  "bool>string>none": (i) => String(i),
  "bool>int64>none": (i) => (i ? 1 : 0),
  "bool>float64>none": (i) => float64(i ? 1 : 0),
  "float64>string>none": (i) => formatFloatF(numberValue(i)!),
  "float64>int64>none": (i) => Math.trunc(numberValue(i)!),
  "float64>bool>none": (i) => numberValue(i) === 1,
  "string>object>json": (i) => parseJsonAs(i as string, "object"),
  "string>array>json": (i) => parseJsonAs(i as string, "array"),
};

/** The conversion for values of Go type `from`; throws when the pair and format are unsupported. */
export function getConversionFunc(t: ConvertTransform, from: string): Conversion {
  const to = t.toType === "int" ? "int64" : (t.toType ?? "");
  const normalizedFrom = from === "int" ? "int64" : from;
  if (to === normalizedFrom) return (input) => input;
  const fn = CONVERSIONS[`${normalizedFrom}>${to}>${convertFormat(t)}`];
  if (!fn) throw new Error(`conversion from ${from} to ${to} is not supported with format ${convertFormat(t)}`);
  return fn;
}

export function resolveConvert(t: ConvertTransform, input: unknown): unknown {
  const invalid = validateConvertTransform(t);
  if (invalid) throw invalid;
  const from = goTypeName(input);
  if (!isValidIoType(from)) throw new Error(`invalid input type ${from}`);
  return getConversionFunc(t, from)(input);
}

function parseGoInt(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) && Math.abs(n) > 2 ** 63) {
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return n;
}

function parseGoBool(s: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(s)}: invalid syntax`);
}

function parseGoFloat(s: string): number {
  const special: Record<string, number> = { inf: Infinity, "+inf": Infinity, "-inf": -Infinity, infinity: Infinity, nan: NaN };
  if (s.toLowerCase() in special) return special[s.toLowerCase()]!;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s.replaceAll("_", ""))) {
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`);
  }
  return Number(s.replaceAll("_", ""));
}

/** strconv.FormatFloat(f, 'f', -1, 64): shortest digits, never an exponent. */
function formatFloatF(n: number): string {
  if (Number.isInteger(n) || !String(n).includes("e")) return Number.isInteger(n) ? n.toFixed(0) : String(n);
  return n.toFixed(20).replace(/\.?0+$/, "");
}

function parseJsonAs(s: string, kind: "object" | "array"): unknown {
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch (err) {
    throw new Error(`invalid character in JSON input: ${(err as Error).message}`);
  }
  const ok = kind === "array" ? Array.isArray(value) : value !== null && typeof value === "object" && !Array.isArray(value);
  if (!ok && value !== null) {
    throw new Error(`json: cannot unmarshal ${goJsonKind(value)} into Go value of type ${kind === "array" ? "[]interface {}" : "map[string]interface {}"}`);
  }
  return decodedJson(value ?? (kind === "array" ? null : {}));
}

function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return "number";
  return typeof v;
}
