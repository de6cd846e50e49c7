import { pointerToFieldPath, toPointer } from "../manifest/pointer.js";

/**
 * Comparing what a test wants with what was rendered: as a subset (CompositionTest assertions,
 * with the semantics of the chainsaw checks `up test` runs) or as whole objects (golden files).
 */

/** One place where the wanted value and the rendered one differ. */
export interface Difference {
  /** JSON pointer inside the object (`/spec/replicas`). */
  pointer: string;
  /** The same as a Crossplane field path (`spec.replicas`), `(root)` for the object itself. */
  path: string;
  /** Absent when the field is not wanted (an extra field or item of a golden comparison). */
  want?: unknown;
  /** Absent when the field was not rendered. */
  got?: unknown;
  /** Said instead of want/got when the difference is not about a value (lengths of lists, expressions). */
  message?: string;
}

type Segment = string | number;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function difference(segments: Segment[], fields: Omit<Difference, "pointer" | "path">): Difference {
  const pointer = toPointer(segments);
  return { pointer, path: pointerToFieldPath(pointer) || "(root)", ...fields };
}

/** Scalars as Go's encoding/json decodes them: numbers compare by value (1 and 1.0 are one number). */
function sameScalar(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "number" && typeof b === "number" && Number(a) === Number(b));
}

/**
 * A chainsaw/kyverno-json expression: a key in parentheses (a projection), a `~` foreach key, or a
 * string value in parentheses (a JMESPath expression). composition-ci does not evaluate them.
 */
function isExpressionKey(key: string): boolean {
  return (key.startsWith("(") && key.endsWith(")")) || key.startsWith("~");
}

function isExpressionValue(value: unknown): boolean {
  return typeof value === "string" && value.length > 1 && value.startsWith("(") && value.endsWith(")");
}

/**
 * Where `got` fails the assertion `want`, as `up test` checks an asserted object (a chainsaw check):
 * a mapping asserts each of its keys (fields it omits are free; an empty mapping asserts only that
 * the value is not null), a list asserts the same length and each item at its position, a scalar
 * asserts equality. Every difference is listed, not only the first.
 */
export function subsetDifferences(want: unknown, got: unknown, at: Segment[] = []): Difference[] {
  if (isObject(want)) {
    if (Object.keys(want).length === 0) return got === null || got === undefined ? [difference(at, { want, got })] : [];
    if (!isObject(got)) return [difference(at, { want, ...(got === undefined ? {} : { got }) })];
    const out: Difference[] = [];
    for (const [key, value] of Object.entries(want)) {
      if (isExpressionKey(key)) {
        out.push(difference([...at, key], { message: "a chainsaw expression key: composition-ci compares values and does not evaluate expressions" }));
        continue;
      }
      if (!(key in got)) out.push(difference([...at, key], { want: value }));
      else out.push(...subsetDifferences(value, got[key], [...at, key]));
    }
    return out;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return [difference(at, { want, ...(got === undefined ? {} : { got }) })];
    if (got.length !== want.length) {
      return [
        difference(at, {
          want,
          got,
          message: `the list has ${got.length} item${got.length === 1 ? "" : "s"}, the assertion ${want.length} (lists compare item by item, in order)`,
        }),
      ];
    }
    return want.flatMap((item, i) => subsetDifferences(item, got[i], [...at, i]));
  }
  if (isExpressionValue(want))
    return [
      difference(at, {
        want,
        ...(got === undefined ? {} : { got }),
        message: "a chainsaw expression value: composition-ci compares values and does not evaluate expressions",
      }),
    ];
  if (got === undefined) return [difference(at, { want })];
  return sameScalar(want, got) ? [] : [difference(at, { want, got })];
}

/**
 * Every difference between two whole objects: fields and list items on one side only, and values
 * that differ. Keys are visited in sorted order, so the listing is stable.
 */
export function objectDifferences(want: unknown, got: unknown, at: Segment[] = []): Difference[] {
  if (isObject(want) && isObject(got)) {
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
    return keys.flatMap((key) => {
      if (!(key in got)) return [difference([...at, key], { want: want[key] })];
      if (!(key in want)) return [difference([...at, key], { got: got[key] })];
      return objectDifferences(want[key], got[key], [...at, key]);
    });
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(want.length, got.length); i++) {
      if (i >= got.length) out.push(difference([...at, i], { want: want[i] }));
      else if (i >= want.length) out.push(difference([...at, i], { got: got[i] }));
      else out.push(...objectDifferences(want[i], got[i], [...at, i]));
    }
    return out;
  }
  if (isObject(want) || isObject(got) || Array.isArray(want) || Array.isArray(got)) return [difference(at, { want, got })];
  return sameScalar(want, got) ? [] : [difference(at, { want, got })];
}

/** A value as a difference shows it: JSON, cut at `max` characters. */
export function showValue(value: unknown, max = 200): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One line for a difference: `spec.replicas: want 3, got 2`. */
export function describeDifference(d: Difference): string {
  if (d.message)
    return `${d.path}: ${d.message}${"want" in d && d.want !== undefined ? ` (want ${showValue(d.want)}${d.got !== undefined ? `, got ${showValue(d.got)}` : ""})` : ""}`;
  if (d.got === undefined) return `${d.path}: want ${showValue(d.want)}, not rendered`;
  if (d.want === undefined) return `${d.path}: rendered ${showValue(d.got)}, not expected`;
  return `${d.path}: want ${showValue(d.want)}, got ${showValue(d.got)}`;
}
