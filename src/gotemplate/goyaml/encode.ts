import { formatFloat } from "../../go/float.js";
import { FLOAT_KINDS, GoError, GoFunc, GoNum, GoStruct, isNilCollection, type GoMap, type Value } from "../../go/values.js";
import { needsQuotes } from "./resolve.js";
import { escapeCharacter, isBreak, isPrintable } from "../../go/libyaml.js";

/**
 * yaml.v3's Marshal of template values: block style, indent 4 (sequences indented under their
 * key), keys in go-yaml's natural order, scalars styled as libyaml's emitter chooses (plain,
 * single-quoted, double-quoted or literal), no line wrapping.
 */

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

function analyze(value: string): Analysis {
  if (value.length === 0) return { multiline: false, flowPlain: false, blockPlain: true, single: true, block: false };
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let special = false;
  let tabs = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  if (value.startsWith("---") || value.startsWith("...")) {
    blockIndicators = true;
    flowIndicators = true;
  }
  const cps = [...value].map((c) => c.codePointAt(0)!);
  let precededByWhitespace = true;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    const ch = String.fromCodePoint(c);
    const next = cps[i + 1];
    const followedByWhitespace = next === undefined || next === 0x20 || next === 0x09 || isBreak(next);
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(ch)) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (ch === "?" || ch === ":") {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (ch === "-" && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else if (",?[]{}".includes(ch)) {
      flowIndicators = true;
    } else if (ch === ":") {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (ch === "#" && precededByWhitespace) {
      flowIndicators = true;
      blockIndicators = true;
    }
    if (c === 0x09) tabs = true;
    else if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWhitespace = c === 0x20 || c === 0x09 || isBreak(c) || c === 0;
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, single: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.flowPlain = a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.flowPlain = a.blockPlain = a.single = false;
  if (spaceBreak || tabs || special) a.flowPlain = a.blockPlain = a.single = false;
  if (spaceBreak || special) a.block = false;
  if (lineBreaks) a.flowPlain = a.blockPlain = false;
  if (flowIndicators) a.flowPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

type Style = "plain" | "single" | "double" | "literal";

/** Keys in go-yaml's order (keyList.Less): letters before other runs, digit runs by value. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  let digits = false;
  const isDigit = (c: string) => /^\p{Nd}$/u.test(c);
  const isLetter = (c: string) => /^\p{L}$/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) {
      digits = isDigit(ar[i]);
      continue;
    }
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
    if (al || bl) return digits ? al : bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === "0" || br[i] === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].codePointAt(0)! - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].codePointAt(0)! - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
  }
  return ar.length < br.length;
}

const keyCompare = (a: string, b: string) => (a === b ? 0 : yamlKeyLess(a, b) ? -1 : 1);

/** A node to emit: a scalar (text and requested style) or a collection. */
type Node = { kind: "scalar"; text: string; style: Style } | { kind: "map"; entries: [Node, Node][] } | { kind: "seq"; items: Node[] };

function scalarFor(s: string): Node {
  let style: Style;
  if (s.includes("\n")) style = "literal";
  else style = needsQuotes(s) ? "double" : "plain";
  return { kind: "scalar", text: s, style };
}

const plain = (text: string): Node => ({ kind: "scalar", text, style: "plain" });

function toNode(v: Value): Node {
  if (v === null || v === undefined) return plain("null");
  switch (typeof v) {
    case "boolean":
      return plain(v ? "true" : "false");
    case "string":
      return scalarFor(v);
    case "number":
      return plain(Number.isInteger(v) && Math.abs(v) < 9.223372036854776e18 ? String(v) : yamlFloat(v, 64));
  }
  if (v instanceof GoNum) {
    if (v.type.stringer && v.type.name === "time.Duration") return scalarFor(v.type.stringer(v));
    if (FLOAT_KINDS.has(v.type.kind)) return plain(yamlFloat(v.value, v.type.kind === "float32" ? 32 : 64));
    return plain(String(v.value));
  }
  if (v instanceof GoFunc) throw new GoError(`cannot marshal type: ${"func"}`);
  if (v instanceof GoStruct) {
    if (v.type.yaml) return toNode(v.type.yaml(v));
    if (v.type.name === "time.Time" && v.type.json) return plain(v.type.json(v) as string);
    if (v.type.json) return toNode(v.type.json(v));
    const fields = v.type.fields ?? Object.keys(v.fields);
    return { kind: "map", entries: fields.map((f) => [scalarFor(f.toLowerCase()), toNode(v.fields[f])]) };
  }
  if (v instanceof Uint8Array) return { kind: "seq", items: [...v].map((b) => plain(String(b))) };
  if (Array.isArray(v)) return { kind: "seq", items: v.map(toNode) };
  if (isNilCollection(v)) return { kind: "map", entries: [] };
  const m = v as GoMap;
  return {
    kind: "map",
    entries: Object.keys(m)
      .sort(keyCompare)
      .map((k) => [scalarFor(k), toNode(m[k])]),
  };
}

function yamlFloat(f: number, bits: 32 | 64): string {
  const s = formatFloat(f, "g", -1, bits);
  return s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s;
}

const BEST_INDENT = 4;

/** libyaml's emitter state for the parts yaml.v3's Marshal uses. */
class Emitter {
  out = "";
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];
  /** The innermost enclosing context: a sequence item, or anything else. */
  private readonly states: ("seq" | "other")[] = [];

  private put(s: string): void {
    this.out += s;
    this.column += [...s].length;
  }

  private putBreak(): void {
    this.out += "\n";
    this.column = 0;
    this.indention = true;
  }

  /** write_break: a line break of the value, written as itself. */
  private writeBreak(ch: string): void {
    if (ch === "\n") return this.putBreak();
    this.out += ch;
    this.column = 0;
    this.indention = true;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(" ");
    this.whitespace = true;
  }

  private indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.put(text);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (this.states[this.states.length - 1] === "seq") this.indent += 2;
    else this.indent = BEST_INDENT * Math.floor((this.indent + BEST_INDENT) / BEST_INDENT);
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  emitDocument(root: Node): void {
    this.emitNode(root, { simpleKey: false });
    this.indent = -1;
    this.writeIndent();
  }

  private emitNode(n: Node, ctx: { simpleKey: boolean }): void {
    if (n.kind === "scalar") return this.emitScalar(n, ctx.simpleKey);
    if (n.kind === "seq") {
      if (n.items.length === 0) return this.indicatorPair("[", "]");
      this.increaseIndent(false);
      for (const item of n.items) {
        this.writeIndent();
        this.indicator("-", true, false, true);
        this.states.push("seq");
        this.emitNode(item, { simpleKey: false });
        this.states.pop();
      }
      this.popIndent();
      return;
    }
    if (n.entries.length === 0) return this.indicatorPair("{", "}");
    this.increaseIndent(false);
    for (const [k, v] of n.entries) {
      this.writeIndent();
      this.states.push("other");
      if (this.isSimpleKey(k)) {
        this.emitNode(k, { simpleKey: true });
        this.indicator(":", false, false, false);
      } else {
        this.indicator("?", true, false, true);
        this.emitNode(k, { simpleKey: false });
        this.writeIndent();
        this.indicator(":", true, false, true);
      }
      this.emitNode(v, { simpleKey: false });
      this.states.pop();
    }
    this.popIndent();
  }

  private indicatorPair(open: string, close: string): void {
    this.indicator(open, true, true, false);
    this.indicator(close, false, false, false);
  }

  private isSimpleKey(k: Node): boolean {
    if (k.kind === "scalar") return !analyze(k.text).multiline && [...k.text].length <= 128;
    return k.kind === "seq" ? k.items.length === 0 : k.entries.length === 0;
  }

  private emitScalar(n: { text: string; style: Style }, simpleKey: boolean): void {
    const a = analyze(n.text);
    let style = n.style;
    if (simpleKey && a.multiline) style = "double";
    if (style === "plain") {
      if (!a.blockPlain) style = "single";
      if (n.text.length === 0 && simpleKey) style = "single";
    }
    if (style === "single" && !a.single) style = "double";
    if (style === "literal" && (!a.block || simpleKey)) style = "double";
    this.increaseIndent(true);
    switch (style) {
      case "plain":
        if (n.text.length > 0 && !this.whitespace) this.put(" ");
        this.put(n.text);
        this.whitespace = false;
        this.indention = false;
        break;
      case "single":
        this.writeSingle(n.text);
        break;
      case "double":
        this.writeDouble(n.text);
        break;
      case "literal":
        this.writeLiteral(n.text);
        break;
    }
    this.popIndent();
  }

  private writeSingle(value: string): void {
    this.indicator("'", true, false, false);
    let breaks = false;
    for (const ch of value) {
      const c = ch.codePointAt(0)!;
      if (isBreak(c)) {
        if (!breaks && ch === "\n") this.putBreak();
        this.writeBreak(ch);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDouble(value: string): void {
    this.indicator('"', true, false, false);
    let out = "";
    for (const ch of value) {
      const c = ch.codePointAt(0)!;
      if (!isPrintable(c) || c === 0xfeff || isBreak(c) || ch === '"' || ch === "\\") {
        out += escapeCharacter(c);
      } else out += ch;
    }
    this.put(out);
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(value: string): void {
    this.indicator("|", true, false, false);
    const first = value.codePointAt(0)!;
    if (first === 0x20 || isBreak(first)) this.indicator(String(BEST_INDENT), false, false, false);
    const cps = [...value];
    const last = cps[cps.length - 1];
    let chomp = "";
    if (!isBreak(last.codePointAt(0)!)) chomp = "-";
    else if (cps.length === 1 || isBreak(cps[cps.length - 2].codePointAt(0)!)) chomp = "+";
    if (chomp) this.indicator(chomp, false, false, false);
    this.whitespace = true;
    let breaks = true;
    for (const ch of cps) {
      if (isBreak(ch.codePointAt(0)!)) {
        this.writeBreak(ch);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** yaml.v3 Marshal; throws GoError for values YAML cannot hold (functions). */
export function marshalYaml(v: Value): string {
  const e = new Emitter();
  e.emitDocument(toNode(v));
  return e.out;
}
