/**
 * How deeply a YAML or JSON text nests, read without parsing it: the parsers and everything that
 * walks their output recurse once per level, so a file deeper than MAX_NESTING is refused before
 * any of them runs, and whether a file is read never depends on the stack size. The count is
 * close to a parser's, never far below it: open block indentations, sequence dashes on one line,
 * and flow brackets outside quotes, comments and block scalars.
 */

/** Far deeper than any real manifest (the deepest CRD schemas seen nest under 50 levels), far shallower than a stack. */
export const MAX_NESTING = 128;

/** The first line (1-based) where the nesting goes over `limit`, or undefined when it never does. */
export function nestingOver(text: string, limit = MAX_NESTING): number | undefined {
  if (!mayNestOver(text, limit)) return undefined;
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
