import type { FailOn, Finding, Summary } from "../core/finding.js";
import type { PolicyExplain } from "../policy/index.js";

/** What one run found, as every output format prints it. */
export interface Report {
  findings: Finding[];
  summary: Summary;
  toolVersion: string;
  /** The severity the run fails on (JUnit marks those cases failed; default error). */
  failOn?: FailOn;
  /** The packages whose CRDs validated the run (JSON only). */
  packages?: { reference: string; digest: string; crds: number; via?: string }[];
  /** What check rendered and tested: a report of findings alone hides what was never looked at. */
  coverage?: Coverage;
  /** Each admission policy and what it matched, passed, failed and could not evaluate (JSON only). */
  policies?: PolicyExplain[];
}

export interface Coverage {
  sources: { total: number; rendered: number; notRendered: number; failed: number; notRenderedBecause: Record<string, number> };
  tests?: { run: number; passed: number; failed: number; errors: number; skipped: number; unreadable: number };
}
