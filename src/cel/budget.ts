// cel/: the Kubernetes CEL engine (cel-js with Kubernetes' and Kyverno's libraries and a cost budget), for x-kubernetes-validations and the policies.
/**
 * The cost budget of one CEL evaluation. The API server refuses an expression whose estimated cost
 * is over its per-expression limit; we cannot estimate as it does, so three guards bound repository
 * CEL instead: a program whose nested loops could take more than MAX_COST steps on the values it
 * is given is not run (checked before each run), every library call is charged for the values it
 * reads and builds, and an evaluation stops past DEADLINE_MS (checked at each library call).
 */

export const MAX_COST = 1e6;
export const DEADLINE_MS = 250;

export class OverBudget extends Error {
  constructor(what: string) {
    super(`over the cost budget: ${what}`);
  }
}

/** Thrown by the libraries that read the cluster (authorizer, Kyverno's resource/http/image/globalContext). */
export class NeedsCluster extends Error {
  constructor(readonly what: string) {
    super(`${what} needs the cluster`);
  }
}

const meter = { spent: 0, deadline: Infinity, calls: 0 };

export function startMeter(): void {
  meter.spent = 0;
  meter.calls = 0;
  meter.deadline = performance.now() + DEADLINE_MS;
}

function sizeOf(v: unknown): number {
  if (typeof v === "string") return Math.ceil(v.length / 10);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === null) return Object.keys(v).length;
  return 0;
}

/** Charges a library call for what it read and built; throws past the budget or the deadline. */
export function charge(args: readonly unknown[], result: unknown): void {
  let cost = 1 + sizeOf(result);
  for (const a of args) cost += sizeOf(a);
  meter.spent += cost;
  if (meter.spent > MAX_COST) throw new OverBudget(`library calls spent over ${MAX_COST} units (counted by the size of what they read and build)`);
  if (++meter.calls % 32 === 0 && performance.now() > meter.deadline) throw new OverBudget(`the evaluation took over ${DEADLINE_MS} ms`);
}

/** A library function charged at each call. */
export function metered<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    const result = fn(...args);
    charge(args, result);
    return result;
  };
}
