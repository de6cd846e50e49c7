import { formatFloat } from "./float.js";
import { sortedKeys } from "./sort.js";
import { FLOAT_KINDS, GoError, GoFunc, GoNum, GoStruct, float64, isNilCollection, type GoMap, type Value } from "./values.js";

/** Go's encoding/json: Marshal (sorted keys, HTML escaping, Go's float format) and Unmarshal into interface{}. */

export interface MarshalOptions {
  escapeHTML?: boolean;
  indent?: string;
}

function quoteJson(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (c >= 0x20 && ch !== '"' && ch !== "\\" && (!escapeHTML || (ch !== "<" && ch !== ">" && ch !== "&")) && c !== 0x2028 && c !== 0x2029) {
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        out += ch + s[++i];
        continue;
      }
      out += c >= 0xd800 && c < 0xe000 ? "\ufffd" : ch;
      continue;
    }
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case "\\":
        out += "\\\\";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      default:
        out += "\\u" + c.toString(16).padStart(4, "0");
    }
  }
  return out + '"';
}

/** encoding/json's float format: %f unless the exponent is small or large, then %e without a padded exponent. */
export function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) throw new GoError(`json: unsupported value: ${formatFloat(f, "g", -1)}`);
  const abs = Math.abs(f);
  const fmt = abs !== 0 && (abs < 1e-6 || abs >= 1e21) ? "e" : "f";
  let s = formatFloat(f, fmt, -1);
  if (fmt === "e") s = s.replace(/e-0(\d)$/, "e-$1");
  return s;
}

/** json.Marshal / MarshalIndent / an Encoder with SetEscapeHTML(false). Throws GoError on NaN and the like. */
export function marshalJson(v: Value, opts: MarshalOptions = {}): string {
  const escapeHTML = opts.escapeHTML ?? true;
  const indent = opts.indent;
  const enc = (x: Value, depth: number): string => {
    if (x === null || x === undefined) return "null";
    switch (typeof x) {
      case "boolean":
        return x ? "true" : "false";
      case "string":
        return quoteJson(x, escapeHTML);
      case "number":
        return Number.isInteger(x) && Math.abs(x) < 9.223372036854776e18 ? String(x) : jsonFloat(x);
    }
    if (x instanceof GoNum) return FLOAT_KINDS.has(x.type.kind) ? jsonFloat(x.value) : String(x.value);
    if (x instanceof Uint8Array) return quoteJson(Buffer.from(x).toString("base64"), escapeHTML);
    if (x instanceof GoFunc) throw new GoError(`json: unsupported type: ${"func"}`);
    if (x instanceof GoStruct) {
      if (x.type.json) return enc(x.type.json(x), depth);
      return object(Object.keys(x.fields), (k) => x.fields[k], depth);
    }
    if (isNilCollection(x)) return "null";
    if (Array.isArray(x)) {
      if (x.length === 0) return "[]";
      if (indent === undefined) return `[${x.map((e) => enc(e, depth + 1)).join(",")}]`;
      const pad = "\n" + indent.repeat(depth + 1);
      return `[${x.map((e) => pad + enc(e, depth + 1)).join(",")}\n${indent.repeat(depth)}]`;
    }
    const m = x as GoMap;
    return object(sortedKeys(m), (k) => m[k], depth);
  };
  const object = (keys: string[], get: (k: string) => Value, depth: number): string => {
    if (keys.length === 0) return "{}";
    if (indent === undefined) return `{${keys.map((k) => `${quoteJson(k, escapeHTML)}:${enc(get(k), depth + 1)}`).join(",")}}`;
    const pad = "\n" + indent.repeat(depth + 1);
    return `{${keys.map((k) => `${pad}${quoteJson(k, escapeHTML)}: ${enc(get(k), depth + 1)}`).join(",")}\n${indent.repeat(depth)}}`;
  };
  return enc(v, 0);
}

/** json.Unmarshal into interface{}: numbers are float64. Throws GoError with Go's message. */
export function unmarshalJson(text: string): Value {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GoError(syntaxError(text));
  }
  return toFloats(parsed as Value);
}

function toFloats(v: Value): Value {
  if (typeof v === "number") return float64(v);
  if (Array.isArray(v)) return v.map(toFloats);
  if (v && typeof v === "object") {
    const m = v as GoMap;
    for (const k of Object.keys(m)) m[k] = toFloats(m[k]);
  }
  return v;
}

/** The first syntax error as Go's scanner words it (approximately: the character and what was expected). */
function syntaxError(text: string): string {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const fail = (what: string): never => {
    if (i >= text.length) throw new Error("unexpected end of JSON input");
    const ch = text[i];
    const shown = ch === "'" ? "'\\''" : `'${ch}'`;
    throw new Error(`invalid character ${shown} ${what}`);
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("looking for beginning of object key string");
        string();
        ws();
        if (text[i] !== ":") fail("after object key");
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail("after object key:value pair");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail("after array element");
      }
    }
    if (c === '"') return string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m && m[0] !== "" && m[0] !== "-") {
      i += m[0].length;
      return;
    }
    for (const lit of ["true", "false", "null"]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    if (c !== undefined && "tfn".includes(c)) {
      const lit = c === "t" ? "true" : c === "f" ? "false" : "null";
      let k = 0;
      while (text[i] === lit[k]) {
        i++;
        k++;
      }
      fail(`in literal ${lit} (expecting '${lit[k]}')`);
    }
    fail("looking for beginning of value");
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if (text.charCodeAt(i) < 0x20) fail("in string literal");
      i++;
    }
    if (i >= text.length) fail("");
    i++;
  };
  try {
    value();
    ws();
    if (i < text.length) fail("after top-level value");
  } catch (err) {
    return (err as Error).message;
  }
  return "invalid JSON";
}
