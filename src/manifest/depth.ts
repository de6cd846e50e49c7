import * as YAML from "yaml";

/**
 * How deeply a YAML or JSON text nests, known before any recursive parser runs: the parsers and
 * everything that walks their output recurse once per level, so a file deeper than MAX_NESTING is
 * refused first, and whether a file is read never depends on the stack size. A quick scan of the
 * text (open block indentations, sequence dashes, flow brackets outside quotes, comments and block
 * scalars) clears almost every file; one it cannot clear is measured exactly with the `yaml`
 * package's concrete syntax tree, which is built with a stack of its own, not by recursion.
 */

/** Far deeper than any real manifest (the deepest CRD schemas seen nest under 50 levels), far shallower than a stack. */
export const MAX_NESTING = 128;

/** The first line (1-based) where the nesting goes over `limit`, or undefined when it never does. */
export function nestingOver(text: string, limit = MAX_NESTING): number | undefined {
  if (!mayNestOver(text, limit) || scanOver(text, limit) === undefined) return undefined;
  return syntaxTreeOver(text, limit);
}

/**
 * The exact depth of collections: flow collections counted on the lexer's tokens first (a deep
 * one stops it early; the tree of a bracket bomb takes seconds to build), then the whole syntax
 * tree, walked with an explicit stack. The line of the first collection past `limit`.
 */
function syntaxTreeOver(text: string, limit: number): number | undefined {
  let flow = 0;
  let offset = 0;
  for (const token of new YAML.Lexer().lex(text)) {
    const type = YAML.CST.tokenType(token);
    if ((type === "flow-seq-start" || type === "flow-map-start") && ++flow > limit) return lineAt(text, offset);
    if ((type === "flow-seq-end" || type === "flow-map-end") && flow > 0) flow--;
    if (type !== "doc-mode" && type !== "flow-error-end") offset += token.length;
  }
  for (const doc of new YAML.Parser().parse(text)) {
    const stack: [unknown, number][] = [[doc, 0]];
    while (stack.length) {
      const [node, depth] = stack.pop()!;
      const type = (node as { type?: unknown }).type;
      const level = type === "block-map" || type === "block-seq" || type === "flow-collection" ? depth + 1 : depth;
      if (level > limit) return lineAt(text, (node as { offset?: number }).offset ?? 0);
      for (const child of Object.values(node as object)) if (child && typeof child === "object") stack.push([child, level]);
    }
  }
  return undefined;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The quick scan: the line where the nesting may go over `limit` (never far below a parser's count), or undefined. */
function scanOver(text: string, limit: number): number | undefined {
  const indents: number[] = [];
  let flow = 0;
  let blockScalarIndent = -1;
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNo++;
    const line = text.slice(start, end);
    start = end + 1;
    const indent = leadingSpaces(line);
    const blank = indent === line.length || line[indent] === "#" || line[indent] === "\r";
    if (blockScalarIndent >= 0) {
      if (blank || indent > blockScalarIndent) continue;
      blockScalarIndent = -1;
    }
    if (blank) continue;
    if (line.startsWith("---", 0) || line.startsWith("...", 0)) {
      indents.length = 0;
      flow = 0;
      continue;
    }
    if (flow === 0) {
      while (indents.length && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
    }
    const scan = scanLine(line, indent, flow);
    flow = scan.flow;
    if (indents.length + scan.dashes + scan.deepestFlow > limit) return lineNo;
    if (scan.blockScalar) blockScalarIndent = indent;
  }
  return undefined;
}

/**
 * A quick bound (native searches only): fewer than limit/2.5 flow brackets and no line whose
 * indentation and dashes reach limit/2.5 columns nest less than `limit` (indentation gives at
 * most a level a column, dashes one each two columns).
 */
function mayNestOver(text: string, limit: number): boolean {
  const bound = Math.floor(limit / 2.5);
  let brackets = 0;
  for (const open of ["[", "{"]) {
    for (let i = text.indexOf(open); i !== -1 && brackets < bound; i = text.indexOf(open, i + 1)) brackets++;
  }
  return brackets >= bound || deepPrefix(bound).test(text);
}

const prefixes = new Map<number, RegExp>();
function deepPrefix(columns: number): RegExp {
  let re = prefixes.get(columns);
  if (!re) prefixes.set(columns, (re = new RegExp(`^[ \\t-]{${columns},}`, "m")));
  return re;
}

function leadingSpaces(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return i;
}

/** One line's sequence dashes, flow depth at its end and deepest point, and whether a block scalar starts. */
function scanLine(line: string, indent: number, flowAtStart: number): { dashes: number; flow: number; deepestFlow: number; blockScalar: boolean } {
  let i = indent;
  let dashes = 0;
  if (flowAtStart === 0) {
    while (line[i] === "-" && (i + 1 === line.length || line[i + 1] === " " || line[i + 1] === "\t")) {
      dashes++;
      i++;
      while (line[i] === " " || line[i] === "\t") i++;
    }
  }
  let flow = flowAtStart;
  let deepest = flow;
  let quote = "";
  let last = "";
  let end = line.length;
  for (; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) {
        if (quote === "'" && line[i + 1] === "'") i++;
        else quote = "";
      } else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "#" && (last === " " || last === "\t" || last === "")) {
      end = i;
      break;
    }
    if ((c === '"' || c === "'") && (last === "" || " \t[{,:".includes(last))) quote = c;
    else if (c === "[" || c === "{") deepest = Math.max(deepest, ++flow);
    else if ((c === "]" || c === "}") && flow > 0) flow--;
    if (c !== " " && c !== "\t") last = c;
    else last = " ";
  }
  return { dashes, flow, deepestFlow: deepest, blockScalar: flow === 0 && startsBlockScalar(line.slice(indent, end).trimEnd()) };
}

/** `key: |`, `- >-`, `|2`: the line's last token is a block scalar indicator, after a key, a dash or nothing. */
function startsBlockScalar(content: string): boolean {
  const space = Math.max(content.lastIndexOf(" "), content.lastIndexOf("\t"));
  const token = content.slice(space + 1);
  if (token[0] !== "|" && token[0] !== ">") return false;
  for (let k = 1; k < token.length; k++) if (!"-+0123456789".includes(token[k]!)) return false;
  const before = content.slice(0, space + 1).trimEnd();
  return before === "" || before.endsWith(":") || before === "-" || before.endsWith(" -");
}
