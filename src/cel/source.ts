/**
 * Expression text and tree, before and after cel-js parses it. Two calls are renamed to functions
 * of libraries.ts: `matches` goes to RE2 (cel-js runs it on JavaScript's backtracking RegExp, which
 * a repository pattern could stall, and whose syntax is not RE2's), and `.orValue` takes a value
 * that is not optional as cel-go does (returns it), where cel-js's macro refuses it. The tree is
 * measured for the budget.
 */

const RENAMED: Record<string, string> = { matches: "re2Matches", orValue: "orValueLenient" };

/** The text with those calls renamed, string literals untouched. */
export function renameCalls(text: string): string {
  if (!text.includes("matches") && !text.includes("orValue")) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j++;
      const word = text.slice(i, j);
      const raw = (word === "r" || word === "R" || word === "b" || word === "B" || /^[rRbB]{2}$/.test(word)) && (text[j] === '"' || text[j] === "'");
      if (raw) {
        const end = stringEnd(text, j, true);
        out += text.slice(i, end);
        i = end;
        continue;
      }
      const renamed = Object.hasOwn(RENAMED, word) && /^\s*\(/.test(text.slice(j)) && (word === "matches" || /\.\s*$/.test(out));
      out += renamed ? RENAMED[word] : word;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function stringEnd(text: string, start: number, raw = false): number {
  const q = text[start]!;
  const triple = text.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  let i = start + close.length;
  while (i < text.length) {
    if (!raw && text[i] === "\\") {
      i += 2;
      continue;
    }
    if (text.startsWith(close, i)) return i + close.length;
    if (!triple && text[i] === "\n") return i;
    i++;
  }
  return text.length;
}

export interface Shape {
  /** How deeply comprehensions nest: a loop's cost grows as size^depth. */
  depth: number;
  /** Whether the expression makes lists out of strings (split, findAll): string lengths then bound loops too. */
  splitsStrings: boolean;
  /** The top-level identifiers it reads. */
  identifiers: Set<string>;
  /** Those not bound by a comprehension or `cel.bind` around them: the variables it needs. */
  free: Set<string>;
  /** The names of the functions it calls (global or as methods). */
  calls: Set<string>;
}

type Node = { op: string; args: unknown };

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter", "transformList", "transformMap", "transformMapEntry", "sortBy"]);

export function shapeOf(ast: Node): Shape {
  const shape: Shape = { depth: 0, splitsStrings: false, identifiers: new Set(), free: freeIdentifiers(ast), calls: new Set() };
  const visit = (node: unknown, depth: number): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, depth);
      return;
    }
    const n = node as Node;
    if (typeof n.op !== "string") return;
    if (n.op === "id" && typeof n.args === "string") shape.identifiers.add(n.args);
    if ((n.op === "call" || n.op === "rcall") && Array.isArray(n.args) && typeof n.args[0] === "string") shape.calls.add(n.args[0]);
    if (n.op === "rcall" && Array.isArray(n.args)) {
      const name = n.args[0] as string;
      if (name === "split" || name === "findAll") shape.splitsStrings = true;
      if (MACROS.has(name)) {
        shape.depth = Math.max(shape.depth, depth + 1);
        visit(n.args[1], depth);
        visit(n.args[2], depth + 1);
        return;
      }
    }
    if (Array.isArray(n.args)) visit(n.args, depth);
    else if (n.args && typeof n.args === "object") visit(n.args, depth);
  };
  visit(ast, 0);
  return shape;
}

/** Comprehensions that bind two variables when given three arguments or more (cel-go's two-variable forms). */
const TWO_VARIABLE = new Set(["all", "exists", "exists_one", "existsOne", "transformList", "transformMap", "transformMapEntry"]);

/** The identifiers an expression reads that no macro or `cel.bind` inside it binds. */
function freeIdentifiers(ast: Node): Set<string> {
  const free = new Set<string>();
  const visit = (node: unknown, bound: ReadonlySet<string>): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, bound);
      return;
    }
    const n = node as Node;
    if (typeof n.op !== "string") return;
    if (n.op === "id" && typeof n.args === "string") {
      if (!bound.has(n.args)) free.add(n.args);
      return;
    }
    if (n.op === "rcall" && Array.isArray(n.args) && Array.isArray(n.args[2])) {
      const [name, receiver, list] = n.args as [string, Node, Node[]];
      const isBind = name === "bind" && receiver?.op === "id" && receiver.args === "cel";
      const variables = isBind
        ? 1
        : MACROS.has(name) || name === "existsOne"
          ? TWO_VARIABLE.has(name) && (list.length >= 3 || name.startsWith("transform"))
            ? 2
            : 1
          : 0;
      const names = list
        .slice(0, variables)
        .filter((v) => v?.op === "id")
        .map((v) => v.args as string);
      if (names.length === variables && variables > 0) {
        if (!isBind) visit(receiver, bound);
        const inner = new Set([...bound, ...names]);
        if (isBind) {
          visit(list[1], bound);
          visit(list.slice(2), inner);
        } else visit(list.slice(variables), inner);
        return;
      }
    }
    visit(n.args, bound);
  };
  visit(ast, new Set());
  return free;
}
