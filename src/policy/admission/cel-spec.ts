import { compileCel, firstLine, type Flavor, type Program } from "../../cel/environment.js";
import { NeedsCluster, OverBudget } from "../../cel/budget.js";
import { fromCel } from "../../cel/values.js";

/**
 * The CEL half of a ValidatingAdmissionPolicy's spec, shared by Kyverno's ValidatingPolicy and
 * ClusterPolicy `validate.cel`: matchConditions, variables (lazy, in order), validations.
 */

export interface CompiledExpression {
  text: string;
  /** JSON pointer of the expression inside the policy object. */
  pointer: string;
  program?: Program;
  error?: string;
  /** Set when the expression did not compile here but reads the cluster anyway: not evaluated, not a bad policy. */
  needsCluster?: string;
}

export interface CompiledValidation extends CompiledExpression {
  index: number;
  message?: string;
  messageExpression?: CompiledExpression;
  reason?: string;
  fieldPath?: string;
}

export interface CelSpec {
  flavor: Flavor;
  matchConditions: (CompiledExpression & { name: string })[];
  variables: (CompiledExpression & { name: string })[];
  validations: CompiledValidation[];
  /** auditAnnotations' valueExpressions: their values are not reported, but an error in one fails the request. */
  auditAnnotations: (CompiledExpression & { name: string })[];
  failurePolicy: "Fail" | "Ignore";
}

/** A failure the policy itself holds: reported once, at the policy's line. */
export interface SpecProblem {
  pointer: string;
  message: string;
}

type Raw = Record<string, unknown>;

/** Libraries that read the cluster (Kubernetes' authorizer, Kyverno's resource/http/image/globalContext). */
const CLUSTER_LIBRARY = /\b(authorizer|resource|http|image|imagedata|globalContext)\s*\.\s*[A-Za-z]/;

/** `validationsKey`: where the validations are (`expressions` in a Kyverno ClusterPolicy's `validate.cel`). */
export function compileSpec(spec: Raw, flavor: Flavor, base: string, problems: SpecProblem[], validationsKey = "validations"): CelSpec {
  const compile = (text: unknown, pointer: string): CompiledExpression => {
    const expression: CompiledExpression = { text: String(text ?? ""), pointer };
    try {
      expression.program = compileCel(expression.text, flavor);
    } catch (err) {
      expression.error = firstLine(err);
      const cluster = CLUSTER_LIBRARY.exec(expression.text);
      if (cluster) {
        expression.needsCluster = cluster[1]!;
        return expression;
      }
      problems.push({ pointer, message: `expression ${JSON.stringify(expression.text)} does not compile: ${expression.error}` });
    }
    return expression;
  };
  const list = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as Raw[]) : []);
  return {
    flavor,
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    matchConditions: list("matchConditions").map((m, i) => ({
      name: String(m.name ?? i),
      ...compile(m.expression, `${base}/matchConditions/${i}/expression`),
    })),
    variables: list("variables").map((v, i) => ({ name: String(v.name ?? ""), ...compile(v.expression, `${base}/variables/${i}/expression`) })),
    validations: list(validationsKey).map((v, index) => ({
      index,
      ...compile(v.expression, `${base}/${validationsKey}/${index}/expression`),
      ...(typeof v.message === "string" ? { message: v.message } : {}),
      ...(typeof v.messageExpression === "string"
        ? { messageExpression: compile(v.messageExpression, `${base}/${validationsKey}/${index}/messageExpression`) }
        : {}),
      ...(typeof v.reason === "string" ? { reason: v.reason } : {}),
      ...(typeof v.fieldPath === "string" ? { fieldPath: v.fieldPath } : {}),
    })),
    auditAnnotations: list("auditAnnotations").map((x, i) => ({
      name: String(x.key ?? i),
      ...compile(x.valueExpression, `${base}/auditAnnotations/${i}/valueExpression`),
    })),
  };
}

export type ValidationOutcome =
  | { index: number; outcome: "pass" }
  | { index: number; outcome: "fail"; message: string; reason?: string; fieldPath?: string }
  | { index: number; outcome: "error"; message: string; at?: string }
  | { index: number; outcome: "not-evaluated"; message: string; overBudget?: boolean; at?: string };

export type SpecOutcome =
  | { kind: "skip" }
  | { kind: "error"; message: string }
  | { kind: "not-evaluated"; message: string; overBudget?: boolean }
  | { kind: "evaluated"; validations: ValidationOutcome[] };

export interface Activation {
  values: Record<string, unknown>;
  widest: number;
  longestString: number;
}

/** Thrown when an expression could not be compiled; evaluated as an error. */
class NotCompiled extends Error {}

function run(e: CompiledExpression, act: Activation): unknown {
  if (e.needsCluster) throw new NeedsCluster(e.needsCluster);
  if (!e.program) throw new NotCompiled(`expression does not compile: ${e.error}`);
  return e.program.run(act.values, act);
}

/** `variables`: each computed on first read, in a scope that sees the variables before it (and those the caller set, as Gatekeeper's `params`). */
function withVariables(spec: CelSpec, act: Activation): Activation {
  if (spec.variables.length === 0) return act;
  // Own properties only: cel-js reads a map's own keys.
  const variables = Object.assign(Object.create(null) as Record<string, unknown>, act.values.variables as Record<string, unknown> | undefined);
  const scoped: Activation = { ...act, values: Object.create(act.values, { variables: { value: variables, enumerable: true } }) as Record<string, unknown> };
  for (const v of spec.variables) {
    let done = false;
    let value: unknown;
    let error: unknown;
    Object.defineProperty(variables, v.name, {
      enumerable: true,
      get() {
        if (!done) {
          done = true;
          try {
            value = run(v, scoped);
          } catch (err) {
            error = err;
          }
        }
        if (error) throw error;
        return value;
      },
    });
  }
  return scoped;
}

export function evaluateSpec(spec: CelSpec, base: Activation): SpecOutcome {
  const act = withVariables(spec, base);
  const errors: string[] = [];
  for (const m of spec.matchConditions) {
    try {
      const result = run(m, act);
      if (result === false) return { kind: "skip" };
      if (result !== true) errors.push(`matchCondition ${JSON.stringify(m.name)} returned ${typeof result}, not a bool`);
    } catch (err) {
      const special = specialOutcome(err);
      if (special) return { kind: "not-evaluated", ...special };
      errors.push(`matchCondition ${JSON.stringify(m.name)} resulted in error: ${errorText(err)}`);
    }
  }
  if (errors.length > 0) return spec.failurePolicy === "Ignore" ? { kind: "skip" } : { kind: "error", message: errors.join("; ") };
  const validations = spec.validations.map((v) => evaluateValidation(spec, v, act));
  for (const x of spec.auditAnnotations) {
    try {
      run(x, act);
    } catch (err) {
      if (specialOutcome(err)) continue;
      validations.push({
        index: spec.validations.length,
        outcome: "error",
        message: `expression '${x.text}' resulted in error: ${errorText(err)}`,
        at: x.pointer,
      });
    }
  }
  return { kind: "evaluated", validations };
}

function evaluateValidation(spec: CelSpec, v: CompiledValidation, act: Activation): ValidationOutcome {
  let result: unknown;
  try {
    result = run(v, act);
  } catch (err) {
    const special = specialOutcome(err);
    if (special) return { index: v.index, outcome: "not-evaluated", ...special, at: v.pointer };
    return { index: v.index, outcome: "error", message: `expression '${v.text}' resulted in error: ${errorText(err)}`, at: v.pointer };
  }
  if (result === true) return { index: v.index, outcome: "pass" };
  if (result !== false)
    return {
      index: v.index,
      outcome: "error",
      message: `expression '${v.text}' resulted in error: validation expression must evaluate to a bool, got ${typeof result}`,
      at: v.pointer,
    };
  return {
    index: v.index,
    outcome: "fail",
    message: messageOf(spec, v, act),
    ...(v.reason ? { reason: v.reason } : {}),
    ...(v.fieldPath ? { fieldPath: v.fieldPath } : {}),
  };
}

function messageOf(spec: CelSpec, v: CompiledValidation, act: Activation): string {
  if (v.messageExpression?.program) {
    try {
      const m = fromCel(run(v.messageExpression, act));
      if (typeof m === "string" && m.trim() !== "" && !m.includes("\n")) return m.trim();
    } catch {
      // The API server falls back to the static message when messageExpression fails.
    }
  }
  if (v.message && v.message.trim() !== "") return v.message;
  return spec.flavor === "kyverno" && v.messageExpression ? `CEL expression validation failed at index ${v.index}` : `failed expression: ${v.text.trim()}`;
}

function specialOutcome(err: unknown): { message: string; overBudget?: boolean } | undefined {
  if (err instanceof NeedsCluster) return { message: `not evaluated: ${err.what} needs the cluster` };
  if (err instanceof OverBudget) return { message: `not evaluated: ${err.message}`, overBudget: true };
  if (err instanceof RangeError) return { message: `not evaluated: over the cost budget (${err.message})`, overBudget: true };
  return undefined;
}

/** cel-go's wording where cel-js words the same error otherwise. */
export function errorText(err: unknown): string {
  return firstLine(err).replace(/^No such key: /, "no such key: ");
}
