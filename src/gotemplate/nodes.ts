import { quoteGo } from "../go/quote.js";

/** The parse tree of text/template/parse (node.go), with Go's String() forms for error messages. */

export interface Tree {
  name: string;
  /** The name of the template the text was parsed under (used in error locations). */
  parseName: string;
  text: string;
  root: ListNode;
}

interface Base {
  pos: number;
  tree: Tree;
}

export interface ListNode extends Base {
  type: "list";
  nodes: Node[];
}
export interface TextNode extends Base {
  type: "text";
  text: string;
}
export interface CommentNode extends Base {
  type: "comment";
  text: string;
}
export interface ActionNode extends Base {
  type: "action";
  line: number;
  pipe: PipeNode;
}
export interface PipeNode extends Base {
  type: "pipe";
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Base {
  type: "command";
  args: ArgNode[];
}
export interface IdentifierNode extends Base {
  type: "identifier";
  ident: string;
}
export interface VariableNode extends Base {
  type: "variable";
  ident: string[];
}
export interface DotNode extends Base {
  type: "dot";
}
export interface NilNode extends Base {
  type: "nil";
}
export interface FieldNode extends Base {
  type: "field";
  ident: string[];
}
export interface ChainNode extends Base {
  type: "chain";
  node: ArgNode;
  field: string[];
}
export interface BoolNode extends Base {
  type: "bool";
  value: boolean;
}
export interface NumberNode extends Base {
  type: "number";
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int: number;
  uint: number;
  float: number;
  /** Exact integer value, for overflow checks. */
  big?: bigint;
}
export interface StringNode extends Base {
  type: "string";
  quoted: string;
  text: string;
}
export interface BranchNode extends Base {
  type: "if" | "range" | "with";
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList?: ListNode;
}
export interface BreakNode extends Base {
  type: "break";
  line: number;
}
export interface ContinueNode extends Base {
  type: "continue";
  line: number;
}
export interface TemplateNode extends Base {
  type: "template";
  line: number;
  name: string;
  pipe?: PipeNode;
}
/** `end` and `else` exist only while parsing. */
export interface EndNode extends Base {
  type: "end";
}
export interface ElseNode extends Base {
  type: "else";
  line: number;
}

export type ArgNode = IdentifierNode | VariableNode | DotNode | NilNode | FieldNode | ChainNode | BoolNode | NumberNode | StringNode | PipeNode;

export type Node =
  | ListNode
  | TextNode
  | CommentNode
  | ActionNode
  | CommandNode
  | ArgNode
  | BranchNode
  | BreakNode
  | ContinueNode
  | TemplateNode
  | EndNode
  | ElseNode;

export function nodeString(n: Node): string {
  switch (n.type) {
    case "list":
      return n.nodes.map(nodeString).join("");
    case "text":
      return quoteGo(n.text);
    case "comment":
      return `{{${n.text}}}`;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "pipe": {
      let s = "";
      if (n.decl.length > 0) s = n.decl.map(nodeString).join(", ") + " := ";
      return s + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.type === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "identifier":
      return n.ident;
    case "variable":
      return n.ident.join(".");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "field":
      return n.ident.map((f) => "." + f).join("");
    case "chain": {
      const head = n.node.type === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node);
      return head + n.field.map((f) => "." + f).join("");
    }
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "if":
    case "range":
    case "with":
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}` + (n.elseList ? `{{else}}${nodeString(n.elseList)}` : "") + "{{end}}";
    case "break":
      return "{{break}}";
    case "continue":
      return "{{continue}}";
    case "template":
      return `{{template ${quoteGo(n.name)}${n.pipe ? " " + nodeString(n.pipe) : ""}}}`;
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
  }
}

/** parse.IsEmptyTree: only spaces and comments. */
export function isEmptyTree(n: Node | undefined): boolean {
  if (!n) return true;
  switch (n.type) {
    case "comment":
      return true;
    case "list":
      return n.nodes.every(isEmptyTree);
    case "text":
      return n.text.trim() === "" && !/[^\s]/.test(n.text);
    default:
      return false;
  }
}
