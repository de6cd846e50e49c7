import type { JsonObject } from "../core/json.js";
/**
 * Crossplane field paths (crossplane-runtime's `fieldpath` package): `spec.items[0].name`,
 * `metadata.labels[crossplane.io/claim-name]`, `data['.config.yml']`, `spec.list[*].x`.
 * Errors carry the same wording as the Go implementation, because functions report them verbatim.
 */

export type Segment = { field: string } | { index: number };

export class FieldPathError extends Error {}

/** A lookup that failed because a field or element is absent (not because the path is malformed). */
export class NotFoundError extends FieldPathError {}

export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}

const MAX_INDEX = 2 ** 32 - 1;

function fieldOrIndex(raw: string): Segment {
  if (/^[0-9]+$/.test(raw)) {
    const n = Number(raw);
    if (n <= MAX_INDEX) return { index: n };
  }
  return field(raw);
}

function field(raw: string): Segment {
  return { field: raw.replace(/^['"]+|['"]+$/g, "") };
}

function unexpected(ch: string, pos: number): FieldPathError {
  return new FieldPathError(`unexpected '${ch}' at position ${pos}`);
}

/** Parses a field path into segments; throws FieldPathError with Go's message on bad syntax. */
export function parseFieldPath(path: string): Segment[] {
  const segments: Segment[] = [];
  let pos = 0;
  let start = 0;
  const emitField = () => {
    if (pos > start) segments.push(field(path.slice(start, pos)));
    start = pos;
  };
  for (;;) {
    // Lexing a field name: runs to '.', '[' or the end.
    let next = pos;
    while (next < path.length && path[next] !== "." && path[next] !== "[") {
      if (path[next] === "]") throw unexpected("]", next);
      next++;
    }
    pos = next;
    emitField();
    if (pos >= path.length) return segments;
    if (path[pos] === ".") {
      if (pos === 0 || pos === path.length - 1) throw unexpected(".", pos);
      pos++;
      start = pos;
      if (path[pos] === ".") throw unexpected(".", pos);
      if (path[pos] === "[") throw unexpected("[", pos);
      continue;
    }
    // A left bracket: a field name or index up to the next right bracket.
    if (!path.slice(pos).includes("]")) throw new FieldPathError(`unterminated '[' at position ${pos}`);
    pos++;
    start = pos;
    const rbi = path.indexOf("]", pos) - pos;
    if (rbi === 0) throw unexpected("]", pos);
    const lbi = path.slice(pos, pos + rbi).indexOf("[");
    if (lbi > -1) throw unexpected("[", pos + lbi);
    segments.push(fieldOrIndex(path.slice(pos, pos + rbi)));
    pos += rbi + 1;
    start = pos;
  }
}

export function segmentsToString(segments: Segment[]): string {
  let out = "";
  for (const s of segments) {
    if ("index" in s) out += `[${s.index}]`;
    else if (s.field === "*" || s.field.includes(".")) out += `[${s.field}]`;
    else out += `.${s.field}`;
  }
  return out.replace(/^\./, "");
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseOrWrap(path: string): Segment[] {
  try {
    return parseFieldPath(path);
  } catch (err) {
    throw new FieldPathError(`cannot parse path "${path}": ${(err as Error).message}`);
  }
}

export function getSegments(object: unknown, segments: Segment[]): unknown {
  let it: unknown = object;
  for (let i = 0; i < segments.length; i++) {
    const current = segments[i]!;
    if ("index" in current) {
      if (!Array.isArray(it)) throw new FieldPathError(`${segmentsToString(segments.slice(0, i))}: not an array`);
      if (current.index >= it.length) {
        throw new NotFoundError(`${segmentsToString(segments.slice(0, i + 1))}: no such element`);
      }
      it = it[current.index];
    } else {
      if (!isObject(it)) throw new FieldPathError(`${segmentsToString(segments.slice(0, i))}: not an object`);
      if (!Object.hasOwn(it, current.field)) {
        throw new NotFoundError(`${segmentsToString(segments.slice(0, i + 1))}: no such field`);
      }
      it = it[current.field];
    }
  }
  return it;
}

/** The value at `path`; throws NotFoundError when absent, FieldPathError when malformed. */
export function getValue(object: unknown, path: string): unknown {
  return getSegments(object, parseOrWrap(path));
}

/** The value at `path`, or undefined when absent or malformed. */
export function lookup(object: unknown, path: string): unknown {
  try {
    return getValue(object, path);
  } catch {
    return undefined;
  }
}

export function getString(object: unknown, path: string): string {
  const v = getValue(object, path);
  if (typeof v !== "string") throw new FieldPathError(`${path}: not a string`);
  return v;
}

export function getInteger(object: unknown, path: string): number {
  const v = getValue(object, path);
  if (typeof v !== "number" || !Number.isInteger(v)) throw new FieldPathError(`${path}: not a (int64) number`);
  return v;
}

export function getBool(object: unknown, path: string): boolean {
  const v = getValue(object, path);
  if (typeof v !== "boolean") throw new FieldPathError(`${path}: not a bool`);
  return v;
}

function containerFor(next: Segment): unknown {
  return "index" in next ? new Array(next.index + 1).fill(null) : {};
}

function extendFor(value: unknown, next: Segment): unknown {
  if (!("index" in next) || !Array.isArray(value) || next.index < value.length) return value;
  return [...value, ...new Array(next.index - value.length + 1).fill(null)];
}

/** Writes a JSON copy of `value` at `path`, creating intermediate objects and arrays. */
export function setValue(object: JsonObject, path: string, value: unknown): void {
  setSegments(object, parseOrWrap(path), value);
}

export function setSegments(object: JsonObject, segments: Segment[], value: unknown): void {
  const v = value === undefined ? null : structuredCloneJson(value);
  let it: unknown = object;
  for (let i = 0; i < segments.length; i++) {
    const current = segments[i]!;
    const final = i === segments.length - 1;
    const next = segments[i + 1]!;
    if ("index" in current) {
      if (!Array.isArray(it)) throw new FieldPathError(`${segmentsToString(segments.slice(0, i))} is not an array`);
      if (final) {
        it[current.index] = v;
        return;
      }
      it[current.index] = it[current.index] == null ? containerFor(next) : extendFor(it[current.index], next);
      it = it[current.index];
    } else {
      if (!isObject(it)) throw new FieldPathError(`${segmentsToString(segments.slice(0, i))} is not an object`);
      if (final) {
        it[current.field] = v;
        return;
      }
      it[current.field] = !Object.hasOwn(it, current.field) ? containerFor(next) : extendFor(it[current.field], next);
      it = it[current.field];
    }
  }
}

/**
 * Removes what a field path names, if it is there (a field, or a list element, the elements after
 * it moving up); `[*]` and `.*` remove each match. A malformed path throws FieldPathError.
 */
export function deleteFieldPath(object: JsonObject, path: string): void {
  const concrete = path.includes("*") ? expandWildcards(object, path) : [path];
  // Last first: removing a list element moves the ones after it.
  for (const p of concrete.reverse()) {
    const segments = parseFieldPath(p);
    const last = segments.at(-1);
    if (!last) continue;
    let parent: unknown;
    try {
      parent = segments.length > 1 ? getSegments(object, segments.slice(0, -1)) : object;
    } catch (err) {
      if (err instanceof FieldPathError) continue; // not there, or not a container: nothing to remove
      throw err;
    }
    if ("field" in last && isObject(parent)) delete parent[last.field];
    else if ("index" in last && Array.isArray(parent) && last.index < parent.length) parent.splice(last.index, 1);
  }
}

function structuredCloneJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/**
 * Expands `[*]` (and `.*`) wildcards into the concrete paths that exist in `object`; array
 * elements in order, object keys sorted. Paths that do not fully exist are dropped.
 */
export function expandWildcards(object: unknown, path: string): string[] {
  return expandSegments(object, parseOrWrap(path)).map(segmentsToString);
}

function expandSegments(data: unknown, segments: Segment[]): Segment[][] {
  let it: unknown = data;
  for (let i = 0; i < segments.length; i++) {
    const current = segments[i]!;
    if ("field" in current && current.field === "*") {
      const keys: Segment[] = Array.isArray(it)
        ? it.map((_, ix) => ({ index: ix }))
        : isObject(it)
          ? Object.keys(it)
              .sort()
              .map((k) => ({ field: k }))
          : [];
      if (!Array.isArray(it) && !isObject(it)) {
        throw new FieldPathError(`"${segmentsToString(segments.slice(0, i))}": unexpected wildcard usage`);
      }
      return keys.flatMap((k) => expandSegments(data, [...segments.slice(0, i), k, ...segments.slice(i + 1)]));
    }
    try {
      it = getSegments(it, [current]);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  }
  return [segments];
}

export interface MergeOptions {
  keepMapValues?: boolean;
  appendSlice?: boolean;
}

/**
 * Merges `value` into what is at `path` (crossplane-runtime MergeValue with mergo semantics);
 * without options the destination is replaced.
 */
export function mergeValue(object: JsonObject, path: string, value: unknown, options?: MergeOptions): void {
  let dst: unknown = null;
  if (options) {
    try {
      dst = getValue(object, path);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  const merged = dst == null || value == null ? value : mergeTop(dst, value, options!);
  setValue(object, path, merged);
}

function mergeTop(dst: unknown, src: unknown, options: MergeOptions): unknown {
  if (options.appendSlice && Array.isArray(dst) && Array.isArray(src)) {
    src = src.filter((item) => !dst.some((d) => jsonEqual(d, item)));
  }
  return mergeDeep(structuredCloneJson(dst), structuredCloneJson(src), options);
}

function isEmptyValue(v: unknown): boolean {
  if (v == null || v === "" || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

function mergeDeep(dst: unknown, src: unknown, options: MergeOptions): unknown {
  const override = !options.keepMapValues;
  if (isObject(dst) && isObject(src)) {
    for (const [k, v] of Object.entries(src)) {
      dst[k] = Object.hasOwn(dst, k) ? mergeDeep(dst[k], v, options) : v;
    }
    return dst;
  }
  if (Array.isArray(dst) && Array.isArray(src) && options.appendSlice) return [...dst, ...src];
  if (isEmptyValue(dst)) return src;
  return override && !isEmptyValue(src) ? src : dst;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}
