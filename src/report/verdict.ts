import { failsAt, type FailOn, type Finding, type Severity } from "../core/finding.js";

/**
 * Whether the step fails, decided once: the exit code, the Action's status and the report's
 * headline all read it. `fail-on` sets the severity that fails; with `failOnNew` only findings new
 * at head count (a repository with old errors can adopt the tool today).
 */
export interface Verdict {
  failed: boolean;
  failOn: FailOn;
  failOnNew: boolean;
  /** The findings that fail the step, by severity. */
  failing: Record<Severity, number>;
}

export interface VerdictOptions {
  failOn: FailOn;
  failOnNew?: boolean;
}

export function decideVerdict(headFindings: Finding[], newFindings: Finding[], options: VerdictOptions): Verdict {
  const counted = options.failOnNew ? newFindings : headFindings;
  const failing: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of counted) if (failsAt(f, options.failOn)) failing[f.severity]++;
  return { failed: failing.error + failing.warning + failing.info > 0, failOn: options.failOn, failOnNew: options.failOnNew === true, failing };
}

/** `2 new errors and 1 new warning`: what fails the step, in words. */
export function failingText(v: Verdict): string {
  const fresh = v.failOnNew ? "new " : "";
  const parts = (["error", "warning", "info"] as const)
    .filter((s) => v.failing[s] > 0)
    .map((s) => `${v.failing[s]} ${fresh}${s === "info" ? "info finding" : s}${v.failing[s] === 1 ? "" : "s"}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : (parts[0] ?? "");
}
