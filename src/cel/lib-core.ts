import { Optional } from "@marcbachmann/cel-js";
import { compileRe2 } from "../go/re2.js";
import { goReplace } from "../go/strings.js";
import { MAX_COST, OverBudget } from "./budget.js";
import { compare, equal, extreme, sum } from "./compare.js";
import { formatString } from "./format.js";
import type { Registrar } from "./registrar.js";

/** Lists, regex (on RE2), strings, sets, math, optional and conversions: Kubernetes' libraries and cel-go's extensions, where cel-js lacks them. */
export function registerCoreLibraries({ env, fn, ns }: Registrar): void {
  // Lists (Kubernetes) and the lists extension.
  fn("list.isSorted(): bool", (l: unknown[]) => l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0));
  fn("list.sum(): dyn", (l: unknown[]) => sum(l));
  fn("list.min(): dyn", (l: unknown[]) => extreme(l, -1));
  fn("list.max(): dyn", (l: unknown[]) => extreme(l, 1));
  fn("list.indexOf(dyn): int", (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => equal(x, v))));
  fn("list.lastIndexOf(dyn): int", (l: unknown[], v: unknown) => BigInt(l.findLastIndex((x) => equal(x, v))));
  fn("list.slice(int, int): list", (l: unknown[], a: bigint, b: bigint) => {
    if (a < 0n || b < a || b > BigInt(l.length)) throw new Error(`cannot slice(${a}, ${b}), list is length ${l.length}`);
    return l.slice(Number(a), Number(b));
  });
  fn("list.flatten(): list", (l: unknown[]) => l.flatMap((x) => (Array.isArray(x) ? x : [x])));
  fn("list.reverse(): list", (l: unknown[]) => [...l].reverse());
  fn("list.distinct(): list", (l: unknown[]) => l.filter((x, i) => l.findIndex((y) => equal(x, y)) === i));
  fn("list.sort(): list", (l: unknown[]) => [...l].sort(compare));

  // Regex (Kubernetes), on RE2; `matches` is sent here too (see source.ts).
  fn("string.find(string): string", (s: string, p: string) => findAll(s, p, 1)[0] ?? "");
  fn("string.findAll(string): list<string>", (s: string, p: string) => findAll(s, p, Infinity));
  fn("string.findAll(string, int): list<string>", (s: string, p: string, n: bigint) => findAll(s, p, n < 0n ? Infinity : Number(n)));
  fn("string.re2Matches(string): bool", (s: string, p: string) => compileRe2(p).matcher(s).find());
  fn("re2Matches(string, string): bool", (s: string, p: string) => compileRe2(p).matcher(s).find());

  // Optional types: what cel-js lacks of cel-go's library.
  fn("OptionalNamespace.ofNonZeroValue(dyn): optional<dyn>", (_: unknown, v: unknown) => (isZero(v) ? Optional.none() : Optional.of(v)));
  env.registerOperator(
    "optional<dyn> == optional<dyn>",
    (a: Optional, b: Optional) => a.hasValue() === b.hasValue() && (!a.hasValue() || equal(a.value(), b.value())),
  );
  fn("dyn.orValueLenient(dyn): dyn", (a: unknown, fallback: unknown) => (a instanceof Optional ? a.orValue(fallback) : a));

  // Conversions cel-js lacks: timestamps and durations as text, timestamps as seconds.
  fn("string(google.protobuf.Timestamp): string", (t: Date) => rfc3339(t));
  fn("int(google.protobuf.Timestamp): int", (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));
  fn("string(google.protobuf.Duration): string", (d: { seconds: bigint; nanos: number }) => durationText(d));

  // Strings extension: what cel-js lacks.
  fn("string.charAt(int): string", (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
    return chars[Number(i)] ?? "";
  });
  fn("string.replace(string, string): string", (s: string, a: string, b: string) => replace(s, a, b, -1));
  fn("string.replace(string, string, int): string", (s: string, a: string, b: string, n: bigint) => replace(s, a, b, Number(n)));
  fn("string.reverse(): string", (s: string) => [...s].reverse().join(""));
  fn("string.format(list): string", (s: string, args: unknown[]) => formatString(s, args));
  const strings = ns("strings");
  fn(`${strings}.quote(string): string`, (_: unknown, s: string) => JSON.stringify(s));

  // Sets (Kubernetes).
  const sets = ns("sets");
  fn(`${sets}.contains(list, list): bool`, (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => a.some((y) => equal(x, y))));
  fn(
    `${sets}.equivalent(list, list): bool`,
    (_: unknown, a: unknown[], b: unknown[]) => a.every((x) => b.some((y) => equal(x, y))) && b.every((x) => a.some((y) => equal(x, y))),
  );
  fn(`${sets}.intersects(list, list): bool`, (_: unknown, a: unknown[], b: unknown[]) => a.some((x) => b.some((y) => equal(x, y))));

  // Math extension (the common part).
  const math = ns("math");
  for (const name of ["greatest", "least"]) {
    const pick = (values: unknown[]) => extreme(values, name === "greatest" ? 1 : -1);
    fn(`${math}.${name}(list): dyn`, (_: unknown, l: unknown[]) => pick(l));
    fn(`${math}.${name}(dyn, dyn): dyn`, (_: unknown, a: unknown, b: unknown) => pick([a, b]));
    fn(`${math}.${name}(dyn, dyn, dyn): dyn`, (_: unknown, a: unknown, b: unknown, c: unknown) => pick([a, b, c]));
  }
  fn(`${math}.abs(int): int`, (_: unknown, a: bigint) => (a < 0n ? -a : a));
  fn(`${math}.abs(double): double`, (_: unknown, a: number) => Math.abs(a));
  fn(`${math}.ceil(double): double`, (_: unknown, a: number) => Math.ceil(a));
  fn(`${math}.floor(double): double`, (_: unknown, a: number) => Math.floor(a));
  fn(`${math}.round(double): double`, (_: unknown, a: number) => Math.sign(a) * Math.round(Math.abs(a)));
}

function rfc3339(t: Date): string {
  return t.toISOString().replace(/\.000Z$/, "Z");
}

/** A duration as CEL prints it: seconds with the fraction that is there (`1.5s`). */
function durationText(d: { seconds: bigint; nanos: number }): string {
  const total = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const sign = total < 0n ? "-" : "";
  const abs = total < 0n ? -total : total;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${sign}${whole}${frac ? `.${frac}` : ""}s`;
}

function isZero(v: unknown): boolean {
  if (v === null || v === false || v === "" || v === 0 || v === 0n) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Uint8Array) return v.length === 0;
  return !!v && typeof v === "object" && Object.getPrototypeOf(v) === null && Object.keys(v).length === 0;
}

function replace(s: string, a: string, b: string, n: number): string {
  try {
    return goReplace(s, a, b, n, MAX_COST);
  } catch (err) {
    throw new OverBudget((err as Error).message);
  }
}

function findAll(text: string, pattern: string, limit: number): string[] {
  const matcher = compileRe2(pattern).matcher(text);
  const out: string[] = [];
  while (out.length < limit && matcher.find()) out.push(matcher.group() ?? "");
  return out;
}
