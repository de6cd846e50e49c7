import { Item, lex, tokenString, type Token } from "./lex.js";
import {
  isEmptyTree,
  nodeString,
  type ArgNode,
  type BranchNode,
  type CommandNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type TemplateNode,
  type Tree,
  type VariableNode,
} from "./nodes.js";
import { INT64_MAX, INT64_MIN, parseFloat64, parseInt0, parseUint0 } from "../go/number.js";
import { quoteGo, unquoteChar, unquoteGo } from "../go/quote.js";

/** The parser of text/template/parse (parse.go): text to trees, one per template defined. */

export class ParseError extends Error {}

export interface ParseOptions {
  left: string;
  right: string;
  hasFunction(name: string): boolean;
  /** parse.SkipFuncCheck: identifiers need not name a function yet. */
  skipFuncCheck?: boolean;
}

/** Parses `text` as template `name`; the trees of the main text and of every define, by name. */
export function parse(name: string, text: string, opts: ParseOptions): Map<string, Tree> {
  const tokens = lex(text, {
    left: opts.left || "{{",
    right: opts.right || "}}",
    emitComment: false,
    breakOK: !opts.hasFunction("break"),
    continueOK: !opts.hasFunction("continue"),
  });
  const treeSet = new Map<string, Tree>();
  const p = new Parser(name, name, text, tokens, opts, treeSet);
  p.parseMain();
  return treeSet;
}

const STRING_TYPES = new Set([Item.String, Item.RawString]);

class Parser {
  private readonly token: Token[] = [];
  private peekCount = 0;
  private vars: string[] = ["$"];
  private actionLine = 0;
  private rangeDepth = 0;
  private tree: Tree;
  private readonly cursor: { i: number };

  constructor(
    name: string,
    private readonly parseName: string,
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly opts: ParseOptions,
    private readonly treeSet: Map<string, Tree>,
    cursor?: { i: number },
  ) {
    this.tree = { name, parseName, text, root: undefined as unknown as ListNode };
    this.cursor = cursor ?? { i: 0 };
  }

  // ---- tokens (parse.go's three-token lookahead) ----

  private lexNext(): Token {
    const t = this.tokens[this.cursor.i];
    if (this.cursor.i < this.tokens.length - 1) this.cursor.i++;
    return t;
  }

  private next(): Token {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lexNext();
    return this.token[this.peekCount];
  }

  private backup(): void {
    this.peekCount++;
  }

  private backup2(t1: Token): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }

  private backup3(t2: Token, t1: Token): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }

  private peek(): Token {
    if (this.peekCount > 0) return this.token[this.peekCount - 1];
    this.peekCount = 1;
    this.token[0] = this.lexNext();
    return this.token[0];
  }

  private nextNonSpace(): Token {
    let t: Token;
    do t = this.next();
    while (t.typ === Item.Space);
    return t;
  }

  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }

  // ---- errors ----

  private errorf(msg: string): never {
    throw new ParseError(`template: ${this.parseName}:${this.token[0]?.line ?? 1}: ${msg}`);
  }

  private expect(expected: Item, context: string): Token {
    const t = this.nextNonSpace();
    if (t.typ !== expected) this.unexpected(t, context);
    return t;
  }

  private unexpected(t: Token, context: string): never {
    if (t.typ === Item.Error) {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== t.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (t.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${tokenString(t)}${extra}`);
    }
    this.errorf(`unexpected ${tokenString(t)} in ${context}`);
  }

  // ---- structure ----

  parseMain(): void {
    this.tree.root = this.newList(this.peek().pos);
    while (this.peek().typ !== Item.EOF) {
      if (this.peek().typ === Item.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().typ === Item.Define) {
          const def = this.child("definition");
          def.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") this.errorf(`unexpected ${nodeString(n)}`);
      this.tree.root.nodes.push(n);
    }
    this.add();
  }

  /** A parser for a define or block body, sharing the token stream. */
  private child(name: string): Parser {
    const p = new Parser(name, this.parseName, this.text, this.tokens, this.opts, this.treeSet, this.cursor);
    // The child continues where this parser stands: hand over pending lookahead.
    p.token.push(...this.token);
    p.peekCount = this.peekCount;
    this.peekCount = 0;
    return p;
  }

  private resume(from: Parser): void {
    this.token.length = 0;
    this.token.push(...from.token);
    this.peekCount = from.peekCount;
  }

  private add(): void {
    const existing = this.treeSet.get(this.tree.name);
    if (!existing || isEmptyTree(existing.root)) {
      this.treeSet.set(this.tree.name, this.tree);
      return;
    }
    if (!isEmptyTree(this.tree.root)) this.errorf(`template: multiple definition of template ${quoteGo(this.tree.name)}`);
  }

  private parseDefinition(): void {
    const context = "define clause";
    const name = this.nextNonSpace();
    if (!STRING_TYPES.has(name.typ)) this.unexpected(name, context);
    this.tree.name = this.unquote(name.val);
    this.expect(Item.RightDelim, context);
    const [list, end] = this.itemList();
    this.tree.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  private itemList(): [ListNode, Node] {
    const list = this.newList(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== Item.EOF) {
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case Item.Text:
        return { type: "text", pos: t.pos, tree: this.tree, text: t.val };
      case Item.LeftDelim: {
        this.actionLine = t.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      case Item.Comment:
        return { type: "comment", pos: t.pos, tree: this.tree, text: t.val };
      default:
        this.unexpected(t, "input");
    }
  }

  private action(): Node {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case Item.Block:
        return this.blockControl();
      case Item.Break:
        return this.breakOrContinue("break", t);
      case Item.Continue:
        return this.breakOrContinue("continue", t);
      case Item.Else:
        return this.elseControl();
      case Item.End:
        return { type: "end", pos: this.expect(Item.RightDelim, "end").pos, tree: this.tree };
      case Item.If:
        return this.branch("if", true);
      case Item.Range:
        return this.branch("range", false);
      case Item.Template:
        return this.templateControl();
      case Item.With:
        return this.branch("with", true);
    }
    this.backup();
    const tok = this.peek();
    return { type: "action", pos: tok.pos, tree: this.tree, line: tok.line, pipe: this.pipeline("command", Item.RightDelim) };
  }

  private breakOrContinue(kind: "break" | "continue", t: Token): Node {
    const tok = this.nextNonSpace();
    if (tok.typ !== Item.RightDelim) this.unexpected(tok, `{{${kind}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${kind}}} outside {{range}}`);
    return { type: kind, pos: t.pos, tree: this.tree, line: t.line };
  }

  private pipeline(context: string, end: Item): PipeNode {
    const tok = this.peekNonSpace();
    const pipe: PipeNode = { type: "pipe", pos: tok.pos, tree: this.tree, line: tok.line, isAssign: false, decl: [], cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== Item.Variable) break;
      this.next();
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.typ === Item.Assign || next.typ === Item.Declare) {
        pipe.isAssign = next.typ === Item.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (next.typ === Item.Char && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === Item.Variable || p === Item.RightDelim || p === Item.RightParen) continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.typ === Item.Space) {
        this.backup3(v, tokenAfterVariable);
      } else {
        this.backup2(v);
      }
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      switch (t.typ) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case Item.Bool:
        case Item.CharConstant:
        case Item.Complex:
        case Item.Dot:
        case Item.Field:
        case Item.Identifier:
        case Item.Number:
        case Item.Nil:
        case Item.RawString:
        case Item.String:
        case Item.Variable:
        case Item.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0].type;
      if (t === "bool" || t === "dot" || t === "nil" || t === "number" || t === "string") {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private branch(context: "if" | "range" | "with", allowElseChain: boolean): BranchNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, Item.RightDelim);
      if (context === "range") this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.type === "else") {
        const follows = this.peek().typ;
        if (allowElseChain && context === "if" && follows === Item.If) {
          this.next();
          elseList = this.newList(next.pos);
          elseList.nodes.push(this.branch("if", true));
        } else if (allowElseChain && context === "with" && follows === Item.With) {
          this.next();
          elseList = this.newList(next.pos);
          elseList.nodes.push(this.branch("with", true));
        } else {
          [elseList, next] = this.itemList();
          if (next.type !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { type: context, pos: pipe.pos, tree: this.tree, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private elseControl(): Node {
    const peek = this.peekNonSpace();
    if (peek.typ === Item.If || peek.typ === Item.With) return { type: "else", pos: peek.pos, tree: this.tree, line: peek.line };
    const t = this.expect(Item.RightDelim, "else");
    return { type: "else", pos: t.pos, tree: this.tree, line: t.line };
  }

  private blockControl(): Node {
    const context = "block clause";
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    const pipe = this.pipeline(context, Item.RightDelim);
    const block = this.child(name);
    const [list, end] = block.itemList();
    block.tree.root = list;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    this.resume(block);
    return { type: "template", pos: t.pos, tree: this.tree, line: t.line, name, pipe } satisfies TemplateNode;
  }

  private templateControl(): Node {
    const context = "template clause";
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().typ !== Item.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, Item.RightDelim);
    }
    return { type: "template", pos: t.pos, tree: this.tree, line: t.line, name, pipe } satisfies TemplateNode;
  }

  private templateName(t: Token, context: string): string {
    if (!STRING_TYPES.has(t.typ)) this.unexpected(t, context);
    return this.unquote(t.val);
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: "command", pos: this.peekNonSpace().pos, tree: this.tree, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.typ === Item.Space) continue;
      if (t.typ === Item.RightDelim || t.typ === Item.RightParen) this.backup();
      else if (t.typ !== Item.Pipe) this.unexpected(t, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): ArgNode | undefined {
    let node = this.term();
    if (!node) return undefined;
    if (this.peek().typ === Item.Field) {
      const pos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === Item.Field) fields.push(this.next().val.slice(1));
      switch (node.type) {
        case "field":
          node = { type: "field", pos, tree: this.tree, ident: [...node.ident, ...fields] };
          break;
        case "variable":
          node = { type: "variable", pos, tree: this.tree, ident: [...node.ident, ...fields] };
          break;
        case "bool":
        case "string":
        case "number":
        case "nil":
        // biome-ignore lint/suspicious/noFallthroughSwitchClause: errorf throws
        case "dot":
          this.errorf(`unexpected . after term ${quoteGo(nodeString(node))}`);
        default:
          node = { type: "chain", pos, tree: this.tree, node, field: fields };
      }
    }
    return node;
  }

  private term(): ArgNode | undefined {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case Item.Identifier:
        if (!this.opts.skipFuncCheck && !this.opts.hasFunction(t.val)) this.errorf(`function ${quoteGo(t.val)} not defined`);
        return { type: "identifier", pos: t.pos, tree: this.tree, ident: t.val };
      case Item.Dot:
        return { type: "dot", pos: t.pos, tree: this.tree };
      case Item.Nil:
        return { type: "nil", pos: t.pos, tree: this.tree };
      case Item.Variable:
        return this.useVar(t.pos, t.val);
      case Item.Field:
        return { type: "field", pos: t.pos, tree: this.tree, ident: t.val.slice(1).split(".") };
      case Item.Bool:
        return { type: "bool", pos: t.pos, tree: this.tree, value: t.val === "true" };
      case Item.CharConstant:
      case Item.Complex:
      case Item.Number:
        return this.newNumber(t);
      case Item.LeftParen:
        return this.pipeline("parenthesized pipeline", Item.RightParen);
      case Item.String:
      case Item.RawString:
        return { type: "string", pos: t.pos, tree: this.tree, quoted: t.val, text: this.unquote(t.val) };
    }
    this.backup();
    return undefined;
  }

  private unquote(lit: string): string {
    try {
      return unquoteGo(lit);
    } catch {
      this.errorf("invalid syntax");
    }
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = this.newVariable(pos, name);
    if (!this.vars.includes(v.ident[0])) this.errorf(`undefined variable ${quoteGo(v.ident[0])}`);
    return v;
  }

  private newVariable(pos: number, name: string): VariableNode {
    return { type: "variable", pos, tree: this.tree, ident: name.split(".") };
  }

  private newList(pos: number): ListNode {
    return { type: "list", pos, tree: this.tree, nodes: [] };
  }

  private newNumber(t: Token): NumberNode {
    const n: NumberNode = {
      type: "number",
      pos: t.pos,
      tree: this.tree,
      text: t.val,
      isInt: false,
      isUint: false,
      isFloat: false,
      isComplex: false,
      int: 0,
      uint: 0,
      float: 0,
    };
    const text = t.val;
    if (t.typ === Item.CharConstant) {
      let ch: string | number;
      let next: number;
      try {
        [ch, , next] = unquoteChar(text, 1, text[0]);
      } catch {
        this.errorf("invalid syntax");
      }
      if (text.slice(next) !== "'") this.errorf(`malformed character constant: ${text}`);
      const cp = typeof ch === "number" ? ch : ch.codePointAt(0)!;
      Object.assign(n, { int: cp, isInt: true, uint: cp, isUint: true, float: cp, isFloat: true, big: BigInt(cp) });
      return n;
    }
    if (t.typ === Item.Complex || (text.endsWith("i") && parseFloat64(text.slice(0, -1)) !== undefined)) {
      n.isComplex = true;
      return n;
    }
    const u = parseUint0(text);
    if (u !== undefined) {
      n.isUint = true;
      n.uint = Number(u);
    }
    const i = parseInt0(text);
    if (i !== undefined) {
      n.isInt = true;
      n.int = Number(i);
      n.big = i;
      if (i === 0n) {
        n.isUint = true;
        n.uint = Number(u ?? 0n);
      }
    }
    if (n.isInt) {
      n.isFloat = true;
      n.float = n.int;
    } else if (n.isUint) {
      n.isFloat = true;
      n.float = n.uint;
      n.big = u;
    } else {
      const f = parseFloat64(text);
      if (f !== undefined) {
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${quoteGo(text)}`);
        n.isFloat = true;
        n.float = f;
        if (Number.isInteger(f) && f >= Number(INT64_MIN) && f < Number(INT64_MAX)) {
          n.isInt = true;
          n.int = f;
          n.big = BigInt(f);
        }
        if (Number.isInteger(f) && f >= 0 && f < 18446744073709551616) {
          n.isUint = true;
          n.uint = f;
        }
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.errorf(`illegal number syntax: ${quoteGo(text)}`);
    return n;
  }
}
