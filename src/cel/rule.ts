import { NeedsCluster, OverBudget } from "./budget.js";
import { compileCel, CelCompileError, firstLine, type Program } from "./environment.js";
import { fromCel, toCel } from "./values.js";

/**
 * One CEL expression over plain JSON variables (`self`, `oldSelf`), on the engine the policies
 * use (optional types, Kubernetes' libraries, the cost budget): what a CRD's
 * `x-kubernetes-validations` rule evaluates to where the schema engine's CEL cannot read it.
 */
export type CelRuleResult = { value: unknown } | { error: string; overBudget?: boolean };

export function compileCelRule(expression: string): ((vars: Record<string, unknown>) => CelRuleResult) | { error: string } {
  let program: Program;
  try {
    program = compileCel(expression, "kubernetes");
  } catch (err) {
    return { error: err instanceof CelCompileError ? err.message : firstLine(err) };
  }
  return (vars) => {
    const activation: Record<string, unknown> = {};
    const sizes = { widest: 1, longestString: 0 };
    for (const [name, json] of Object.entries(vars)) {
      const sized = toCel(json);
      activation[name] = sized.value;
      sizes.widest = Math.max(sizes.widest, sized.widest);
      sizes.longestString = Math.max(sizes.longestString, sized.longestString);
    }
    try {
      return { value: fromCel(program.run(activation, sizes)) };
    } catch (err) {
      if (err instanceof OverBudget) return { error: err.message, overBudget: true };
      if (err instanceof NeedsCluster) return { error: err.message };
      return { error: firstLine(err) };
    }
  };
}
