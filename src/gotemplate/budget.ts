// gotemplate/: Go's text/template and sprig v3 on src/go's value model, for the built-in function-go-templating.
/**
 * The budget of one template execution. Templates come from the repository (a pull request's
 * head included) and run synchronously, so a loop over `until 100000000`, a list doubled forty
 * times or a hundred RSA keys would hold the run until it is killed, or end it in an out-of-memory
 * abort with no report at all. Every execution counts its work in steps: one per node walked and
 * per command evaluated, one per item of a list a function returns and per 16 characters of a
 * string, and for expensive functions what they cost (an RSA key, bcrypt, scrypt), charged before
 * the work is done. Past the step budget, or the wall-clock limit (checked as steps are counted),
 * the execution ends with an error that says so, as any template error does.
 *
 * Executions nest (`include`, `tpl`): an inner one spends its outer one's budget. One execution
 * runs at a time (they are synchronous), so the budget in force is module state.
 */

export interface ExecLimits {
  /** Steps per execution. */
  steps: number;
  /** Wall-clock milliseconds per execution. */
  ms: number;
}

export const DEFAULT_EXEC_LIMITS: Readonly<ExecLimits> = { steps: 10_000_000, ms: 60_000 };

/** What expensive functions cost, in steps, charged before they run (about 5 million steps a second of work). */
export const COSTS = {
  /** One RSA key of 4096 bits (genPrivateKey "rsa"): seconds of work here. */
  rsa4096: 5_000_000,
  /** One RSA key of 2048 bits (genCA, genSelfSignedCert, genSignedCert) or a DSA key. */
  rsa2048: 1_500_000,
  /** An elliptic-curve key. */
  ecKey: 10_000,
  /** bcrypt at cost 10 (htpasswd too), per 2^cost rounds: 512 × 1024. */
  bcryptRound: 512,
  /** derivePassword's scrypt (N=32768, r=8, p=2). */
  scrypt: 1_000_000,
} as const;

/** Characters of a string made that count as one step. */
const CHARS_PER_STEP = 16;

export class BudgetExceeded extends Error {}

class Budget {
  private steps = 0;
  private readonly deadline: number;
  private nextClockCheck = 4096;

  constructor(readonly limits: ExecLimits) {
    this.deadline = Date.now() + limits.ms;
  }

  charge(n: number, what?: string): void {
    this.steps += n;
    if (this.steps > this.limits.steps) {
      const why = what ? `${what}: ` : "";
      throw new BudgetExceeded(`${why}over the execution budget of ${this.limits.steps} steps (loops, function calls and the values they make); stopped`);
    }
    if (this.steps >= this.nextClockCheck) {
      this.nextClockCheck = this.steps + 4096;
      if (Date.now() > this.deadline) throw new BudgetExceeded(`ran longer than ${this.limits.ms / 1000}s; stopped`);
    }
  }
}

let limits: ExecLimits = { ...DEFAULT_EXEC_LIMITS };
let current: Budget | undefined;

/** Runs `fn` as one execution, with its own budget; an execution inside another spends the outer one's. */
export function withBudget<T>(fn: () => T): T {
  if (current) return fn();
  current = new Budget(limits);
  try {
    return fn();
  } finally {
    current = undefined;
  }
}

/**
 * Runs `fn` with these limits for the executions it starts (a built-in function given the run's
 * `--timeout`: `withExecLimits({ ms: timeoutMs }, () => runGoTemplating(req))`).
 */
export function withExecLimits<T>(override: Partial<ExecLimits>, fn: () => T): T {
  const saved = limits;
  limits = { ...limits, ...override };
  try {
    return fn();
  } finally {
    limits = saved;
  }
}

/** Charges `n` steps to the execution in progress (none outside one). */
export function charge(n: number, what?: string): void {
  current?.charge(n, what);
}

/** Charges a string of `length` characters about to be made. */
export function chargeChars(length: number, what?: string): void {
  if (current && length >= CHARS_PER_STEP) current.charge(Math.floor(length / CHARS_PER_STEP), what);
}

/** Charges what a function returned: its items, or its characters. */
export function chargeValue(v: unknown): void {
  if (!current) return;
  if (Array.isArray(v)) {
    if (v.length > 0) current.charge(v.length);
  } else if (typeof v === "string") chargeChars(v.length);
  else if (v instanceof Uint8Array && v.length >= CHARS_PER_STEP) current.charge(Math.floor(v.length / CHARS_PER_STEP));
}
