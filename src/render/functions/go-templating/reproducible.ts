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

/** How the note begins when the template made secret material from the fixed seed: `render` warns on stderr when it sees it. */
export const SEEDED_SECRETS = "the template generated";

export function reproducible(seed = DEFAULT_SEED, now = DEFAULT_NOW): Reproducible {
  const base = callContext({ seed, now });
  let random = false;
  let clock = false;
  const secrets = new Set<string>();
  return {
    ctx: {
      random: () => ((random = true), base.random()),
      now: () => ((clock = true), base.now()),
      secret: (what: string) => void secrets.add(what),
    },
    note: () => {
      if (!random && !clock) return undefined;
      const used = [random && `random values (seed ${seed})`, clock && `the time ${new Date(now).toISOString().replace(".000Z", "Z")}`].filter(Boolean);
      const fixed = `the template used ${used.join(" and ")}, fixed so that renders repeat; in a cluster these differ from one reconcile to the next`;
      if (!secrets.size) return fixed;
      return `${SEEDED_SECRETS} ${[...secrets].join(" and ")} from a fixed seed: the same on every machine and every run, so never use them; ${fixed}`;
    },
  };
}
