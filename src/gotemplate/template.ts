import { BUILTINS } from "./builtins.js";
import { callContext } from "./context.js";
import { execute, ExecError, type ExecSet, type MissingKey } from "./exec.js";
import { isEmptyTree, type Tree } from "./nodes.js";
import { parse } from "./parse.js";
import { quoteGo } from "../go/quote.js";
import type { CallContext, GoFunc, Value } from "../go/values.js";

export type FuncMap = Record<string, GoFunc>;

/** What associated templates share (Go's `common`). */
class Common implements ExecSet {
  readonly trees = new Map<string, Tree>();
  readonly funcs = new Map<string, GoFunc>();
  missingKey: MissingKey = "invalid";

  lookup(name: string): Tree | undefined {
    return this.trees.get(name);
  }

  findFunction(name: string): { fn: GoFunc; builtin: boolean } | undefined {
    const fn = this.funcs.get(name);
    if (fn) return { fn, builtin: false };
    const b = Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
    return b ? { fn: b, builtin: true } : undefined;
  }

  hasFunction(name: string): boolean {
    return this.funcs.has(name) || Object.hasOwn(BUILTINS, name);
  }
}

/**
 * A Go text/template: `new Template("name").delims(l, r).funcs(map).parse(text)`, then
 * `execute(data)`. Templates made with `new` from it (or defined in its text) share its trees,
 * functions and options, as Go's associated templates do.
 */
export class Template {
  private readonly common: Common;
  private left = "";
  private right = "";

  constructor(
    readonly name: string,
    from?: Template,
  ) {
    this.common = from?.common ?? new Common();
    if (from) {
      this.left = from.left;
      this.right = from.right;
    }
  }

  /** An associated template (Go's t.New). */
  new(name: string): Template {
    return new Template(name, this);
  }

  delims(left: string, right: string): this {
    this.left = left;
    this.right = right;
    return this;
  }

  funcs(map: FuncMap): this {
    for (const [name, fn] of Object.entries(map)) this.common.funcs.set(name, fn);
    return this;
  }

  /** Template.Option: "missingkey=default|invalid|zero|error"; anything else throws, as Go panics. */
  option(...opts: string[]): this {
    for (const opt of opts) {
      if (opt === "") throw new Error("empty option string");
      const eq = opt.indexOf("=");
      if (eq > 0 && opt.slice(0, eq) === "missingkey") {
        const v = opt.slice(eq + 1);
        if (v === "invalid" || v === "default") {
          this.common.missingKey = "invalid";
          continue;
        }
        if (v === "zero" || v === "error") {
          this.common.missingKey = v;
          continue;
        }
      }
      throw new Error(`unrecognized option: ${opt}`);
    }
    return this;
  }

  /** Parses text into this template and the templates it defines; throws ParseError. */
  parse(text: string): this {
    const trees = parse(this.name, text, {
      left: this.left,
      right: this.right,
      hasFunction: (n) => this.common.hasFunction(n),
    });
    for (const [name, tree] of trees) {
      const old = this.common.trees.get(name);
      if (old && isEmptyTree(tree.root)) continue;
      this.common.trees.set(name, tree);
    }
    return this;
  }

  lookup(name: string): Template | undefined {
    return this.common.trees.has(name) ? new Template(name, this) : undefined;
  }

  get tree(): Tree | undefined {
    return this.common.trees.get(this.name);
  }

  /** Executes this template on `data`; throws ExecError. */
  execute(data: Value, ctx: CallContext = callContext()): string {
    return execute(this.common, this.name, this.common.trees.get(this.name), data, ctx);
  }

  /** Template.ExecuteTemplate */
  executeTemplate(name: string, data: Value, ctx: CallContext = callContext()): string {
    const tree = this.common.trees.get(name);
    if (!tree) throw new ExecError(`template: no template ${quoteGo(name)} associated with template ${quoteGo(this.name)}`, this.name);
    return execute(this.common, name, tree, data, ctx);
  }

  /** "; defined templates are: ..." as Go lists them, or "". */
  definedTemplates(): string {
    const names = [...this.common.trees.entries()].filter(([, t]) => t.root).map(([n]) => quoteGo(n));
    return names.length ? `; defined templates are: ${names.join(", ")}` : "";
  }
}
