/** A finding: one thing wrong (or worth knowing) about the repository, with where it is. */
export type Severity = "error" | "warning" | "info";

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  /** Repository-relative path, with forward slashes. */
  file?: string;
  line?: number;
  column?: number;
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** Field path inside the object, in Crossplane field-path syntax (`spec.pipeline[0].step`). */
  path?: string;
  /** Set when an ignore annotation or config matched; suppressed findings are counted, not shown. */
  suppressed?: boolean;
  /** More for machines and debugging (an internal error's stack): JSON output, and text with --debug. */
  detail?: string;
}

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export type FailOn = Severity | "never";

export function isSeverity(value: string): value is Severity {
  return value === "error" || value === "warning" || value === "info";
}

/** True when a finding reaches the `--fail-on` threshold. */
export function failsAt(finding: Finding, failOn: FailOn): boolean {
  if (failOn === "never" || finding.suppressed) return false;
  return SEVERITY_RANK[finding.severity] >= SEVERITY_RANK[failOn];
}

/** One finding's identity: rendering re-derives some validation findings (a missing Composition, a Kptfile's checks), reported once. */
export function findingKey(f: Finding): string {
  return `${f.rule}|${f.file}|${f.line}|${f.column}|${f.message}`;
}

/** Stable order: file, line, column, rule, message. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    cmp(a.file ?? "", b.file ?? "") || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || cmp(a.rule, b.rule) || cmp(a.message, b.message)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface Summary {
  files: number;
  documents: number;
  errors: number;
  warnings: number;
  infos: number;
  suppressed: number;
}

export function summarize(findings: Finding[], files: number, documents: number): Summary {
  const summary: Summary = { files, documents, errors: 0, warnings: 0, infos: 0, suppressed: 0 };
  for (const f of findings) {
    if (f.suppressed) summary.suppressed++;
    else if (f.severity === "error") summary.errors++;
    else if (f.severity === "warning") summary.warnings++;
    else summary.infos++;
  }
  return summary;
}
