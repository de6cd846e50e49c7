// goyaml/: the YAML crossplane render prints (sigs.k8s.io/yaml over go-yaml v2), for render output and golden files.
import { decodeKey, decodeString } from "./json.js";
import { sortKeys } from "./keys.js";
import { formatNumber } from "./number.js";
import { analyzeScalar, selectStyle, type Analysis } from "./style.js";
import { Writer } from "./writer.js";

/**
 * The YAML that Go's sigs.k8s.io/yaml.JSONToYAML makes of the encoding/json text of a JSON value:
 * go-yaml v2 (gopkg.in/yaml.v2, go.yaml.in/yaml/v2 2.4.x) Unmarshal into interface{} and Marshal,
 * with its 80-column line folding. This is how `crossplane render` prints each object.
 *
 * The value is JSON data (what JSON.parse returns): plain objects, arrays, strings, finite
 * numbers, booleans and null. As JSON.stringify does, it calls toJSON (a Date becomes its ISO
 * string), leaves out object members that are undefined, functions or symbols, and turns such
 * array items into null. The text ends with "\n".
 *
 * Throws where Go fails too (see json.ts and number.ts): a string with U+007F, U+0080..U+009F
 * other than U+0085, U+FFFE or U+FFFF; a map key that holds U+0085 or whose quoted JSON text is
 * longer than 1024 characters; a number that is not finite.
 */
export function toGoYaml(value: unknown): string {
  const writer = new Writer();
  emitNode(writer, jsonValue(value, ""), -1, false);
  writer.indent(-1);
  return writer.text();
}

/**
 * One node at the emitter's current indent (-1 at the root). inMapping says that the node is a
 * mapping value: a block sequence there is not indented under its key.
 */
function emitNode(w: Writer, value: unknown, indent: number, inMapping: boolean): void {
  if (value === null) return w.word("null");
  switch (typeof value) {
    case "string": {
      const text = decodeString(value);
      return emitString(w, text, analyzeScalar(text), indent, false);
    }
    case "number":
      return w.word(formatNumber(value));
    case "boolean":
      return w.word(value ? "true" : "false");
    case "object":
      if (Array.isArray(value)) return emitSequence(w, value, indent, inMapping);
      return emitMapping(w, value as Record<string, unknown>, indent);
    default:
      throw new TypeError(`toGoYaml: cannot encode a ${typeof value} as JSON`);
  }
}

function emitSequence(w: Writer, items: unknown[], parentIndent: number, inMapping: boolean): void {
  if (items.length === 0) return emitEmpty(w, "[", "]");
  const indentless = inMapping && !w.indention;
  const indent = parentIndent < 0 ? 0 : indentless ? parentIndent : parentIndent + 2;
  for (let i = 0; i < items.length; i++) {
    const value = jsonValue(items[i], String(i));
    w.indent(indent);
    w.indicator("-", true, false, true);
    emitNode(w, isJsonValue(value) ? value : null, indent, false);
  }
}

function emitMapping(w: Writer, object: Record<string, unknown>, parentIndent: number): void {
  const entries = mappingEntries(object);
  if (entries.length === 0) return emitEmpty(w, "{", "}");
  const indent = parentIndent < 0 ? 0 : parentIndent + 2;
  for (const [key, value] of sortKeys(entries)) {
    w.indent(indent);
    const analysis = analyzeScalar(key);
    if (isSimpleKey(key, analysis)) {
      emitString(w, key, analysis, indent, true);
      w.indicator(":", false, false, false);
    } else {
      w.indicator("?", true, false, true);
      emitString(w, key, analysis, indent, false);
      w.indent(indent);
      w.indicator(":", true, false, true);
    }
    emitNode(w, value, indent, true);
  }
}

/**
 * The members as Go's map sees them, with JSON-decoded keys; when two keys decode to the same
 * string (lone surrogates both read as U+FFFD), the last one wins as in Go's JSON decoder.
 */
function mappingEntries(object: Record<string, unknown>): [string, unknown][] {
  const entries: [string, unknown][] = [];
  let renamed = false;
  for (const key of Object.keys(object)) {
    const value = jsonValue(object[key], key);
    if (!isJsonValue(value)) continue;
    const decoded = decodeKey(key);
    renamed ||= decoded !== key;
    entries.push([decoded, value]);
  }
  return renamed ? [...new Map(entries)] : entries;
}

function jsonValue(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === "function" ? toJSON.call(value, key) : value;
}

function isJsonValue(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/** yaml_emitter_check_simple_key: a single-line key of at most 128 bytes of UTF-8. */
function isSimpleKey(key: string, analysis: Analysis): boolean {
  return !analysis.multiline && (key.length <= 42 || Buffer.byteLength(key, "utf8") <= 128);
}

/** A string scalar, indented (when it folds or is a block) one step deeper than its node. */
function emitString(w: Writer, s: string, analysis: Analysis, indent: number, simpleKey: boolean): void {
  const scalarIndent = indent < 0 ? 2 : indent + 2;
  switch (selectStyle(s, analysis)) {
    case "plain":
      return w.plain(s, !simpleKey, scalarIndent);
    case "single":
      return w.singleQuoted(s, !simpleKey, scalarIndent);
    case "double":
      return w.doubleQuoted(s, !simpleKey, scalarIndent);
    case "literal":
      return w.literal(s, scalarIndent);
  }
}

function emitEmpty(w: Writer, open: string, close: string): void {
  w.indicator(open, true, true, false);
  w.indicator(close, false, false, false);
}

export { goNumber } from "./resolve.js";
