import { parseQuantity, type Quantity } from "../../cel/quantity.js";
import { DurationError, parseDuration as parseGoDuration } from "../../go/duration.js";

/** Go's renderings and parsings that Kyverno's operators lean on. */

/** time.ParseDuration, in seconds; undefined when the text is not a Go duration. */
export function parseDuration(text: string): number | undefined {
  try {
    return parseGoDuration(text) / 1e9;
  } catch (err) {
    if (err instanceof DurationError) return undefined;
    throw err;
  }
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
  return `map[${Object.keys(v as object)
    .sort()
    .map((k) => `${k}:${goSprint((v as Record<string, unknown>)[k])}`)
    .join(" ")}]`;
}

/** %v of a float64: integers without a fraction, large or small ones with an exponent. */
export function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}
