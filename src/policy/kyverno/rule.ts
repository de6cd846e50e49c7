import { NeedsCluster } from "../../cel/budget.js";
import { evaluateSpec, type CelSpec } from "../admission/cel-spec.js";
import { paramsFor } from "../admission/params.js";
import type { EvalContext } from "../policy.js";
import { activation, type Admission } from "../request.js";
import type { Outcome } from "../types.js";
import type { JsonObject } from "../../core/json.js";
import { BadOperator, evaluateConditions } from "./conditions.js";
import { loadContext, NotFound, query } from "./context.js";
import { matchPattern } from "./pattern.js";
import { describeViolations, evaluatePodSecurity } from "./pss.js";
import { substituteAll, SubstitutionError, type VariableScope } from "./variables.js";

/** One `validate` rule of a ClusterPolicy or Policy on one request (after match and exclude). */

export interface RuleOutcome {
  outcome: Outcome;
  message?: string;
  /** JSON pointer in the resource where a pattern failed. */
  pointer?: string;
}

export interface CompiledRule {
  name: string;
  raw: JsonObject;
  /** validate.cel, compiled (with celPreconditions as its match conditions). */
  cel?: CelSpec;
  /** celPreconditions alone, for rules that are not CEL. */
  celPreconditions?: CelSpec;
}

interface Run {
  a: Admission;
  ctx: EvalContext;
  rule: CompiledRule;
  /** The `podSecurity` exclusions of PolicyExceptions that match the request. */
  podSecurityExceptions?: JsonObject[];
}

export function evaluateRule(
  rule: CompiledRule,
  a: Admission,
  scope: VariableScope,
  ctx: EvalContext,
  podSecurityExceptions?: JsonObject[],
): RuleOutcome | undefined {
  const run: Run = { a, ctx, rule, ...(podSecurityExceptions ? { podSecurityExceptions } : {}) };
  try {
    if (rule.celPreconditions) {
      const pre = evaluateSpec(rule.celPreconditions, activation(a, null));
      if (pre.kind === "skip") return { outcome: "skip", message: "celPreconditions not met" };
      if (pre.kind === "error") return { outcome: "error", message: pre.message };
      if (pre.kind === "not-evaluated") return { outcome: "not-evaluated", message: pre.message };
    }
    if (rule.cel) return celRule(run);
    return validate(run, rule.raw, rule.raw.validate as JsonObject, scope, 0);
  } catch (err) {
    return failure(err);
  }
}

function failure(err: unknown): RuleOutcome {
  if (err instanceof NeedsCluster) return { outcome: "not-evaluated", message: `not evaluated: ${err.message}` };
  if (err instanceof BadOperator) return { outcome: "error", message: err.message };
  if (err instanceof SubstitutionError || err instanceof NotFound) return { outcome: "error", message: `variable substitution failed: ${err.message}` };
  return { outcome: "error", message: (err as Error).message };
}

/**
 * The validator of Kyverno's engine: context, preconditions, then deny, pattern/anyPattern or
 * foreach. `holder` is the rule or the foreach entry (context, preconditions); `v` its validation.
 */
function validate(run: Run, holder: JsonObject, v: JsonObject, scopeIn: VariableScope, nesting: number, element?: unknown): RuleOutcome | undefined {
  const scope = loadContext(holder.context, scopeIn, run.a.target.values ?? {});
  const pre = holder.preconditions;
  if (pre) {
    let passed: { result: boolean; message: string };
    try {
      passed = evaluateConditions(pre, scope);
    } catch (err) {
      if (err instanceof NeedsCluster) throw err;
      return { outcome: "error", message: `failed to evaluate preconditions: ${(err as Error).message}` };
    }
    if (!passed.result) return { outcome: "skip", message: ["preconditions not met", passed.message].filter(Boolean).join("; ") };
  }
  const message = () => messageOf(v.message, scope);
  if (v.deny) {
    const deny = v.deny as JsonObject;
    let result: { result: boolean; message: string };
    try {
      result = evaluateConditions(deny.conditions ?? null, scope);
    } catch (err) {
      if (err instanceof NeedsCluster) throw err;
      return { outcome: "error", message: `failed to check deny conditions: ${(err as Error).message}` };
    }
    if (!result.result) return { outcome: "pass" };
    const text = [message(), result.message].filter(Boolean).join("; ");
    return { outcome: "fail", message: text || `validation error: rule ${run.rule.name} failed` };
  }
  if (v.pattern !== undefined || v.anyPattern !== undefined) {
    let pattern: unknown;
    let anyPattern: unknown;
    try {
      pattern = v.pattern !== undefined ? substituteAll(v.pattern, scope) : undefined;
      anyPattern = v.anyPattern !== undefined ? substituteAll(v.anyPattern, scope) : undefined;
    } catch (err) {
      if (err instanceof NeedsCluster) throw err;
      return { outcome: "error", message: `variable substitution failed: ${(err as Error).message}` };
    }
    const resource = element !== undefined ? element : run.a.operation === "DELETE" ? undefined : run.a.target.object;
    if (resource === undefined) return undefined;
    return patterns(run, resource, pattern, anyPattern, message);
  }
  if (Array.isArray(v.foreach)) return forEach(run, v.foreach as JsonObject[], scope, nesting);
  if (v.podSecurity) return podSecurity(run, v.podSecurity as JsonObject);
  if (v.manifests) return { outcome: "not-evaluated", message: "not evaluated: manifest signatures need keys and the cluster" };
  return undefined;
}

function podSecurity(run: Run, pss: JsonObject): RuleOutcome | undefined {
  if (run.a.operation === "DELETE") return undefined;
  const level = String(pss.level ?? "baseline");
  const excludes = (pss.exclude as JsonObject[] | undefined) ?? [];
  const result = evaluatePodSecurity(run.a.target.object, level, excludes as never);
  if (!result) return { outcome: "skip", message: "not a Pod or Pod controller" };
  if (result.allowed) return { outcome: "pass" };
  // A PolicyException's podSecurity controls exempt what is left: the rule is then skipped.
  if (run.podSecurityExceptions && evaluatePodSecurity(run.a.target.object, level, [...excludes, ...run.podSecurityExceptions] as never)?.allowed) {
    return { outcome: "skip", message: "rule is skipped due to policy exceptions" };
  }
  return { outcome: "fail", message: `Validation rule '${run.rule.name}' failed. It ${describeViolations(level, result.violations)}` };
}

function messageOf(raw: unknown, scope: VariableScope): string {
  if (typeof raw !== "string" || raw === "") return "";
  try {
    const m = substituteAll(raw, scope);
    return typeof m === "string" ? m : "the produced message didn't resolve to a string, check your policy definition.";
  } catch {
    return raw;
  }
}

function patterns(run: Run, resource: unknown, pattern: unknown, anyPattern: unknown, message: () => string): RuleOutcome {
  const failedAt = (path: string) => {
    const m = message();
    const prefix = m ? `validation error: ${m.endsWith(".") ? m : `${m}.`} ` : "validation error: ";
    return `${prefix}rule ${run.rule.name} failed at path ${path}`;
  };
  if (pattern !== undefined) {
    const r = matchPattern(resource, pattern);
    if (r.ok) return { outcome: "pass" };
    if (r.skip) return { outcome: "skip", message: r.message };
    if (r.error || r.path === "") return { outcome: "error", message: `validation error: rule ${run.rule.name} execution error: ${r.message}` };
    return { outcome: "fail", message: failedAt(r.path), pointer: toPointer(r.path) };
  }
  if (!Array.isArray(anyPattern)) return { outcome: "error", message: "failed to deserialize anyPattern, expected type array" };
  const skipped: string[] = [];
  const failed: string[] = [];
  let firstPath = "";
  for (const [i, p] of anyPattern.entries()) {
    const r = matchPattern(resource, p);
    if (r.ok) return { outcome: "pass" };
    if (r.skip) skipped.push(`rule ${run.rule.name}[${i}] skipped: ${r.message}`);
    else {
      failed.push(r.path ? `rule ${run.rule.name}[${i}] failed at path ${r.path}` : `rule ${run.rule.name}[${i}] failed: ${r.message}`);
      firstPath ||= r.path;
    }
  }
  if (failed.length === 0 && skipped.length > 0) return { outcome: "skip", message: skipped.join(" ") };
  if (failed.length > 0) {
    const m = message();
    return { outcome: "fail", message: `validation error: ${m ? `${m}. ` : ""}${failed.join(" ")}`, ...(firstPath ? { pointer: toPointer(firstPath) } : {}) };
  }
  return { outcome: "pass" };
}

/** `/spec/containers/0/image/` (Kyverno's path, anchors included) as a JSON pointer without anchors. */
function toPointer(path: string): string {
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((s) => /^(?:[+<=X^])?\((.+)\)$/.exec(s)?.[1] ?? s);
  return segments.map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function forEach(run: Run, entries: JsonObject[], scope: VariableScope, nesting: number): RuleOutcome | undefined {
  let applied = 0;
  let listError: string | undefined;
  for (const entry of entries) {
    let elements: unknown;
    try {
      const list = substituteAll(String(entry.list ?? ""), scope);
      elements = typeof list === "string" ? query(scope.data, list) : list;
    } catch (err) {
      if (err instanceof NotFound || /Unknown key/.test((err as Error).message)) continue;
      listError = (err as Error).message;
      continue;
    }
    const items = Array.isArray(elements) ? elements : [elements];
    for (const [index, element] of items.entries()) {
      if (element === null || element === undefined) continue;
      const data = Object.assign(Object.create(scope.data) as JsonObject, {
        element,
        elementIndex: index,
        [`element${nesting}`]: element,
        [`elementIndex${nesting}`]: index,
      });
      const inner: VariableScope = { ...scope, data };
      if (entry.elementScope === true && !isObject(element))
        return {
          outcome: "error",
          message: "validation failure: failed to process foreach: cannot use elementScope=true foreach rules for elements that are not maps",
        };
      const scoped = entry.elementScope === false || !isObject(element) ? undefined : element;
      const nested: JsonObject = { message: (run.rule.raw.validate as JsonObject)?.message, ...entry, foreach: entry.foreach };
      let r: RuleOutcome | undefined;
      try {
        r = validate(run, entry, nested, inner, nesting + 1, scoped);
      } catch (err) {
        r = failure(err);
      }
      if (!r || r.outcome === "skip") continue;
      if (r.outcome === "error" && /failed to evaluate preconditions/.test(r.message ?? "")) continue;
      if (r.outcome !== "pass") return { ...r, message: `validation failure: ${r.message ?? ""}` };
      applied++;
    }
  }
  if (applied === 0) return listError ? { outcome: "error", message: `failed to evaluate list: ${listError}` } : undefined;
  return { outcome: "pass" };
}

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/**
 * `validate.cel`: the VAP shape inside a rule, run by the API server's validator: any failing
 * expression fails the rule, and so does an expression that errs under failurePolicy Fail.
 */
function celRule(run: Run): RuleOutcome {
  const cel = (run.rule.raw.validate as JsonObject).cel as JsonObject;
  const params = paramsFor(cel.paramKind as never, cel.paramRef as never, run.a, run.ctx);
  if ("skip" in params) return { outcome: "skip", message: "no params" };
  if ("deny" in params) return { outcome: "fail", message: params.deny };
  if ("error" in params) return { outcome: "error", message: params.error };
  for (const param of params.params) {
    const out = evaluateSpec(run.rule.cel!, activation(run.a, param));
    if (out.kind === "skip") return { outcome: "skip", message: "celPreconditions not met" };
    const erred = run.rule.cel!.failurePolicy === "Fail" ? "fail" : "error";
    if (out.kind === "error") return { outcome: erred, message: out.message };
    if (out.kind === "not-evaluated") return { outcome: "not-evaluated", message: out.message };
    for (const v of out.validations) {
      if (v.outcome === "fail") return { outcome: "fail", message: v.message };
      if (v.outcome === "error") return { outcome: erred, message: v.message };
      if (v.outcome === "not-evaluated") return { outcome: "not-evaluated", message: v.message };
    }
  }
  return { outcome: "pass" };
}
