import { formatValue, sprint, sprintf, sprintln } from "../go/fmt.js";
import { compareGoStrings } from "../go/sort.js";
import {
  FLOAT_KINDS,
  GoError,
  GoFunc,
  GoNum,
  GoStruct,
  INT_KINDS,
  T,
  UINT_KINDS,
  byteLength,
  int,
  isNilCollection,
  typeOf,
  typed,
  type CallContext,
  type GoMap,
  type GoType,
  type Signature,
  type Value,
} from "../go/values.js";
import { assignable } from "./exec.js";

/** text/template's predefined functions (funcs.go): and, or, not, len, index, slice, call, eq…, print…, html, js, urlquery. */

const RV = T.reflectValue;
const fn = (sig: Signature, impl: (args: Value[], ctx: CallContext) => Value) => new GoFunc(sig, impl);

/** A nil interface is no value to these functions (indirectInterface). */
const unwrapNil = (v: Value) => (v === null ? undefined : v);

const isMapValue = (v: Value): v is GoMap =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof GoNum) &&
  !(v instanceof GoStruct) &&
  !(v instanceof GoFunc) &&
  !(v instanceof Uint8Array);

type BasicKind = "invalid" | "bool" | "int" | "uint" | "float" | "string" | "complex";

function basicKind(v: Value): BasicKind {
  const t = typeOf(v);
  if (!t) return "invalid";
  if (t.kind === "bool") return "bool";
  if (INT_KINDS.has(t.kind)) return "int";
  if (UINT_KINDS.has(t.kind)) return "uint";
  if (FLOAT_KINDS.has(t.kind)) return "float";
  if (t.kind === "string") return "string";
  return "invalid";
}

const num = (v: Value) => (v instanceof GoNum ? v.value : (v as number));

function indexArg(index: Value, cap: number): number {
  const t = typeOf(index);
  if (!t) throw new GoError("cannot index slice/array with nil");
  if (!INT_KINDS.has(t.kind) && !UINT_KINDS.has(t.kind)) throw new GoError(`cannot index slice/array with type ${t.name}`);
  const x = num(index);
  if (x < 0 || x > cap) throw new GoError(`index out of range: ${x}`);
  return x;
}

function stringBytes(s: string): Uint8Array {
  return Buffer.from(s, "utf8");
}

function index(item: Value, indexes: Value[]): Value {
  item = unwrapNil(item);
  if (item === undefined) throw new GoError("index of untyped nil");
  for (let idx of indexes) {
    idx = unwrapNil(idx);
    if (item === null) throw new GoError("index of nil pointer");
    if (typeof item === "string") {
      const bytes = stringBytes(item);
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new GoError(`index out of range: ${x}`);
      item = new GoNum(T.uint8, bytes[x]);
    } else if (Array.isArray(item) || item instanceof Uint8Array) {
      const x = indexArg(idx, item.length);
      if (x === item.length) throw new GoError(`index out of range: ${x}`);
      item = item instanceof Uint8Array ? new GoNum(T.uint8, item[x]) : item[x];
    } else if (isMapValue(item)) {
      const key = prepareMapKey(idx, typeOf(item)!);
      item = Object.hasOwn(item, key) ? item[key] : zeroElem(typeOf(item)!);
    } else {
      throw new GoError(`can't index item of type ${typeOf(item)!.name}`);
    }
  }
  return item;
}

function prepareMapKey(idx: Value, mapType: GoType): string {
  const keyType = mapType.key ?? T.string;
  if (idx === undefined) throw new GoError(`value is nil; should be of type ${keyType.name}`);
  if (!assignable(idx, keyType)) throw new GoError(`value has type ${typeOf(idx)!.name}; should be ${keyType.name}`);
  return idx as string;
}

function zeroElem(mapType: GoType): Value {
  const elem = mapType.elem ?? T.any;
  if (elem.kind === "interface") return null;
  if (elem.kind === "string") return "";
  if (elem.kind === "bool") return false;
  if (INT_KINDS.has(elem.kind) || UINT_KINDS.has(elem.kind) || FLOAT_KINDS.has(elem.kind)) return new GoNum(elem, 0);
  return null;
}

function slice(item: Value, indexes: Value[]): Value {
  item = unwrapNil(item);
  if (item === undefined) throw new GoError("slice of untyped nil");
  if (indexes.length > 3) throw new GoError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  let bytes: Uint8Array | undefined;
  if (typeof item === "string") {
    if (indexes.length === 3) throw new GoError("cannot 3-index slice a string");
    bytes = stringBytes(item);
    len = bytes.length;
  } else if (Array.isArray(item) || item instanceof Uint8Array) {
    len = item.length;
  } else {
    throw new GoError(`can't slice item of type ${typeOf(item)?.name}`);
  }
  const idx = [0, len, len];
  indexes.forEach((x, i) => (idx[i] = indexArg(unwrapNil(x), len)));
  if (idx[0] > idx[1]) throw new GoError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2]) throw new GoError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (bytes) return Buffer.from(bytes.subarray(idx[0], idx[1])).toString("utf8");
  if (item instanceof Uint8Array) return item.slice(idx[0], idx[1]);
  const out = (item as Value[]).slice(idx[0], idx[1]);
  const t = typeOf(item)!;
  return t.elem?.kind === "interface" ? out : typed(out, t);
}

function length(item: Value): Value {
  if (item === null) throw new GoError("len of nil pointer");
  if (item === undefined) throw new GoError("reflect: call of reflect.Value.Type on zero Value");
  if (typeof item === "string") return byteLength(item);
  if (Array.isArray(item) || item instanceof Uint8Array) return item.length;
  if (isMapValue(item)) return Object.keys(item).length;
  throw new GoError(`len of type ${typeOf(item)!.name}`);
}

function call(f: Value, args: Value[], ctx: CallContext): Value {
  f = unwrapNil(f);
  if (f === undefined) throw new GoError("call of nil");
  if (!(f instanceof GoFunc)) throw new GoError(`non-function of type ${typeOf(f)!.name}`);
  const sig = f.sig;
  const numIn = sig.params.length;
  if (sig.variadic) {
    if (args.length < numIn) throw new GoError(`wrong number of args: got ${args.length} want at least ${numIn}`);
  } else if (args.length !== numIn) {
    throw new GoError(`wrong number of args: got ${args.length} want ${numIn}`);
  }
  const argv = args.map((a, i) => {
    const type = i < numIn ? sig.params[i] : sig.variadic!;
    a = unwrapNil(a);
    if (a === undefined) {
      if (["interface", "map", "slice", "ptr", "func", "chan"].includes(type.kind)) return null;
      throw new GoError(`arg ${i}: value is nil; should be of type ${type.name}`);
    }
    if (assignable(a, type)) return a;
    const t = typeOf(a)!;
    const intLike = (k: string) => INT_KINDS.has(k) || UINT_KINDS.has(k);
    if (intLike(t.kind) && intLike(type.kind)) return new GoNum(type, num(a));
    throw new GoError(`arg ${i}: value has type ${t.name}; should be ${type.name}`);
  });
  return f.impl(argv, ctx);
}

const truth = (v: Value): boolean => {
  v = unwrapNil(v);
  if (v === undefined) return false;
  switch (typeof v) {
    case "boolean":
      return v;
    case "string":
      return v.length > 0;
    case "number":
      return v !== 0;
  }
  if (v instanceof GoNum) return v.value !== 0;
  if (v instanceof GoStruct || v instanceof GoFunc) return true;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length > 0;
  return Object.keys(v as object).length > 0;
};

const ERR_BAD_TYPE = "invalid type for comparison";
const ERR_BAD = "incompatible types for comparison";

function isNilValue(v: Value): boolean {
  return v === undefined || v === null || isNilCollection(v);
}

function eq(arg1: Value, rest: Value[]): boolean {
  arg1 = unwrapNil(arg1);
  if (rest.length === 0) throw new GoError("missing argument for comparison");
  const k1 = basicKind(arg1);
  for (let arg of rest) {
    arg = unwrapNil(arg);
    const k2 = basicKind(arg);
    let t = false;
    if (k1 !== k2) {
      if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) t = num(arg1) === num(arg);
      else if (arg1 !== undefined && arg !== undefined) throw new GoError(ERR_BAD);
    } else {
      switch (k1) {
        case "bool":
        case "string":
          t = arg1 === arg;
          break;
        case "int":
        case "uint":
        case "float":
          t = num(arg1) === num(arg);
          break;
        default: {
          const t1 = typeOf(arg1);
          const t2 = typeOf(arg);
          if (t1 && t2 && t1.kind !== t2.kind) {
            throw new GoError(`non-comparable types ${sprintf("%s", [arg1])}: ${t1.name}, ${t2.name}: ${formatValue(arg)}`);
          }
          if (isNilValue(arg1) || isNilValue(arg)) t = isNilValue(arg) === isNilValue(arg1);
          else {
            if (t2 && (t2.kind === "map" || t2.kind === "slice" || t2.kind === "func")) {
              throw new GoError(`non-comparable type ${sprintf("%s", [arg])}: ${t2.name}`);
            }
            t = deepEqual(arg1, arg);
          }
        }
      }
    }
    if (t) return true;
  }
  return false;
}

function deepEqual(a: Value, b: Value): boolean {
  if (a instanceof GoStruct && b instanceof GoStruct) {
    if (a.type.name !== b.type.name) return false;
    return Object.keys(a.fields).every((k) => deepEqual(a.fields[k], b.fields[k]));
  }
  if (a instanceof GoNum && b instanceof GoNum) return a.value === b.value && a.type.name === b.type.name;
  return a === b;
}

function lt(arg1: Value, arg2: Value): boolean {
  arg1 = unwrapNil(arg1);
  arg2 = unwrapNil(arg2);
  const k1 = basicKind(arg1);
  if (k1 === "invalid") throw new GoError(ERR_BAD_TYPE);
  const k2 = basicKind(arg2);
  if (k2 === "invalid") throw new GoError(ERR_BAD_TYPE);
  if (k1 !== k2) {
    if (k1 === "int" && k2 === "uint") return num(arg1) < 0 || num(arg1) < num(arg2);
    if (k1 === "uint" && k2 === "int") return num(arg2) >= 0 && num(arg1) < num(arg2);
    throw new GoError(ERR_BAD);
  }
  switch (k1) {
    case "bool":
    case "complex":
      throw new GoError(ERR_BAD_TYPE);
    case "string":
      return compareGoStrings(arg1 as string, arg2 as string) < 0;
    default:
      return num(arg1) < num(arg2);
  }
}

const le = (a: Value, b: Value) => lt(a, b) || eq(a, [b]);

/** Go's evalArgs for html, js and urlquery: one string, or the arguments printed. */
function evalArgs(args: Value[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (a === null || a === undefined ? "<no value>" : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) =>
    c === "\0" ? "\uFFFD" : c === '"' ? "&#34;" : c === "'" ? "&#39;" : c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;",
  );
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "<":
        out += "\\u003C";
        continue;
      case ">":
        out += "\\u003E";
        continue;
      case "&":
        out += "\\u0026";
        continue;
      case "=":
        out += "\\u003D";
        continue;
    }
    if (c < 0x20) out += "\\u00" + c.toString(16).toUpperCase().padStart(2, "0");
    else if (c < 0x80) out += ch;
    else if (PRINTABLE.test(ch)) out += ch;
    else out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
  }
  return out;
}

/** url.QueryEscape */
export function queryEscape(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

const ANY = T.any;
const STRING = T.string;
const BOOL = T.bool;

export const BUILTINS: Record<string, GoFunc> = {
  and: fn({ params: [RV], variadic: RV, result: RV }, () => undefined),
  or: fn({ params: [RV], variadic: RV, result: RV }, () => undefined),
  not: fn({ params: [RV], result: BOOL }, ([a]) => !truth(a)),
  len: fn({ params: [RV], result: T.int, error: true }, ([a]) => int(length(a) as number)),
  index: fn({ params: [RV], variadic: RV, result: RV, error: true }, ([item, ...idx]) => index(item, idx)),
  slice: fn({ params: [RV], variadic: RV, result: RV, error: true }, ([item, ...idx]) => slice(item, idx)),
  call: fn({ params: [RV], variadic: RV, result: RV, error: true }, ([f, ...args], ctx) => call(f, args, ctx)),
  eq: fn({ params: [RV], variadic: RV, result: BOOL, error: true }, ([a, ...rest]) => eq(a, rest)),
  ne: fn({ params: [RV, RV], result: BOOL, error: true }, ([a, b]) => !eq(a, [b])),
  lt: fn({ params: [RV, RV], result: BOOL, error: true }, ([a, b]) => lt(a, b)),
  le: fn({ params: [RV, RV], result: BOOL, error: true }, ([a, b]) => le(a, b)),
  gt: fn({ params: [RV, RV], result: BOOL, error: true }, ([a, b]) => !le(a, b)),
  ge: fn({ params: [RV, RV], result: BOOL, error: true }, ([a, b]) => !lt(a, b)),
  html: fn({ params: [], variadic: ANY, result: STRING }, (args) => htmlEscape(evalArgs(args))),
  js: fn({ params: [], variadic: ANY, result: STRING }, (args) => jsEscape(evalArgs(args))),
  urlquery: fn({ params: [], variadic: ANY, result: STRING }, (args) => queryEscape(evalArgs(args))),
  print: fn({ params: [], variadic: ANY, result: STRING }, (args) => sprint(args)),
  println: fn({ params: [], variadic: ANY, result: STRING }, (args) => sprintln(args)),
  printf: fn({ params: [STRING], variadic: ANY, result: STRING }, ([f, ...args]) => sprintf(f as string, args)),
};
