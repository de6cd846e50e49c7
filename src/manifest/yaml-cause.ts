import * as YAML from "yaml";
import type { Finding } from "../core/finding.js";

/**
 * YAML errors placed at their cause. The `yaml` parser notices an unclosed quote where the text
 * ends (a quoted string may run over many lines), and an alias without its anchor when it builds
 * the document, which it places at the document's start; a reader needs the line of the opening
 * quote and of the alias. Both are found on the parser's concrete syntax tree (offsets, no values
 * built), in one pass over the file, only for a file that has such an error.
 */

const UNCLOSED_QUOTE = /^Missing closing (['"])quote/;
const UNRESOLVED_ALIAS = /^Unresolved alias \(the anchor must be set before the alias\): ([^\s(]+)/;

interface Token {
  type?: string;
  offset?: number;
  source?: string;
}

interface Marks {
  quoted: Token[];
  anchors: Token[];
  aliases: Token[];
  /** Where each document starts. */
  documents: number[];
}

/** The quoted scalars, anchors and aliases of the text, in order. */
function marks(text: string): Marks {
  const out: Marks = { quoted: [], anchors: [], aliases: [], documents: [] };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (!node || typeof node !== "object") return;
    const t = node as Token & Record<string, unknown>;
    if (t.type === "double-quoted-scalar" || t.type === "single-quoted-scalar") out.quoted.push(t);
    else if (t.type === "anchor") out.anchors.push(t);
    else if (t.type === "alias") out.aliases.push(t);
    for (const key of ["start", "key", "sep", "value", "items", "end", "props"]) if (key in t) walk(t[key]);
  };
  for (const doc of new YAML.Parser().parse(text)) {
    if (doc.type === "document") out.documents.push(doc.offset);
    walk(doc);
  }
  return out;
}

/** 1-based line and column of an offset, and back. */
class Lines {
  private readonly starts = [0];
  constructor(text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }
  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
  offset(line: number, column: number): number {
    return (this.starts[Math.min(line, this.starts.length) - 1] ?? 0) + Math.max(0, column - 1);
  }
}

/**
 * The offset where the quoted string an unclosed-quote error (at `errorOffset`, where the text ran
 * out) begins: the last string quoted with that quote that starts before the error and is not
 * closed by its own quote.
 */
export function unclosedQuoteStart(text: string, errorOffset: number, quote: string, found = marks(text)): number | undefined {
  const type = quote === '"' ? "double-quoted-scalar" : "single-quoted-scalar";
  let best: number | undefined;
  for (const t of found.quoted) {
    if (t.type !== type || t.offset === undefined || t.offset > errorOffset) continue;
    const src = t.source ?? "";
    const closed = src.length > 1 && src.endsWith(quote) && (quote === '"' ? !/(^|[^\\])(\\\\)*\\"$/.test(src) : true);
    if (!closed) best = t.offset;
  }
  return best;
}

/** The offset of the first alias `*name` at or after `from` (and before `to`) with no `&name` before it there. */
export function unresolvedAliasAt(text: string, name: string, from = 0, to = Infinity, found = marks(text)): number | undefined {
  for (const alias of found.aliases) {
    const at = alias.offset ?? -1;
    if (at < from || at >= to || alias.source !== `*${name}`) continue;
    const anchored = found.anchors.some((a) => a.source === `&${name}` && (a.offset ?? Infinity) >= from && (a.offset ?? Infinity) < at);
    if (!anchored) return at;
  }
  return undefined;
}

/**
 * The loader's YAML findings, each unclosed quote and unresolved alias moved to its cause. Other
 * findings are returned as they are.
 */
export function pointAtCause(text: string, errors: Finding[]): Finding[] {
  if (!errors.some((e) => e.rule === "yaml/syntax" && (UNCLOSED_QUOTE.test(e.message) || UNRESOLVED_ALIAS.test(e.message)))) return errors;
  const found = marks(text);
  const lines = new Lines(text);
  return errors.map((e) => {
    if (e.rule !== "yaml/syntax" || e.line === undefined) return e;
    const quote = UNCLOSED_QUOTE.exec(e.message);
    if (quote) {
      const start = unclosedQuoteStart(text, lines.offset(e.line, e.column ?? 1), quote[1]!, found);
      if (start === undefined) return e;
      const at = lines.at(start);
      if (at.line === e.line) return e;
      return { ...e, ...at, message: `${e.message}: the string quoted here is never closed, so everything after it is read as part of it` };
    }
    const alias = UNRESOLVED_ALIAS.exec(e.message);
    if (alias) {
      const from = lines.offset(e.line, e.column ?? 1);
      const next = found.documents.find((d) => d > from) ?? Infinity;
      const at = unresolvedAliasAt(text, alias[1]!, from, next, found);
      return at === undefined ? e : { ...e, ...lines.at(at) };
    }
    return e;
  });
}

/** For the config: the line of an error's cause, given the `yaml` error and the text. */
export function causeLine(text: string, message: string, line: number | undefined, column = 1): number | undefined {
  if (line === undefined) return line;
  const [moved] = pointAtCause(text, [{ rule: "yaml/syntax", severity: "error", message, line, column }]);
  return moved!.line;
}
