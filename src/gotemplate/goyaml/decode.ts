import YAML, { Alias, Document, isAlias, isMap, isScalar, isSeq, type Node as YNode } from "yaml";
export { parseDocuments as parseYamlDocuments };
import { decodeBase64 } from "../encoding.js";
import { formatFloat } from "../../go/float.js";
import { GoError, GoNum, T, float64, int, mapOf, typed, type GoMap, type Value } from "../../go/values.js";
import { resolvePlain, type Resolved, type YamlVersion } from "./resolve.js";
import { parseTime, UTC } from "../../go/time.js";
import { timeValue } from "../timevalue.js";
import { decodeWithEvents } from "./events.js";

/**
 * go-yaml's Unmarshal into interface{} (v3 for fromYaml; v2 as sigs.k8s.io/yaml reads manifests),
 * on the `yaml` package's parser. Errors are worded as go-yaml words them ("yaml: line N: ...").
 */

export class YamlError extends GoError {}

const ANY_MAP = mapOf(T.any, T.any);

export interface DecodeOptions {
  version: YamlVersion;
  /** v2 for JSON: map keys become strings as sigs.k8s.io/yaml makes them, numbers plain JS numbers. */
  json?: boolean;
}

/** The go-yaml message for the parser's first error. */
function goYamlError(doc: Document.Parsed, text: string): YamlError {
  const e = doc.errors[0];
  const line = e.linePos?.[0].line ?? 1;
  const at = (msg: string, l: number) => new YamlError(l > 0 ? `yaml: line ${l}: ${msg}` : `yaml: ${msg}`);
  const scanner = (msg: string) => at(msg, line > 1 ? line : 0);
  const parser = (msg: string) => at(msg, line - 1);
  switch (e.code) {
    case "BAD_SCALAR_START":
    case "TAB_AS_INDENT":
      return scanner("found character that cannot start any token");
    case "BLOCK_AS_IMPLICIT_KEY": {
      const multiline = doc.errors.find((x) => x.code === "MULTILINE_IMPLICIT_KEY");
      const l = multiline?.linePos?.[1]?.line ?? line;
      return at("mapping values are not allowed in this context", l > 1 ? l : 0);
    }
    case "MISSING_CHAR":
      if (/quote/.test(e.message)) return at("found unexpected end of stream", line);
      return at("could not find expected ':'", line + 1);
    case "BAD_DQ_ESCAPE":
      return scanner("found unknown escape character");
    case "BAD_ALIAS":
    case "BAD_INDENT":
    case "UNEXPECTED_TOKEN": {
      if (/Flow sequence/.test(e.message)) return parser("did not find expected ',' or ']'");
      if (/Flow map/.test(e.message)) return parser("did not find expected ',' or '}'");
      const src = text.split("\n")[line - 1] ?? "";
      if (/^\s*-(\s|$)/.test(src) || /sequence/i.test(e.message)) return parser("did not find expected '-' indicator");
      return parser("did not find expected key");
    }
    case "MULTILINE_IMPLICIT_KEY":
      return scanner("could not find expected ':'");
    default:
      return parser(e.message.split(" at line")[0]);
  }
}

class Converter {
  private readonly anchors = new Map<string, Value>();
  private readonly lineStarts: number[] = [0];

  constructor(
    private readonly opts: DecodeOptions,
    text: string,
  ) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.lineStarts.push(i + 1);
  }

  private lineOf(node: YNode | null): number {
    const offset = node?.range?.[0] ?? 0;
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  node(n: YNode | null | undefined): Value {
    if (n === null || n === undefined) return null;
    if (isAlias(n)) {
      const name = (n as Alias).source;
      if (!this.anchors.has(name)) throw new YamlError(`yaml: unknown anchor '${name}' referenced`);
      return this.anchors.get(name)!;
    }
    let v: Value;
    if (isScalar(n)) v = this.scalar(n);
    else if (isSeq(n)) {
      const items: Value[] = [];
      if (n.anchor) this.anchors.set(n.anchor, items);
      for (const item of n.items) items.push(this.node(item as YNode));
      return items;
    } else if (isMap(n)) {
      const m: GoMap = {};
      if (n.anchor) this.anchors.set(n.anchor, m);
      const merges: Value[] = [];
      const keyLines = new Map<string, number>();
      let nonString = false;
      for (const pair of n.items) {
        const keyNode = pair.key as YNode | null;
        if (keyNode && isScalar(keyNode) && keyNode.type === "PLAIN" && !keyNode.tag && keyNode.source === "<<") {
          merges.push(this.node(pair.value as YNode));
          continue;
        }
        const key = this.node(keyNode);
        const [k, isString] = this.keyString(key);
        nonString ||= !isString;
        if (this.opts.version === 3 && keyLines.has(k)) {
          throw new YamlError(
            `yaml: unmarshal errors:\n  line ${this.lineOf(keyNode)}: mapping key ${JSON.stringify(k)} already defined at line ${keyLines.get(k)}`,
          );
        }
        keyLines.set(k, this.lineOf(keyNode));
        m[k] = this.node(pair.value as YNode);
      }
      for (const merge of merges) {
        for (const src of Array.isArray(merge) ? merge : [merge]) {
          if (!src || typeof src !== "object" || Array.isArray(src)) throw new YamlError("yaml: map merge requires map or sequence of maps as the value");
          for (const [k, x] of Object.entries(src)) if (!Object.hasOwn(m, k)) m[k] = x;
        }
      }
      return nonString && !this.opts.json ? typed(m, ANY_MAP) : m;
    } else v = null;
    if ((n as { anchor?: string }).anchor) this.anchors.set((n as { anchor: string }).anchor, v);
    return v;
  }

  private keyString(key: Value): [string, boolean] {
    if (typeof key === "string") return [key, true];
    if (key === null || key === undefined) return [this.opts.json ? "null" : "<nil>", false];
    if (typeof key === "boolean") return [String(key), false];
    const n = key instanceof GoNum ? key.value : (key as number);
    if (typeof key === "number" || key instanceof GoNum) {
      const isFloat = key instanceof GoNum ? key.type.kind === "float64" : !Number.isInteger(n);
      if (isFloat && this.opts.json) {
        const s = formatFloat(n, "g", -1, 32);
        return [s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s, false];
      }
      return [String(n), false];
    }
    if (this.opts.json) throw new YamlError(`error converting YAML to JSON: unsupported map key of type: ${typeof key}`);
    return [JSON.stringify(key), false];
  }

  private scalar(n: YAML.Scalar): Value {
    const text = String(n.value ?? "");
    const tag = n.tag ? shortTag(n.tag) : n.type === "PLAIN" ? "" : "!!str";
    return scalarValue(text, tag, this.opts);
  }
}

/** A scalar's value: `tag` is "" for a plain scalar without a tag. */
function scalarValue(text: string, tag: string, opts: DecodeOptions): Value {
  let r: Resolved;
  if (tag === "") r = resolvePlain(text, opts.version);
  else if (tag === "!!str") r = { tag: "!!str", value: text };
  else if (tag === "!!binary") r = { tag: "!!str", value: decodeBase64(text.replace(/\s+/g, "")).toString("utf8") };
  else if (["!!int", "!!float", "!!bool", "!!null", "!!timestamp"].includes(tag)) {
    r = resolvePlain(text, opts.version);
    if (tag === "!!float" && r.tag === "!!int") r = { tag: "!!float", value: r.value as number };
    else if (r.tag !== tag && !(tag === "!!timestamp" && r.tag === "!!str")) {
      throw new YamlError(`yaml: cannot decode ${r.tag} \`${text}\` as a ${tag}`);
    }
  } else r = { tag, value: text };
  return resolvedValue(r, opts);
}

function resolvedValue(r: Resolved, opts: DecodeOptions): Value {
  switch (r.tag) {
    case "!!null":
      return null;
    case "!!bool":
      return r.value as boolean;
    case "!!int": {
      const i = r as Extract<Resolved, { tag: "!!int" }>;
      if (opts.json) return i.value;
      return i.unsigned ? new GoNum(T.uint64, i.value) : int(i.value);
    }
    case "!!float": {
      const f = r.value as number;
      if (opts.json) {
        if (!Number.isFinite(f)) throw new YamlError(`error converting YAML to JSON: json: unsupported value: ${formatFloat(f, "g", -1)}`);
        return f;
      }
      return float64(f);
    }
    case "!!timestamp":
      return opts.version === 3 && !opts.json ? timestampValue(r.value as string) : (r.value as string);
    default:
      return r.value as string;
  }
}

const TIMESTAMP_LAYOUTS = ["2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"];

/** yaml.v3 reads an unquoted timestamp into a time.Time (in UTC unless it has an offset). */
function timestampValue(s: string): Value {
  for (const layout of TIMESTAMP_LAYOUTS) {
    try {
      return timeValue(parseTime(layout, s, UTC));
    } catch {
      // next layout
    }
  }
  return s;
}

/** A map key for the fast path; undefined sends the document to the slow path. */
function fastKey(k: Value, opts: DecodeOptions): string | undefined {
  if (typeof k === "string") return k;
  if (!opts.json) return undefined;
  if (k === null) return "null";
  if (typeof k === "boolean" || typeof k === "number") return Number.isInteger(k) || typeof k === "boolean" ? String(k) : undefined;
  return undefined;
}

function shortTag(tag: string): string {
  return tag.startsWith("tag:yaml.org,2002:") ? "!!" + tag.slice("tag:yaml.org,2002:".length) : tag;
}

function parseDocuments(text: string): Document.Parsed[] {
  return YAML.parseAllDocuments(text, { schema: "failsafe", version: "1.1", uniqueKeys: false, merge: false, strict: false }) as Document.Parsed[];
}

/** yaml.Unmarshal(text, &v) for v interface{}: the first document (nil when there is none). */
export function unmarshalYaml(text: string, opts: DecodeOptions): Value {
  const fast = decodeWithEvents(text, {
    scalar: (raw, plain, tag) => scalarValue(raw, plain ? "" : tag || "!!str", opts),
    key: (k) => fastKey(k, opts),
    strictKeys: opts.version === 3,
  });
  if (fast) return fast.length > 0 ? fast[0] : null;
  const docs = parseDocuments(text);
  if (docs.length === 0) return null;
  const doc = docs[0];
  if (doc.errors.length > 0) throw goYamlError(doc, text);
  return new Converter(opts, text).node(doc.contents as YNode | null);
}
