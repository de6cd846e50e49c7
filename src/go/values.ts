/**
 * Go values as templates see them. Data decoded from JSON needs no conversion:
 *
 * - `undefined` is Go's invalid reflect.Value ("<no value>"), `null` a nil interface;
 * - booleans and strings are themselves; a plain number is an int64 when it is integral
 *   (as Kubernetes' JSON decoder gives) and a float64 otherwise; a `GoNum` box carries any
 *   other numeric type (an `int` from a literal or a function, an integral float64, a rune);
 * - arrays are `[]interface {}` and plain objects `map[string]interface {}`, unless tagged with
 *   another Go type (`[]string`, `map[string]string`); a `Uint8Array` is a `[]byte`;
 * - `GoStruct` is a struct (or pointer to one) with methods, `GoFunc` a function value.
 */

export type Kind =
  | "bool"
  | "int"
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "uintptr"
  | "float32"
  | "float64"
  | "complex128"
  | "string"
  | "slice"
  | "array"
  | "map"
  | "struct"
  | "ptr"
  | "func"
  | "interface"
  | "chan";

export interface GoType {
  readonly name: string;
  readonly kind: Kind;
  readonly elem?: GoType;
  readonly key?: GoType;
  /** Struct fields in declaration order (for printing). */
  readonly fields?: readonly string[];
  /** Methods by name, bound to a receiver. */
  readonly methods?: Readonly<Record<string, (recv: any) => GoFunc>>;
  /** fmt.Stringer / error: how fmt prints a value of this type (a GoStruct or a GoNum). */
  readonly stringer?: (v: any) => string;
  /** How encoding/json writes a value of this type (a MarshalJSON method), when not its fields. */
  readonly json?: (v: GoStruct) => Value;
  /** How yaml.v3 writes a value of this type (a MarshalYAML or MarshalText method), when not its fields. */
  readonly yaml?: (v: GoStruct) => Value;
  readonly sig?: Signature;
}

export type Value = undefined | null | boolean | string | number | GoNum | Uint8Array | Value[] | GoMap | GoStruct | GoFunc;

export interface GoMap {
  [key: string]: Value;
}

export class GoNum {
  constructor(
    readonly type: GoType,
    readonly value: number,
  ) {}
}

export class GoStruct {
  constructor(
    readonly type: GoType,
    readonly fields: Record<string, Value>,
  ) {}
}

export interface Signature {
  readonly params: readonly GoType[];
  /** Element type of a final `...T` parameter. */
  readonly variadic?: GoType;
  readonly result: GoType;
  /** The function also returns an error (thrown as GoError). */
  readonly error?: boolean;
}

/** What a function may read from the execution that calls it. */
export interface CallContext {
  /** A uniformly distributed float in [0, 1), from the execution's seeded generator. */
  random(): number;
  /** The execution's clock, in milliseconds since the epoch. */
  now(): number;
  /** Told when a function makes secret material (a private key) from the seeded generator. */
  secret?(what: string): void;
}

export class GoFunc {
  constructor(
    readonly sig: Signature,
    readonly impl: (args: Value[], ctx: CallContext) => Value,
  ) {}
}

/** An error a Go function returns (or a panic it raises): the template reports it. */
export class GoError extends Error {}

const prim = (name: string, kind: Kind): GoType => ({ name, kind });

export const T = {
  bool: prim("bool", "bool"),
  int: prim("int", "int"),
  int8: prim("int8", "int8"),
  int16: prim("int16", "int16"),
  int32: prim("int32", "int32"),
  int64: prim("int64", "int64"),
  uint: prim("uint", "uint"),
  uint8: prim("uint8", "uint8"),
  uint16: prim("uint16", "uint16"),
  uint32: prim("uint32", "uint32"),
  uint64: prim("uint64", "uint64"),
  uintptr: prim("uintptr", "uintptr"),
  float32: prim("float32", "float32"),
  float64: prim("float64", "float64"),
  string: prim("string", "string"),
  any: prim("interface {}", "interface"),
  /** The reflect.Value parameters of text/template's builtins: no conversion. */
  reflectValue: prim("reflect.Value", "struct"),
} as const;

const composite = new Map<string, GoType>();

export function sliceOf(elem: GoType): GoType {
  const name = `[]${elem.name}`;
  let t = composite.get(name);
  if (!t) composite.set(name, (t = { name, kind: "slice", elem }));
  return t;
}

export function mapOf(key: GoType, elem: GoType): GoType {
  const name = `map[${key.name}]${elem.name}`;
  let t = composite.get(name);
  if (!t) composite.set(name, (t = { name, kind: "map", key, elem }));
  return t;
}

export const SLICE_ANY = sliceOf(T.any);
export const MAP_ANY = mapOf(T.string, T.any);
export const SLICE_STRING = sliceOf(T.string);
export const MAP_STRING = mapOf(T.string, T.string);
export const BYTES = sliceOf(T.uint8);

const TYPE = Symbol("go.type");
const NIL = Symbol("go.nil");

/** Marks an array or object as a value of another Go slice or map type. */
export function typed<V extends Value[] | GoMap>(v: V, type: GoType): V {
  Object.defineProperty(v, TYPE, { value: type, enumerable: false });
  return v;
}

/** A nil slice or map of the given type (prints as empty, is nil to comparisons and JSON). */
export function nilOf(type: GoType): Value {
  if (type.kind === "slice") return typed(markNil([]), type);
  if (type.kind === "map") return typed(markNil({}), type);
  return null;
}

function markNil<V extends object>(v: V): V {
  Object.defineProperty(v, NIL, { value: true, enumerable: false });
  return v;
}

export function isNilCollection(v: Value): boolean {
  return typeof v === "object" && v !== null && (v as unknown as Record<symbol, unknown>)[NIL] === true;
}

export const isInt64Number = (n: number) => Number.isInteger(n) && Math.abs(n) < 9.223372036854776e18;

/** The dynamic Go type of a value; undefined for invalid and null (nil interface). */
export function typeOf(v: Value): GoType | undefined {
  switch (typeof v) {
    case "boolean":
      return T.bool;
    case "string":
      return T.string;
    case "number":
      return isInt64Number(v) ? T.int64 : T.float64;
    case "object":
      if (v === null) return undefined;
      if (v instanceof GoNum) return v.type;
      if (v instanceof GoStruct) return v.type;
      if (v instanceof GoFunc) return funcType(v.sig);
      if (v instanceof Uint8Array) return BYTES;
      return (v as unknown as Record<symbol, GoType>)[TYPE] ?? (Array.isArray(v) ? SLICE_ANY : MAP_ANY);
    default:
      return undefined;
  }
}

export function funcType(sig: Signature): GoType {
  const params = sig.params.map((p) => p.name);
  if (sig.variadic) params.push(`...${sig.variadic.name}`);
  const result = sig.error ? `(${sig.result.name}, error)` : sig.result.name;
  return { name: `func(${params.join(", ")}) ${result}`, kind: "func", sig };
}

export function kindOf(v: Value): Kind | "invalid" {
  return typeOf(v)?.kind ?? (v === null ? "interface" : "invalid");
}

/** A Go map (a plain object), as opposed to the other object-shaped values. */
export function isMap(v: Value): v is GoMap {
  return (
    typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoNum || v instanceof GoStruct || v instanceof GoFunc || v instanceof Uint8Array)
  );
}

export const INT_KINDS = new Set<string>(["int", "int8", "int16", "int32", "int64"]);
export const UINT_KINDS = new Set<string>(["uint", "uint8", "uint16", "uint32", "uint64", "uintptr"]);
export const FLOAT_KINDS = new Set<string>(["float32", "float64"]);

/** The JS number of any Go numeric value, or undefined. */
export function numberOf(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof GoNum) return v.value;
  return undefined;
}

export const int = (n: number) => new GoNum(T.int, n);
export const rune = (n: number) => new GoNum(T.int32, n);
export const uint8 = (n: number) => new GoNum(T.uint8, n);

/** A float64: boxed only when a plain number would read as an int64. */
export function float64(n: number): number | GoNum {
  return isInt64Number(n) ? new GoNum(T.float64, n) : n;
}

/** An int64: a plain number (JSON's integers are int64). */
export function int64(n: number): number | GoNum {
  return isInt64Number(n) ? n : new GoNum(T.int64, n);
}

/** A value of the given numeric type, boxed as needed. */
export function numberAs(type: GoType, n: number): number | GoNum {
  if (type === T.int64) return int64(n);
  if (type === T.float64) return float64(n);
  return new GoNum(type, n);
}

/** Length of a string in bytes (Go's len). */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 1;
      i++;
    } else n += 2;
  }
  return n;
}

export function isStruct(v: Value): v is GoStruct {
  return v instanceof GoStruct;
}

/** Strips Go boxes: what JSON encoding of the value sees. */
export function toPlain(v: Value): unknown {
  if (v instanceof GoNum) return v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (v instanceof GoStruct) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v.fields)) out[k] = toPlain(x);
    return out;
  }
  if (v instanceof GoFunc) return undefined;
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toPlain(v[k]);
    return out;
  }
  return v;
}
