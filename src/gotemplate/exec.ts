import { BudgetExceeded, charge, chargeChars, chargeValue, withBudget } from "./budget.js";
import { formatValue } from "../go/fmt.js";
import {
  nodeString,
  type ArgNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type TemplateNode,
  type Tree,
  type VariableNode,
  type BranchNode,
} from "./nodes.js";
import { quoteGo } from "../go/quote.js";
import { sortedKeys } from "../go/sort.js";
import {
  GoError,
  GoFunc,
  GoNum,
  GoStruct,
  INT_KINDS,
  T,
  UINT_KINDS,
  byteLength,
  float64,
  int,
  nilOf,
  numberAs,
  typeOf,
  type CallContext,
  type GoMap,
  type GoType,
  type Value,
} from "../go/values.js";

/** Execution of parsed templates (text/template/exec.go) over the value model of types.ts. */

export type MissingKey = "invalid" | "zero" | "error";

/** What an execution reads from the template set it belongs to. */
export interface ExecSet {
  lookup(name: string): Tree | undefined;
  findFunction(name: string): { fn: GoFunc; builtin: boolean } | undefined;
  missingKey: MissingKey;
}

export class ExecError extends Error {
  constructor(
    message: string,
    readonly templateName: string,
  ) {
    super(message);
  }
}

/** Go's maxExecDepth. Deeper nesting overflows the JS stack first; that is reported the same way. */
export const MAX_EXEC_DEPTH = 100000;

/** The final argument of a command when the pipeline gives none (Go's missingVal). */
const MISSING = Symbol("missing");
type Final = Value | typeof MISSING;

const enum Flow {
  Normal,
  Break,
  Continue,
}

interface Variable {
  name: string;
  value: Value;
}

function zeroOf(type: GoType): Value {
  switch (type.kind) {
    case "bool":
      return false;
    case "string":
      return "";
    case "interface":
      return null;
    case "slice":
    case "map":
      return nilOf(type);
    case "ptr":
    case "func":
    case "chan":
      return null;
  }
  if (INT_KINDS.has(type.kind) || UINT_KINDS.has(type.kind) || type.kind.startsWith("float")) return numberAs(type, 0);
  return null;
}

function canBeNil(type: GoType): boolean {
  switch (type.kind) {
    case "chan":
    case "func":
    case "interface":
    case "map":
    case "ptr":
    case "slice":
      return true;
    case "struct":
      return type === T.reflectValue;
  }
  return false;
}

/** Go's truth of a value (isTrue): [truth, ok]. */
export function isTrue(v: Value): [boolean, boolean] {
  switch (typeof v) {
    case "undefined":
      return [false, true];
    case "boolean":
      return [v, true];
    case "string":
      return [v.length > 0, true];
    case "number":
      return [v !== 0, true];
  }
  if (v === null) return [false, true];
  if (v instanceof GoNum) return [v.value !== 0, true];
  if (v instanceof GoStruct) return [true, true];
  if (v instanceof GoFunc) return [true, true];
  if (v instanceof Uint8Array || Array.isArray(v)) return [v.length > 0, true];
  return [Object.keys(v).length > 0, true];
}

export function assignable(v: Value, type: GoType): boolean {
  if (type.kind === "interface") return true;
  const t = typeOf(v);
  return t !== undefined && (t === type || t.name === type.name);
}

export class State {
  out = "";
  node: Node | undefined;
  private vars: Variable[];

  constructor(
    private readonly set: ExecSet,
    private tmplName: string,
    readonly ctx: CallContext,
    dot: Value,
    private readonly depth: number,
  ) {
    this.vars = [{ name: "$", value: dot }];
  }

  // ---- errors ----

  errorf(msg: string): never {
    const name = this.tmplName;
    const n = this.node;
    if (!n) throw new ExecError(`template: ${name}: ${msg}`, name);
    const text = n.tree.text.slice(0, n.pos);
    const nl = text.lastIndexOf("\n");
    const col = byteLength(nl < 0 ? text : text.slice(nl + 1));
    let line = 1;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) line++;
    throw new ExecError(`template: ${n.tree.parseName}:${line}:${col}: executing ${quoteGo(name)} at <${nodeString(n)}>: ${msg}`, name);
  }

  // ---- variables ----

  private mark(): number {
    return this.vars.length;
  }

  private pop(mark: number): void {
    this.vars.length = mark;
  }

  private setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private setTopVar(n: number, value: Value): void {
    this.vars[this.vars.length - n].value = value;
  }

  private varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    this.errorf(`undefined variable: ${name}`);
  }

  // ---- walking ----

  walk(dot: Value, node: Node): Flow {
    this.node = node;
    charge(1);
    switch (node.type) {
      case "action": {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return Flow.Normal;
      }
      case "text":
        chargeChars(node.text.length);
        this.out += node.text;
        return Flow.Normal;
      case "list":
        for (const n of node.nodes) {
          const flow = this.walk(dot, n);
          if (flow !== Flow.Normal) return flow;
        }
        return Flow.Normal;
      case "if":
      case "with":
        return this.walkIfOrWith(dot, node);
      case "range":
        return this.walkRange(dot, node);
      case "template":
        this.walkTemplate(dot, node);
        return Flow.Normal;
      case "break":
        return Flow.Break;
      case "continue":
        return Flow.Continue;
      case "comment":
        return Flow.Normal;
    }
    this.errorf(`unknown node: ${nodeString(node)}`);
  }

  private walkIfOrWith(dot: Value, node: BranchNode): Flow {
    const mark = this.mark();
    try {
      const val = this.evalPipeline(dot, node.pipe);
      const [truth, ok] = isTrue(val === null ? undefined : val);
      if (!ok) this.errorf(`if/with can't use ${formatValue(val)}`);
      if (truth) return this.walk(node.type === "with" ? val : dot, node.list);
      if (node.elseList) return this.walk(dot, node.elseList);
      return Flow.Normal;
    } finally {
      this.pop(mark);
    }
  }

  private walkRange(dot: Value, r: BranchNode): Flow {
    this.node = r;
    const outer = this.mark();
    try {
      const val = this.evalPipeline(dot, r.pipe);
      const mark = this.mark();
      const decl = r.pipe.decl;
      // One iteration; true when the loop must stop ({{break}}).
      const iteration = (index: Value, elem: Value): boolean => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[0].ident[0], decl.length > 1 ? index : elem);
          else this.setTopVar(1, elem);
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1].ident[0], elem);
          else this.setTopVar(2, index);
        }
        try {
          return this.walk(elem, r.list) === Flow.Break;
        } finally {
          this.pop(mark);
        }
      };
      if (Array.isArray(val) || val instanceof Uint8Array) {
        if (val.length > 0) {
          const bytes = val instanceof Uint8Array;
          for (let i = 0; i < val.length; i++) {
            const elem = bytes ? new GoNum(T.uint8, val[i] as number) : (val as Value[])[i];
            if (iteration(int(i), elem)) break;
          }
          return Flow.Normal;
        }
      } else if (
        val !== undefined &&
        val !== null &&
        typeof val === "object" &&
        !(val instanceof GoNum) &&
        !(val instanceof GoStruct) &&
        !(val instanceof GoFunc)
      ) {
        const keys = sortedKeys(val);
        if (keys.length > 0) {
          for (const k of keys) if (iteration(k, (val as GoMap)[k])) break;
          return Flow.Normal;
        }
      } else if (val !== undefined && val !== null) {
        const type = typeOf(val)!;
        if (INT_KINDS.has(type.kind) || UINT_KINDS.has(type.kind)) {
          if (decl.length > 1) this.errorf(`can't use ${formatValue(val)} to iterate over more than one variable`);
          const n = val instanceof GoNum ? val.value : (val as number);
          if (n > 0) {
            for (let i = 0; i < n; i++) {
              const v = numberAs(type, i);
              if (iteration(v, v)) break;
            }
            return Flow.Normal;
          }
        } else this.errorf(`range can't iterate over ${formatValue(val)}`);
      }
      if (r.elseList) return this.walk(dot, r.elseList);
      return Flow.Normal;
    } finally {
      this.pop(outer);
    }
  }

  private walkTemplate(dot: Value, t: TemplateNode): void {
    this.node = t;
    const tree = this.set.lookup(t.name);
    if (!tree) this.errorf(`template ${quoteGo(t.name)} not defined`);
    if (this.depth === MAX_EXEC_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    const newDot = this.evalPipeline(dot, t.pipe);
    const inner = new State(this.set, t.name, this.ctx, newDot, this.depth + 1);
    try {
      inner.walk(newDot, tree.root);
    } finally {
      this.out += inner.out;
    }
  }

  // ---- evaluation ----

  evalPipeline(dot: Value, pipe: PipeNode | undefined): Value {
    if (!pipe) return undefined;
    this.node = pipe;
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // A value of interface type is replaced by the value inside: a nil interface is invalid.
      if (value === null) value = undefined;
    }
    const v = value as Value;
    for (const variable of pipe.decl) {
      if (pipe.isAssign) this.setVar(variable.ident[0], v);
      else this.vars.push({ name: variable.ident[0], value: v });
    }
    return v;
  }

  private notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0])}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Final): Value {
    charge(1);
    const first = cmd.args[0];
    switch (first.type) {
      case "field":
        return this.evalFieldNode(dot, first, cmd.args, final);
      case "chain":
        return this.evalChainNode(dot, first, cmd.args, final);
      case "identifier": {
        this.node = first;
        const found = this.set.findFunction(first.ident);
        if (!found) this.errorf(`${quoteGo(first.ident)} is not a defined function`);
        return this.evalCall(dot, found.fn, found.builtin, cmd, first.ident, cmd.args, final);
      }
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.node = first;
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: errorf throws
      case "nil":
        this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return first.text;
    }
  }

  private idealConstant(c: NumberNode): Value {
    this.node = c;
    if (c.isComplex) this.errorf(`complex constants are not supported: ${c.text}`);
    const hexInt = c.text.length > 2 && c.text[0] === "0" && (c.text[1] === "x" || c.text[1] === "X") && !/[pP]/.test(c.text);
    if (c.isFloat && !hexInt && c.text[0] !== "'" && /[.eEpP]/.test(c.text)) return float64(c.float);
    if (c.isInt) return int(c.int);
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return undefined;
  }

  private evalFieldNode(dot: Value, field: FieldNode, args: ArgNode[], final: Final): Value {
    this.node = field;
    return this.evalFieldChain(dot, dot, field, field.ident, args, final);
  }

  private evalChainNode(dot: Value, chain: ChainNode, args: ArgNode[], final: Final): Value {
    this.node = chain;
    if (chain.node.type === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: Value, v: VariableNode, args: ArgNode[], final: Final): Value {
    this.node = v;
    const value = this.varValue(v.ident[0]);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(dot: Value, receiver: Value, node: Node, ident: string[], args: ArgNode[], final: Final): Value {
    const n = ident.length;
    // A value read from a map or slice of interface{} has the static type interface {} (Go names it in errors).
    let staticType: string | undefined;
    for (let i = 0; i < n - 1; i++) {
      const elem = isMapReceiver(receiver) ? (typeOf(receiver)!.elem ?? T.any).name : undefined;
      receiver = this.evalField(dot, ident[i], node, [], MISSING, receiver, staticType);
      staticType = elem;
    }
    return this.evalField(dot, ident[n - 1], node, args, final, receiver, staticType);
  }

  private evalField(dot: Value, fieldName: string, node: Node, args: ArgNode[], final: Final, receiver: Value, staticType?: string): Value {
    if (receiver === undefined) {
      if (this.set.missingKey === "error") this.errorf(`nil data; no entry for key ${quoteGo(fieldName)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating ${staticType ?? "interface {}"}.${fieldName}`);
    if (receiver instanceof GoStruct || receiver instanceof GoNum) {
      const method = receiver.type.methods?.[fieldName];
      if (method) return this.evalCall(dot, method(receiver), false, node, fieldName, args, final);
    }
    const hasArgs = args.length > 1 || final !== MISSING;
    if (receiver instanceof GoStruct) {
      if (Object.hasOwn(receiver.fields, fieldName)) {
        if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
        return receiver.fields[fieldName];
      }
    } else if (isMapReceiver(receiver)) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      if (Object.hasOwn(receiver, fieldName)) return receiver[fieldName];
      switch (this.set.missingKey) {
        case "zero":
          return zeroOf(typeOf(receiver)!.elem ?? T.any);
        case "error":
          this.errorf(`map has no entry for key ${quoteGo(fieldName)}`);
      }
      return undefined;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${staticType ?? typeOf(receiver)!.name}`);
  }

  evalCall(dot: Value, fn: GoFunc, builtin: boolean, node: Node, name: string, allArgs: ArgNode[], final: Final): Value {
    const args = allArgs.slice(1);
    const sig = fn.sig;
    const numFixed = sig.variadic ? sig.params.length : args.length;
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    if (sig.variadic) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${args.length}`);
    } else if (numIn !== sig.params.length) {
      this.errorf(`wrong number of args for ${name}: want ${sig.params.length} got ${numIn}`);
    }

    if (builtin && (name === "and" || name === "or")) {
      let v: Value;
      for (const arg of args) {
        v = this.evalArg(dot, T.reflectValue, arg);
        if (isTrue(v === null ? undefined : v)[0] === (name === "or")) return v;
      }
      if (final !== MISSING) v = this.validateType(final, T.reflectValue);
      return v;
    }

    const argv: Value[] = new Array(numIn);
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv[i] = this.evalArg(dot, sig.params[i], args[i]);
    if (sig.variadic) for (; i < args.length; i++) argv[i] = this.evalArg(dot, sig.variadic, args[i]);
    if (final !== MISSING) {
      let t: GoType;
      if (sig.variadic) t = numIn - 1 < numFixed ? sig.params[numIn - 1] : sig.variadic;
      else t = sig.params[sig.params.length - 1];
      argv[i] = this.validateType(final, t);
    }
    let result: Value;
    try {
      result = fn.impl(argv, this.ctx);
    } catch (err) {
      if (err instanceof GoError) {
        this.node = node;
        this.errorf(`error calling ${name}: ${err.message}`);
      }
      if (err instanceof BudgetExceeded) {
        this.node = node;
        this.errorf(`error calling ${name}: ${err.message}`);
      }
      throw err;
    }
    // What it made counts: a list doubled forty times ends here, long before memory does.
    chargeValue(result);
    return boxResult(result, sig.result);
  }

  private evalArg(dot: Value, type: GoType | undefined, n: ArgNode): Value {
    this.node = n;
    switch (n.type) {
      case "dot":
        return this.validateType(dot, type);
      // biome-ignore lint/suspicious/noFallthroughSwitchClause: errorf throws
      case "nil":
        if (type && canBeNil(type)) return type === T.reflectValue ? undefined : zeroOf(type);
        this.errorf(`cannot assign nil to ${type?.name ?? "<nil>"}`);
      case "field":
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), type);
      case "variable":
        return this.validateType(this.evalVariableNode(dot, n, [], MISSING), type);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), type);
      case "identifier": {
        const found = this.set.findFunction(n.ident);
        if (!found) this.errorf(`${quoteGo(n.ident)} is not a defined function`);
        return this.validateType(this.evalCall(dot, found.fn, found.builtin, n, n.ident, [n], MISSING), type);
      }
      case "chain":
        return this.validateType(this.evalChainNode(dot, n, [], MISSING), type);
    }
    if (!type || type.kind === "interface" || type === T.reflectValue) {
      switch (n.type) {
        case "bool":
          return n.value;
        case "number":
          return this.idealConstant(n);
        case "string":
          return n.text;
      }
    }
    const kind = type!.kind;
    if (kind === "bool") {
      if (n.type === "bool") return n.value;
      this.errorf(`expected bool; found ${nodeString(n)}`);
    }
    if (kind === "string") {
      if (n.type === "string") return n.text;
      this.errorf(`expected string; found ${nodeString(n)}`);
    }
    if (INT_KINDS.has(kind)) {
      if (n.type === "number" && n.isInt) return numberAs(type!, n.int);
      this.errorf(`expected integer; found ${nodeString(n)}`);
    }
    if (UINT_KINDS.has(kind)) {
      if (n.type === "number" && n.isUint) return numberAs(type!, n.uint);
      this.errorf(`expected unsigned integer; found ${nodeString(n)}`);
    }
    if (kind === "float32" || kind === "float64") {
      if (n.type === "number" && n.isFloat) return numberAs(type!, n.float);
      this.errorf(`expected float; found ${nodeString(n)}`);
    }
    this.errorf(`can't handle ${nodeString(n)} for arg of type ${type!.name}`);
  }

  validateType(value: Value, type: GoType | undefined): Value {
    if (value === undefined) {
      if (!type) return undefined;
      if (type === T.reflectValue) return undefined;
      if (canBeNil(type)) return zeroOf(type);
      this.errorf(`invalid value; expected ${type.name}`);
    }
    if (!type || type === T.reflectValue || type.kind === "interface") return value;
    if (value === null) this.errorf(`wrong type for value; expected ${type.name}; got interface {}`);
    if (!assignable(value, type)) {
      if (value instanceof GoStruct && value.type.kind === "ptr" && value.type.elem?.name === type.name) {
        return new GoStruct(value.type.elem, value.fields);
      }
      this.errorf(`wrong type for value; expected ${type.name}; got ${typeOf(value)!.name}`);
    }
    return value;
  }

  private printValue(n: Node, v: Value): void {
    this.node = n;
    if (v === undefined) {
      this.out += "<no value>";
      return;
    }
    if (v instanceof GoFunc) this.errorf(`can't print ${nodeString(n)} of type ${typeOf(v)!.name}`);
    const text = formatValue(v);
    chargeChars(text.length);
    this.out += text;
  }
}

function isMapReceiver(v: Value): v is GoMap {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof GoNum) &&
    !(v instanceof GoStruct) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof GoFunc)
  );
}

/** Go values returned as plain JS numbers are boxed by the declared result type. */
function boxResult(v: Value, type: GoType): Value {
  if (typeof v === "number") {
    if (type.kind === "interface" || type === T.reflectValue || type === T.int64) return v;
    return numberAs(type, v);
  }
  if (v === null && type.kind !== "interface" && type !== T.reflectValue) return zeroOf(type);
  return v;
}

/**
 * Walks a template's tree with `dot` as its data; returns the output. The execution has a budget
 * (budget.ts): past it, it ends with an error at the node it reached.
 */
export function execute(set: ExecSet, name: string, tree: Tree | undefined, data: Value, ctx: CallContext, depth = 0): string {
  return withBudget(() => {
    const dot = data === null ? undefined : data;
    const state: State = new State(set, name, ctx, dot, depth);
    if (!tree || !tree.root) state.errorf(`${quoteGo(name)} is an incomplete or empty template`);
    try {
      state.walk(dot, tree.root);
    } catch (err) {
      if (err instanceof RangeError && /call stack/i.test(err.message)) {
        state.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
      }
      if (err instanceof BudgetExceeded) state.errorf(err.message);
      throw err;
    }
    return state.out;
  });
}
