import { parseQuantity, type Quantity } from "../../cel/quantity.js";

/** Go's renderings and parsings that Kyverno's operators lean on. */

/** time.ParseDuration, in seconds; undefined when the text is not a Go duration. */
export function parseDuration(text: string): number | undefined {
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (!m) return text === "0" ? 0 : undefined;
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, "µs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const part of text.replace(/^[+-]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) total += Number(part[1]) * units[part[2]!]!;
  return m[1] === "-" ? -total : total;
}

export function quantity(text: string): Quantity | undefined {
  return parseQuantity(text);
}

/** fmt.Sprint of a JSON value, as Kyverno's In operators stringify keys and values. */
export function goSprint(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "number") return goFloat(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(goSprint).join(" ")}]`;
  return `map[${Object.keys(v as object).sort().map((k) => `${k}:${goSprint((v as Record<string, unknown>)[k])}`).join(" ")}]`;
}

/** %v of a float64: integers without a fraction, large or small ones with an exponent. */
export function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}
