import { callContext, DEFAULT_NOW, DEFAULT_SEED, type CallContext } from "../../../gotemplate/index.js";

/**
 * The seed and clock of one execution, and whether the template consulted them: a template that
 * did renders values here that a cluster would not (a new password or timestamp on every
 * reconcile), and the function says so in a Normal result.
 */
export interface Reproducible {
  ctx: CallContext;
  /** The note for the response, or undefined when no random or clock function ran. */
  note(): string | undefined;
}

export function reproducible(seed = DEFAULT_SEED, now = DEFAULT_NOW): Reproducible {
  const base = callContext({ seed, now });
  let random = false;
  let clock = false;
  return {
    ctx: {
      random: () => ((random = true), base.random()),
      now: () => ((clock = true), base.now()),
    },
    note: () => {
      if (!random && !clock) return undefined;
      const used = [random && `random values (seed ${seed})`, clock && `the time ${new Date(now).toISOString().replace(".000Z", "Z")}`].filter(Boolean);
      return `the template used ${used.join(" and ")}, fixed so that renders repeat; in a cluster these differ from one reconcile to the next`;
    },
  };
}
