import { Environment } from "@marcbachmann/cel-js";
import { MAX_COST, OverBudget, startMeter } from "./budget.js";
import { registerLibraries } from "./libraries.js";
import { shapeOf, renameCalls, type Shape } from "./source.js";

/**
 * CEL as the API server and Kyverno have it, on @marcbachmann/cel-js: optional types, macros,
 * Kubernetes' libraries (libraries.ts), values without declared types (every variable is dyn, as
 * for objects whose schema the tool does not know), and the budget (budget.ts).
 */

export type Flavor = "kubernetes" | "kyverno" | "kro";

export class CelCompileError extends Error {}

export interface Program {
  text: string;
  shape: Shape;
  /** Evaluates; `widest`/`longestString` are the sizes of the values given (see values.ts). */
  run(activation: Record<string, unknown>, sizes: { widest: number; longestString: number }): unknown;
}

/** Objects of a resource (`group/resource`) in a namespace ("" for all or for cluster-scoped ones), as Kyverno's `resource` library reads them. */
export type ResourceLookup = (apiVersion: string, resource: string, namespace: string) => Record<string, unknown>[];

/** What an evaluation may read besides its request: the clock, and the objects of the input. */
const world: { now: () => Date; lookup?: ResourceLookup } = { now: () => new Date() };

export function setWorld(now: () => Date, lookup?: ResourceLookup): void {
  world.now = now;
  world.lookup = lookup;
}

const environments = new Map<Flavor, Environment>();

function environment(flavor: Flavor): Environment {
  let env = environments.get(flavor);
  if (!env) {
    env = new Environment({
      unlistedVariablesAreDyn: true,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false,
      limits: { maxAstNodes: 10_000, maxDepth: 100, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 },
    });
    registerLibraries(env, { now: () => world.now(), lookup: () => world.lookup, kyverno: flavor === "kyverno", kro: flavor === "kro" });
    environments.set(flavor, env);
  }
  return env;
}

export function compileCel(text: string, flavor: Flavor): Program {
  if (typeof text !== "string" || text.trim() === "") throw new CelCompileError("the expression is empty");
  if (text.length > 100_000) throw new CelCompileError(`the expression is ${text.length} characters long`);
  const env = environment(flavor);
  let evaluate: ((ctx: Record<string, unknown>) => unknown) & { ast: unknown; check(): { valid: boolean; error?: Error } };
  try {
    evaluate = env.parse(renameCalls(text)) as typeof evaluate;
  } catch (err) {
    throw new CelCompileError(firstLine(err));
  }
  const checked = evaluate.check();
  if (!checked.valid) throw new CelCompileError(firstLine(checked.error));
  const shape = shapeOf(evaluate.ast as never);
  return {
    text,
    shape,
    run(activation, sizes) {
      const widest = Math.max(sizes.widest, shape.splitsStrings ? sizes.longestString : 0, 1);
      if (shape.depth > 0 && Math.pow(widest, shape.depth) > MAX_COST) {
        throw new OverBudget(`${shape.depth} nested loops over values of up to ${widest} items could take ${widest}^${shape.depth} steps`);
      }
      startMeter();
      return evaluate(activation);
    },
  };
}

export function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0]!.replace(/\s+$/, "");
}
