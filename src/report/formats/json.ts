import type { Report } from "../report.js";

/** The versioned machine format (docs/json-output.md). Keys are written in a fixed order. */
export function formatJson(report: Report): string {
  const findings = report.findings.map((f) => {
    const out: Record<string, unknown> = { rule: f.rule, severity: f.severity, message: f.message };
    for (const key of ["file", "line", "column", "apiVersion", "kind", "name", "path"] as const) if (f[key] !== undefined) out[key] = f[key];
    if (f.suppressed) out.suppressed = true;
    if (f.detail !== undefined) out.detail = f.detail;
    return out;
  });
  const { files, documents, errors, warnings, infos, suppressed } = report.summary;
  const packages = report.packages?.length ? { packages: report.packages } : {};
  const coverage = report.coverage ? { sources: report.coverage.sources, ...(report.coverage.tests ? { tests: report.coverage.tests } : {}) } : {};
  const policies = report.policies?.length ? { policies: report.policies } : {};
  return (
    JSON.stringify(
      { version: 1, summary: { files, documents, errors, warnings, infos, suppressed }, ...coverage, ...packages, ...policies, findings },
      null,
      2,
    ) + "\n"
  );
}
