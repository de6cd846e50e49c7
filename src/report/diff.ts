import type { ChangeStatus, FindingsDiff, SourceChange } from "../rendered/diff.js";
import type { Verdict } from "./verdict.js";
import type { DefinitionDiff } from "./definition-changes.js";

/** Everything `diff` found, as JSON (`--format json`, versioned) and as the input of the markdown report. */
export interface DiffReport {
  version: 1;
  tool: { name: "composition-ci"; version: string };
  base: { ref: string; commit: string };
  head: { ref: string; commit?: string };
  /**
   * Sources (XRs, claims, ApplicationConfigurations, Applications) at head; of those this run
   * looked at (all, or the ones the change affects), how many rendered, were not rendered, or failed.
   */
  sources: { total: number; considered: number; rendered: number; notRendered: number; failed: number; all: boolean };
  changes: SourceChange[];
  /**
   * Changed files holding objects that no rendered diff shows, on either side: no source renders
   * from them (their objects are applied as written, or their definitions are not in the
   * repository), or none of the sources that read them rendered.
   */
  unrenderedFiles?: string[];
  /** XRDs the change alters, and what that means for their XRs and claims (known without rendering). */
  definitions?: DefinitionDiff[];
  objects: { added: number; changed: number; removed: number };
  findings: FindingsDiff;
  /** Whether the step fails, and on what: the headline says the same as the exit code. */
  verdict: Verdict;
  /** The workflow run (in the Action), for the report's link. */
  run?: { url: string };
}

export function objectCounts(changes: SourceChange[]): DiffReport["objects"] {
  const count = (status: ChangeStatus) => changes.reduce((n, c) => n + c.objects.filter((o) => o.status === status).length, 0);
  return { added: count("added"), changed: count("changed"), removed: count("removed") };
}

/** True when the report has something to say: a changed, unknown or failing source, a new or fixed finding, or a failing step. */
export function hasChanges(report: DiffReport): boolean {
  return (
    report.verdict.failed ||
    report.changes.some((c) => c.status !== "unchanged") ||
    report.findings.new.length + report.findings.fixed.length > 0 ||
    (report.unrenderedFiles?.length ?? 0) > 0 ||
    (report.definitions?.length ?? 0) > 0
  );
}
