import { celEnv, isCelError, isCelList, parse, plan, type CelEnv, type CelFunc, type CelResult, type CelValue } from "@bufbuild/cel";
import { toPointer } from "../manifest/pointer.js";
import type { Violation } from "./messages.js";
import { compileRe2 } from "../go/re2.js";
import { compileCelRule, type CelRuleResult } from "../cel/rule.js";
import { kubernetesCel } from "./cel-kubernetes.js";
import { celStrings } from "./cel-strings.js";
import { propertyOf, type OpenAPISchema } from "./schemas/types.js";
import { fieldOf } from "./structural.js";
import { isPlainObject } from "../core/json.js";

/**
 * `x-kubernetes-validations` evaluated as the API server does on create: each rule runs with
 * `self` bound to the value at the schema node that declares it (only when the value is there);
 * a false result is a violation with the rule's `message`, `messageExpression` or
 * `failed rule: <rule>`, placed at `fieldPath` when it is given. Transition rules (`oldSelf`) only
 * apply to updates and are skipped. CEL is @bufbuild/cel with RE2 regexes, the strings extension
 * and Kubernetes' list and regex libraries (`cel-kubernetes.ts`); a rule calling a Kubernetes
 * library function that is not there is reported as not evaluated.
 */

export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
}

type Program = (bindings: { self: unknown; oldSelf?: unknown }) => CelResult;

interface Compiled {
  rule: string;
  /** How deeply comprehensions (all, exists, map, filter) nest: cost grows as size^depth. */
  depth: number;
  program?: Program;
  messageProgram?: Program;
  message?: string;
  fieldPath?: string;
  /** Why the rule cannot run (a parse error); reported once per object. */
  error?: string;
  /**
   * The rule on the policies' CEL engine, where this one cannot parse it (optional syntax such as
   * `self.?spec.orValue({})`, which Kubernetes' CEL has): given plain JSON.
   */
  fallback?: (vars: Record<string, unknown>) => CelRuleResult;
  /** Set once an evaluation took longer than SLOW_RULE_MS: the rule is not run again. */
  slow?: boolean;
  /** The fields of `self` the rule and its message read, when they read it only as `self.<field>`. */
  selfFields?: Set<string>;
}

let env: CelEnv | undefined;
const compiledRules = new WeakMap<object, Compiled[]>();
const compiledTransitionRules = new WeakMap<object, Compiled[]>();

function celEnvironment(): CelEnv {
  env ??= celEnv({
    funcs: [...celStrings(MAX_STEPS), ...kubernetesCel].map(budgeted),
    re2: { compile: (pattern: string) => ({ test: (text: string) => compileRe2(pattern).matcher(text).find() }) },
  });
  return env;
}

function compileProgram(expression: string): { program: Program; depth: number; selfFields?: Set<string> } {
  const parsed = parse(expression);
  return { program: plan(celEnvironment(), parsed) as unknown as Program, depth: comprehensionDepth(parsed), selfFields: selfFieldsOf(parsed) };
}

type ExprNode = { exprKind?: { case?: string; value?: { name?: string; operand?: ExprNode; field?: string } } };

/**
 * The fields of `self` an expression reads, when it reads `self` only as `self.<field>` (or
 * `has(self.<field>)`); undefined when it uses `self` any other way (`size(self)`, `self.all(…)`,
 * `self == …`, `self[k]`). Converting only those fields to CEL values gives the same result
 * (the sizes the loop-cost guard uses are still measured on all of it): a rule on a large object
 * (an XRD's spec) no longer converts its whole schema.
 */
function selfFieldsOf(parsed: unknown): Set<string> | undefined {
  const fields = new Set<string>();
  let whole = false;
  const isSelf = (n: ExprNode | undefined) => n?.exprKind?.case === "identExpr" && n.exprKind.value?.name === "self";
  const visit = (node: unknown): void => {
    if (whole || !node || typeof node !== "object") return;
    const expr = node as ExprNode;
    if (expr.exprKind?.case === "selectExpr" && isSelf(expr.exprKind.value?.operand)) {
      fields.add(expr.exprKind.value!.field!);
      return;
    }
    if (isSelf(expr)) {
      whole = true;
      return;
    }
    for (const value of Object.values(node)) if (value && typeof value === "object") visit(value);
  };
  visit(parsed);
  return whole ? undefined : fields;
}

/** The deepest nesting of comprehensions in a parsed expression (macros expand to them). */
function comprehensionDepth(node: unknown): number {
  if (!node || typeof node !== "object") return 0;
  let deepest = 0;
  for (const value of Object.values(node as Record<string, unknown>)) {
    if (value && typeof value === "object") deepest = Math.max(deepest, comprehensionDepth(value));
  }
  const kind = (node as { exprKind?: { case?: string } }).exprKind?.case;
  return kind === "comprehensionExpr" ? deepest + 1 : deepest;
}

/**
 * The API server refuses rules whose estimated cost is over its budget (a per-call limit of a
 * million); we cannot estimate as it does, so a rule whose loops could take more steps than this
 * on the actual value (lists, and strings a function like split turns into lists) is not run,
 * no function may build a value larger than this, and a rule that once took longer than
 * SLOW_RULE_MS is not run again in the process: a manifest cannot stall validation.
 */
const MAX_STEPS = 1e6;
const SLOW_RULE_MS = 500;

class OverBudget extends Error {
  constructor(what: string) {
    super(`over the cost budget: ${what}`);
  }
}

/**
 * What one evaluation has spent: every library call is charged for the values it reads and builds
 * (a list item or ten characters a unit, as the API server's runtime cost counts traversals), so a
 * loop whose body rebuilds a large value stops at the budget; the clock bounds the rest.
 */
const meter = { spent: 0, deadline: 0, calls: 0 };

function startMeter(): void {
  meter.spent = 0;
  meter.calls = 0;
  meter.deadline = performance.now() + SLOW_RULE_MS;
}

function sizeOf(v: unknown): number {
  if (typeof v === "string") return Math.ceil(v.length / 10);
  if (v && typeof v === "object" && typeof (v as { size?: unknown }).size === "number") return (v as { size: number }).size;
  return 0;
}

function charge(target: unknown, args: readonly unknown[], result: unknown): void {
  let cost = 1 + sizeOf(target) + sizeOf(result);
  for (const a of args) cost += sizeOf(a);
  meter.spent += cost;
  if (meter.spent > MAX_STEPS)
    throw new OverBudget(`the evaluation spent over ${MAX_STEPS} units (library calls counted by the size of what they read and build)`);
  if (++meter.calls % 64 === 0 && performance.now() > meter.deadline) throw new OverBudget(`the evaluation took over ${SLOW_RULE_MS} ms`);
}

/** A library function whose result may not outgrow the budget (replace and join can square a string). */
function budgeted(fn: CelFunc): CelFunc {
  const wrapped = Object.create(fn) as CelFunc;
  Object.defineProperty(wrapped, "call", {
    value: (id: number, target: CelValue | undefined, args: CelValue[]) => {
      const result = fn.call(id, target, args);
      if (typeof result === "string" && result.length > MAX_STEPS) throw new OverBudget(`${fn.name} built a string of ${result.length} characters`);
      if (isCelList(result) && result.size > MAX_STEPS) throw new OverBudget(`${fn.name} built a list of ${result.size} items`);
      charge(target, args, result);
      return result;
    },
  });
  return wrapped;
}

/**
 * A node's rules, compiled once. Transition rules (`oldSelf`) apply only to updates: they are left
 * out, unless `transition` asks for exactly them.
 */
function compileRules(rules: CelRule[], transition = false): Compiled[] {
  const cache = transition ? compiledTransitionRules : compiledRules;
  let compiled = cache.get(rules);
  if (!compiled) {
    const selected = rules.filter((r) => /\boldSelf\b/.test(String(r.rule ?? "")) === transition);
    compiled = selected.map((r) => {
      const base: Compiled = { rule: String(r.rule ?? ""), depth: 0, message: r.message, fieldPath: r.fieldPath };
      try {
        const compiled = compileProgram(base.rule);
        base.program = compiled.program;
        base.depth = compiled.depth;
        base.selfFields = compiled.selfFields;
        if (r.messageExpression) {
          const message = compileProgram(r.messageExpression);
          base.messageProgram = message.program;
          base.selfFields = base.selfFields && message.selfFields && new Set([...base.selfFields, ...message.selfFields]);
        }
      } catch (err) {
        const other = compileCelRule(base.rule);
        if (typeof other === "function") {
          base.fallback = other;
          base.program = undefined;
          base.messageProgram = undefined;
        } else base.error = `cannot parse: ${(err as Error).message}`;
      }
      return base;
    });
    cache.set(rules, compiled);
  }
  return compiled;
}

/** Every failing rule below `schema` for `value` (already defaulted, as the API server sees it). */
export function celViolations(schema: OpenAPISchema, value: unknown): Violation[] {
  const out: Violation[] = [];
  walk(schema, value, [], out);
  return out;
}

/**
 * The transition rules (`oldSelf`) an update from `old` to `value` breaks, as the API server checks
 * them: a rule runs where the node exists in both, list items correlated by their map keys
 * (`x-kubernetes-list-type: map`), map values by key; atomic and set lists are not descended.
 */
export function celTransitionViolations(schema: OpenAPISchema, value: unknown, old: unknown): Violation[] {
  const out: Violation[] = [];
  walkTransition(schema, value, old, [], out);
  return out;
}

function walkTransition(schema: OpenAPISchema, value: unknown, old: unknown, path: (string | number)[], out: Violation[]): void {
  if (value === undefined || value === null || old === undefined || old === null || !hasRules(schema)) return;
  const rules = schema["x-kubernetes-validations"];
  if (Array.isArray(rules) && rules.length > 0) {
    const compiled = compileRules(rules as CelRule[], true);
    if (compiled.length > 0) evaluate(compiled, schema, value, path, out, { value: old });
  }
  const descend = (child: OpenAPISchema, v: unknown, o: unknown, segment: string | number) => {
    path.push(segment);
    walkTransition(child, v, o, path, out);
    path.pop();
  };
  if (Array.isArray(value)) {
    const items = schema.items;
    const keys = schema["x-kubernetes-list-map-keys"] as string[] | undefined;
    if (!items || Array.isArray(items) || schema["x-kubernetes-list-type"] !== "map" || !keys?.length || !Array.isArray(old)) return;
    const keyOf = (item: unknown) => (isPlainObject(item) ? JSON.stringify(keys.map((k) => item[k])) : undefined);
    const before = new Map(old.map((item) => [keyOf(item), item]));
    value.forEach((item, i) => {
      const k = keyOf(item);
      if (k !== undefined && before.has(k)) descend(items, item, before.get(k), i);
    });
    return;
  }
  if (!isPlainObject(value) || !isPlainObject(old)) return;
  const props = schema.properties;
  if (props) for (const key in props) descend(props[key]!, fieldOf(value, key), fieldOf(old, key), key);
  const extra = schema.additionalProperties;
  if (extra && typeof extra === "object") {
    for (const key of Object.keys(value)) if (!propertyOf(props, key)) descend(extra, value[key], old[key], key);
  }
}

/** Visits only schema nodes with rules at or below them; `path` is one array, pushed and popped. */
function walk(schema: OpenAPISchema, value: unknown, path: (string | number)[], out: Violation[]): void {
  if (value === undefined || value === null || !hasRules(schema)) return;
  const rules = schema["x-kubernetes-validations"];
  if (Array.isArray(rules) && rules.length > 0) {
    const compiled = compileRules(rules as CelRule[]);
    if (compiled.length > 0) evaluate(compiled, schema, value, path, out, undefined, fieldsReadByAll(compiled));
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || Array.isArray(items) || !hasRules(items)) return;
    for (let i = 0; i < value.length; i++) visit(items, value[i], i, path, out);
    return;
  }
  if (!isPlainObject(value)) return;
  const props = schema.properties;
  if (props) {
    for (const key in props) {
      const v = fieldOf(value, key);
      if (v !== undefined) visit(props[key]!, v, key, path, out);
    }
  }
  const extra = schema.additionalProperties;
  if (extra && typeof extra === "object" && hasRules(extra)) {
    for (const key of Object.keys(value)) if (!propertyOf(props, key)) visit(extra, value[key], key, path, out);
  }
}

function visit(schema: OpenAPISchema, value: unknown, segment: string | number, path: (string | number)[], out: Violation[]): void {
  path.push(segment);
  walk(schema, value, path, out);
  path.pop();
}

const withRules = new WeakMap<OpenAPISchema, boolean>();

/** Whether a schema node or any node below it declares rules: most subtrees do not, and are skipped. */
function hasRules(schema: OpenAPISchema): boolean {
  let known = withRules.get(schema);
  if (known === undefined) {
    withRules.set(schema, false); // a cycle, if a schema ever had one, ends here
    const rules = schema["x-kubernetes-validations"];
    const items = schema.items && !Array.isArray(schema.items) ? [schema.items] : [];
    const extra = schema.additionalProperties && typeof schema.additionalProperties === "object" ? [schema.additionalProperties] : [];
    const children = [...Object.values(schema.properties ?? {}), ...items, ...extra];
    known = (Array.isArray(rules) && rules.length > 0) || children.some(hasRules);
    withRules.set(schema, known);
  }
  return known;
}

const fieldsRead = new WeakMap<Compiled[], Set<string> | null>();

/** The fields of `self` a node's rules read (see selfFieldsOf); undefined when one needs all of it. */
function fieldsReadByAll(rules: Compiled[]): Set<string> | undefined {
  let fields = fieldsRead.get(rules);
  if (fields === undefined) {
    fields = rules.every((r) => r.selfFields) ? new Set(rules.flatMap((r) => [...r.selfFields!])) : null;
    fieldsRead.set(rules, fields);
  }
  return fields ?? undefined;
}

/** The fields of `self` a CEL expression reads, or undefined when it reads `self` whole (see selfFieldsOf). */
export function selfFieldsRead(expression: string): Set<string> | undefined {
  return compileProgram(expression).selfFields;
}

function evaluate(
  rules: Compiled[],
  schema: OpenAPISchema,
  value: unknown,
  path: (string | number)[],
  out: Violation[],
  old?: { value: unknown },
  selfFields?: Set<string>,
): void {
  const size = { widest: 1, longestString: 0 };
  // Loops are bounded by the widest value under self, read or not (see MAX_STEPS): only rules with loops need it measured.
  const only = selfFields && { fields: selfFields, measureRest: rules.some((r) => r.depth > 0) };
  const self = toCel(value, schema, size, only);
  const bindings: { self: unknown; oldSelf?: unknown } = old ? { self, oldSelf: toCel(old.value, schema, size) } : { self };
  for (const r of rules) {
    if (r.fallback) {
      fallbackRule(r, value, old, path, out);
      continue;
    }
    if (!r.program) {
      out.push({ pointer: toPointer(path), rule: "schema/cel", message: `x-kubernetes-validations rule ${JSON.stringify(r.rule)} ${r.error ?? "cannot run"}` });
      continue;
    }
    const notEvaluated = (why: string) =>
      out.push({
        pointer: toPointer(path),
        rule: "schema/cel",
        message: `x-kubernetes-validations rule ${JSON.stringify(r.rule)} was not evaluated: ${why}`,
        severity: "info",
      });
    if (r.slow) {
      notEvaluated(`an earlier evaluation took over ${SLOW_RULE_MS} ms (the API server's cost budget would refuse such a rule)`);
      continue;
    }
    const widest = Math.max(size.widest, size.longestString);
    if (r.depth > 0 && Math.pow(widest, r.depth) > MAX_STEPS) {
      notEvaluated(
        `${r.depth} nested loops over values of up to ${widest} items or characters could take about ${widest}^${r.depth} steps (the API server's cost budget refuses such rules)`,
      );
      continue;
    }
    const started = performance.now();
    startMeter();
    const result = r.program(bindings);
    if (performance.now() - started > SLOW_RULE_MS) r.slow = true;
    if (result === true) continue;
    const at = toPointer([...path, ...fieldPathSegments(r.fieldPath)]);
    if (isCelError(result) && /over the cost budget/.test(result.message)) {
      notEvaluated(`${result.message} (the API server's cost budget refuses such rules)`);
      continue;
    }
    if (isCelError(result)) {
      const unsupported = /unbound function|no matching overload|unsupported/i.test(result.message);
      out.push({
        pointer: at,
        rule: "schema/cel",
        message: unsupported
          ? `x-kubernetes-validations rule ${JSON.stringify(r.rule)} was not evaluated: ${result.message} (a Kubernetes CEL library function composition-ci does not provide)`
          : `${result.message} evaluating rule: ${r.rule}`,
        ...(unsupported ? { severity: "info" as const } : {}),
      });
      continue;
    }
    out.push({ pointer: at, rule: "schema/cel", message: messageOf(r, bindings) });
  }
}

/** A rule the policies' engine evaluates: on plain JSON, with its budget; the static message (the messageExpression is this engine's too). */
function fallbackRule(r: Compiled, value: unknown, old: { value: unknown } | undefined, path: (string | number)[], out: Violation[]): void {
  const result = r.fallback!(old ? { self: value, oldSelf: old.value } : { self: value });
  if ("value" in result && result.value === true) return;
  const at = toPointer([...path, ...fieldPathSegments(r.fieldPath)]);
  if ("error" in result) {
    const message = `x-kubernetes-validations rule ${JSON.stringify(r.rule)} was not evaluated: ${result.error}${result.overBudget ? " (the API server's cost budget refuses such rules)" : ""}`;
    out.push({ pointer: at, rule: "schema/cel", message, severity: "info" });
    return;
  }
  out.push({ pointer: at, rule: "schema/cel", message: r.message?.trim() ? r.message : `failed rule: ${r.rule}` });
}

function messageOf(r: Compiled, bindings: { self: unknown; oldSelf?: unknown }): string {
  if (r.messageProgram) {
    startMeter();
    const m = r.messageProgram(bindings);
    if (typeof m === "string" && m.trim() !== "") return m;
  }
  return r.message?.trim() ? r.message : `failed rule: ${r.rule}`;
}

/** `.spec.replicas`, `.items['a.b']` → path segments; anything else points at the node itself. */
function fieldPathSegments(fieldPath: string | undefined): string[] {
  if (!fieldPath) return [];
  const segments: string[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['([^']*)'\]/gy;
  let consumed = 0;
  for (let m = re.exec(fieldPath); m; m = re.exec(fieldPath)) {
    segments.push(m[1] ?? m[2]!);
    consumed = re.lastIndex;
  }
  return consumed === fieldPath.length ? segments : [];
}

/** JSON as CEL sees it: objects as maps, integers as int (bigint) unless the schema says number; notes the widest collection and longest string. */
const CEL_RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

/** A property name as Kubernetes CEL sees it: `namespace` is `__namespace__`, `a-b` is `a__dash__b`. */
export function escapeFieldName(name: string): string {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (!/[._\-/]/.test(name)) return name;
  return name.replace(/__/g, "__underscores__").replace(/\./g, "__dot__").replace(/-/g, "__dash__").replace(/\//g, "__slash__");
}

type Size = { widest: number; longestString: number };

/** `only`: convert just these fields of a top-level object; the others are only measured, when `measureRest`. */
function toCel(value: unknown, schema: OpenAPISchema | undefined, size: Size, only?: { fields: Set<string>; measureRest: boolean }): unknown {
  if (typeof value === "string") size.longestString = Math.max(size.longestString, value.length);
  if (typeof value === "number") return Number.isInteger(value) && schema?.type !== "number" ? BigInt(value) : value;
  if (Array.isArray(value)) {
    size.widest = Math.max(size.widest, value.length);
    const items = schema?.items && !Array.isArray(schema.items) ? schema.items : undefined;
    return value.map((v) => toCel(v, items, size));
  }
  if (isPlainObject(value)) {
    size.widest = Math.max(size.widest, Object.keys(value).length);
    const props = schema?.properties ?? {};
    const extra = schema?.additionalProperties && typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
    // An object's declared fields are CEL struct fields, named as the API server escapes them; a map's keys stay as they are.
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value)) {
      const field = propertyOf(props, k);
      const name = field ? escapeFieldName(k) : k;
      if (!only || only.fields.has(name)) entries.push([name, toCel(v, field ?? extra, size)]);
      else if (only.measureRest) measure(v, size);
    }
    return new Map(entries);
  }
  return value;
}

/** What toCel notes of a value's size, without converting it. */
function measure(value: unknown, size: Size): void {
  if (typeof value === "string") size.longestString = Math.max(size.longestString, value.length);
  else if (Array.isArray(value)) {
    size.widest = Math.max(size.widest, value.length);
    for (const v of value) measure(v, size);
  } else if (isPlainObject(value)) {
    const values = Object.values(value);
    size.widest = Math.max(size.widest, values.length);
    for (const v of values) measure(v, size);
  }
}
