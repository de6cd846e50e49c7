import { compile, registerFunction, search, TYPE_ANY, TYPE_ARRAY, TYPE_NUMBER, TYPE_OBJECT, TYPE_STRING, type JSONValue } from "@jmespath-community/jmespath";
import semver from "semver";
import YAML from "yaml";
import { compileRe2 } from "../../go/re2.js";
import { parseDuration } from "./go-values.js";
import { formatDuration } from "../../go/duration.js";
import { formatQuantity, fromNumber, parseQuantity, Quantity, scale } from "../../cel/quantity.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * JMESPath as Kyverno has it (kyverno/go-jmespath, a fork of the community edition, which this is
 * the TypeScript implementation of) plus Kyverno's own functions that need no cluster. A plain
 * path to a key that is not there is an error ("Unknown key"), as in the fork; `a || b` and
 * functions see null.
 */

export class NotFound extends Error {}

const S = [TYPE_STRING];
const N = [TYPE_NUMBER];
const A = [TYPE_ANY];
type Fn = (args: any) => unknown;
const reg = (name: string, fn: Fn, signature: { types: number[]; optional?: boolean; variadic?: boolean }[]) =>
  registerFunction(name, fn as never, signature as never, { override: true });

let clock: () => Date = () => new Date();
export function setJmespathClock(now: () => Date): void {
  clock = now;
}

function registerKyvernoFunctions(): void {
  reg("compare", ([a, b]: [string, string]) => (a < b ? -1 : a > b ? 1 : 0), [{ types: S }, { types: S }]);
  reg("equal_fold", ([a, b]: [string, string]) => a.toLowerCase() === b.toLowerCase(), [{ types: S }, { types: S }]);
  reg("replace", ([s, a, b, n]: [string, string, string, number]) => goReplace(s, a, b, n), [{ types: S }, { types: S }, { types: S }, { types: N }]);
  reg("replace_all", ([s, a, b]: [string, string, string]) => s.split(a).join(b), [{ types: S }, { types: S }, { types: S }]);
  reg("to_upper", ([s]: [string]) => s.toUpperCase(), [{ types: S }]);
  reg("to_lower", ([s]: [string]) => s.toLowerCase(), [{ types: S }]);
  reg("trim", ([s, cut]: [string, string]) => trimSet(s, cut), [{ types: S }, { types: S }]);
  reg("trim_prefix", ([s, p]: [string, string]) => (s.startsWith(p) ? s.slice(p.length) : s), [{ types: S }, { types: S }]);
  reg("split", ([s, sep]: [string, string]) => s.split(sep), [{ types: S }, { types: S }]);
  reg("regex_replace_all", ([re, src, repl]: [string, unknown, unknown]) => compileRe2(re).matcher(asText(src)).replaceAll(asText(repl)), [
    { types: S },
    { types: [TYPE_STRING, TYPE_NUMBER] },
    { types: [TYPE_STRING, TYPE_NUMBER] },
  ]);
  reg(
    "regex_replace_all_literal",
    ([re, src, repl]: [string, unknown, unknown]) => compileRe2(re).matcher(asText(src)).replaceAll(asText(repl).replace(/\$/g, "\\$")),
    [{ types: S }, { types: [TYPE_STRING, TYPE_NUMBER] }, { types: [TYPE_STRING, TYPE_NUMBER] }],
  );
  reg("regex_match", ([re, src]: [string, unknown]) => compileRe2(re).matcher(asText(src)).find(), [{ types: S }, { types: [TYPE_STRING, TYPE_NUMBER] }]);
  reg("pattern_match", ([p, src]: [string, unknown]) => wildcardMatch(p, asText(src)), [{ types: S }, { types: [TYPE_STRING, TYPE_NUMBER] }]);
  reg("label_match", ([sel, labels]: [Record<string, string>, Record<string, unknown>]) => Object.entries(sel).every(([k, v]) => labels[k] === v), [
    { types: [TYPE_OBJECT] },
    { types: [TYPE_OBJECT] },
  ]);
  reg(
    "to_boolean",
    ([s]: [string]) => {
      const v = s.toLowerCase();
      if (v !== "true" && v !== "false") throw new Error(`JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: '${s}')`);
      return v === "true";
    },
    [{ types: S }],
  );
  reg("add", ([a, b]: [unknown, unknown]) => arithmetic(a, b, "add"), [{ types: A }, { types: A }]);
  reg("subtract", ([a, b]: [unknown, unknown]) => arithmetic(a, b, "subtract"), [{ types: A }, { types: A }]);
  reg("multiply", ([a, b]: [unknown, unknown]) => arithmetic(a, b, "multiply"), [{ types: A }, { types: A }]);
  reg("divide", ([a, b]: [unknown, unknown]) => arithmetic(a, b, "divide"), [{ types: A }, { types: A }]);
  reg("modulo", ([a, b]: [unknown, unknown]) => arithmetic(a, b, "modulo"), [{ types: A }, { types: A }]);
  reg("round", ([n, d]: [number, number]) => Math.round(n * 10 ** d) / 10 ** d, [{ types: N }, { types: N }]);
  reg("base64_decode", ([s]: [string]) => Buffer.from(s, "base64").toString("utf8"), [{ types: S }]);
  reg("base64_encode", ([s]: [string]) => Buffer.from(s, "utf8").toString("base64"), [{ types: S }]);
  reg("path_canonicalize", ([s]: [string]) => canonicalPath(s), [{ types: S }]);
  reg("truncate", ([s, n]: [string, number]) => [...s].slice(0, Math.max(0, Math.trunc(n))).join(""), [{ types: S }, { types: N }]);
  reg(
    "semver_compare",
    ([v, range]: [string, string]) => {
      const version = semver.coerce(v, { loose: true }) ?? semver.parse(v);
      if (!version) throw new Error(`JMESPath function 'semver_compare': invalid version ${JSON.stringify(v)}`);
      return semver.satisfies(version, range.replace(/,/g, " "), { loose: true });
    },
    [{ types: S }, { types: S }],
  );
  reg("parse_json", ([s]: [string]) => JSON.parse(s), [{ types: S }]);
  reg("parse_yaml", ([s]: [string]) => YAML.parse(s, { maxAliasCount: 100 }), [{ types: S }]);
  reg("lookup", ([o, k]: [unknown, unknown]) => (Array.isArray(o) ? (o[Number(k)] ?? null) : ((o as Record<string, unknown>)[String(k)] ?? null)), [
    { types: [TYPE_OBJECT, TYPE_ARRAY] },
    { types: [TYPE_STRING, TYPE_NUMBER] },
  ]);
  reg("items", ([o, keyName, valName]: [unknown, string?, string?]) => items(o, keyName, valName), [
    { types: [TYPE_OBJECT, TYPE_ARRAY] },
    { types: S, optional: true },
    { types: S, optional: true },
  ]);
  reg("object_from_lists", ([keys, values]: [unknown[], unknown[]]) => Object.fromEntries(keys.map((k, i) => [String(k), values[i] ?? null])), [
    { types: [TYPE_ARRAY] },
    { types: [TYPE_ARRAY] },
  ]);
  reg("time_now", () => rfc3339(clock()), []);
  reg("time_now_utc", () => rfc3339(clock()), []);
  reg("time_since", ([layout, a, b]: [string, string, string]) => goDuration((b ? parseTime(b) : clock().getTime()) - parseTime(a, layout)), [
    { types: S },
    { types: S },
    { types: S },
  ]);
  reg("time_add", ([t, d]: [string, string]) => rfc3339(new Date(parseTime(t) + (parseDuration(d) ?? NaN) * 1000)), [{ types: S }, { types: S }]);
  reg("time_before", ([a, b]: [string, string]) => parseTime(a) < parseTime(b), [{ types: S }, { types: S }]);
  reg("time_after", ([a, b]: [string, string]) => parseTime(a) > parseTime(b), [{ types: S }, { types: S }]);
  reg("time_between", ([t, a, b]: [string, string, string]) => parseTime(t) > parseTime(a) && parseTime(t) < parseTime(b), [
    { types: S },
    { types: S },
    { types: S },
  ]);
  reg("time_diff", ([a, b]: [string, string]) => goDuration(parseTime(b) - parseTime(a)), [{ types: S }, { types: S }]);
  reg("time_utc", ([t]: [string]) => rfc3339(new Date(parseTime(t))), [{ types: S }]);
}

registerKyvernoFunctions();

function asText(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  throw new Error(`expected a string or a number, got ${JSON.stringify(v)}`);
}

function trimSet(s: string, cut: string): string {
  const set = new Set([...cut]);
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && set.has(chars[a]!)) a++;
  while (b > a && set.has(chars[b - 1]!)) b--;
  return chars.slice(a, b).join("");
}

function goReplace(s: string, a: string, b: string, n: number): string {
  if (n < 0) return s.split(a).join(b);
  let out = s;
  let from = 0;
  for (let i = 0; i < n; i++) {
    const at = out.indexOf(a, from);
    if (at < 0) break;
    out = out.slice(0, at) + b + out.slice(at + a.length);
    from = at + b.length;
  }
  return out;
}

function canonicalPath(p: string): string {
  const abs = p.startsWith("/");
  const parts: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  const joined = parts.join("/");
  return abs ? `/${joined}` : joined || ".";
}

function items(o: unknown, keyName?: string, valName?: string): unknown {
  if (keyName === undefined) {
    if (Array.isArray(o)) throw new Error("items() of an array needs a key and a value name");
    return Object.entries(o as object).map(([k, v]) => [k, v]);
  }
  if (Array.isArray(o)) return o.map((v, i) => ({ [keyName]: i, [valName ?? "value"]: v }));
  return Object.keys(o as object)
    .sort()
    .map((k) => ({ [keyName]: k, [valName ?? "value"]: (o as Record<string, unknown>)[k] }));
}

type Op = "add" | "subtract" | "multiply" | "divide" | "modulo";
type Operand = { q: Quantity; binary: boolean } | { d: number } | { n: number };

/** Kyverno's arithmetic operands: a number, else a quantity, else a duration (in that order, as Kyverno tries them). */
function operand(v: unknown, op: Op): Operand {
  if (typeof v === "number") return { n: v };
  if (typeof v === "string") {
    const q = parseQuantity(v);
    if (q) return { q, binary: /[KMGTPE]i$/.test(v) };
    const d = parseDuration(v);
    if (d !== undefined) return { d };
  }
  throw new Error(`JMESPath function '${op}': invalid operand`);
}

function arithmetic(a: unknown, b: unknown, op: Op): unknown {
  const x = operand(a, op);
  const y = operand(b, op);
  const mismatch = () => new Error(`JMESPath function '${op}': types mismatch`);
  const zero = () => new Error(`JMESPath function '${op}': Zero divisor passed`);
  if ("n" in x && "n" in y) {
    if ((op === "divide" || op === "modulo") && y.n === 0) throw zero();
    if (op === "modulo" && (!Number.isInteger(x.n) || !Number.isInteger(y.n)))
      throw new Error(`JMESPath function 'modulo': non-integer argument(s) passed for modulo`);
    return op === "add" ? x.n + y.n : op === "subtract" ? x.n - y.n : op === "multiply" ? x.n * y.n : op === "divide" ? x.n / y.n : x.n % y.n;
  }
  if ("q" in x || "q" in y) {
    const q = "q" in x ? x : (y as { q: Quantity; binary: boolean });
    if ("q" in x && "q" in y) {
      if (op === "add") return formatQuantity(x.q.add(y.q), x.binary);
      if (op === "subtract") return formatQuantity(x.q.add(y.q, -1n), x.binary);
      if (y.q.num === 0n && (op === "divide" || op === "modulo")) throw zero();
      if (op === "divide") return Number(x.q.num * y.q.den) / Number(x.q.den * y.q.num);
      if (op === "modulo") {
        const n = x.q.num * y.q.den;
        const d = x.q.den * y.q.num;
        return formatQuantity(new Quantity(n - (n / d) * d, x.q.den * y.q.den), x.binary);
      }
      throw mismatch();
    }
    const other = "n" in x ? x : "n" in y ? y : undefined;
    if (!other) throw mismatch();
    const f = fromNumber(other.n);
    if (op === "multiply") return formatQuantity(scale(q.q, f.num, f.den), q.binary);
    if (op === "divide" && "q" in x) {
      if (f.num === 0n) throw zero();
      return formatQuantity(scale(x.q, f.den, f.num), x.binary);
    }
    throw mismatch();
  }
  if ("d" in x && "d" in y) {
    if (op === "add") return goDuration((x.d + y.d) * 1000);
    if (op === "subtract") return goDuration((x.d - y.d) * 1000);
    if (y.d === 0 && (op === "divide" || op === "modulo")) throw zero();
    if (op === "divide") return x.d / y.d;
    if (op === "modulo") return goDuration((x.d % y.d) * 1000);
    throw mismatch();
  }
  const d = "d" in x ? x.d : (y as { d: number }).d;
  const n = "n" in x ? x.n : (y as { n: number }).n;
  if (op === "multiply") return goDuration(d * n * 1000);
  if (op === "divide" && "d" in x) {
    if (n === 0) throw zero();
    return goDuration((d / n) * 1000);
  }
  throw mismatch();
}

function parseTime(s: string, _layout?: string): number {
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new Error(`cannot parse time ${JSON.stringify(s)}`);
  return t;
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** time.Duration.String() of milliseconds. */
function goDuration(ms: number): string {
  return formatDuration(Math.round(ms * 1e6));
}

type Node = { type: string; name?: string; value?: unknown; left?: Node; right?: Node };

/** The keys of a plain path (`a.b."c.d"[0]`), or undefined for anything else. */
function plainPath(node: Node): (string | number)[] | undefined {
  switch (node.type) {
    case "Field":
      return [node.name!];
    case "Subexpression":
    case "IndexExpression": {
      const left = plainPath(node.left!);
      const right = plainPath(node.right!);
      return left && right ? [...left, ...right] : undefined;
    }
    case "Index":
      return [node.value as number];
    default:
      return undefined;
  }
}

const compiled = new Map<string, (string | number)[] | undefined>();

/** Evaluates `expression` on `data`; a plain path to a missing key throws NotFound, as Kyverno's fork does. */
export function query(data: unknown, expression: string): unknown {
  const result = search(data as JSONValue, expression);
  if (result !== null) return result;
  let path = compiled.get(expression);
  if (!compiled.has(expression)) {
    path = plainPath(compile(expression) as unknown as Node);
    compiled.set(expression, path);
  }
  if (!path) return null;
  let node: unknown = data;
  for (const key of path) {
    if (node === null || node === undefined) return null;
    if (typeof key === "string" && typeof node === "object" && !Array.isArray(node)) {
      if (!Object.hasOwn(node as object, key)) throw new NotFound(`Unknown key "${key}" in path`);
      node = (node as Record<string, unknown>)[key];
    } else return null;
  }
  return null;
}
