import type { Finding } from "../finding.js";
import type { Report } from "./index.js";

/** JUnit XML: one test case per file; errors and warnings are failures, infos are notes. */
export function formatJunit(report: Report): string {
  const byFile = new Map<string, Finding[]>();
  for (const f of report.findings) {
    if (f.suppressed) continue;
    const key = f.file ?? "(repository)";
    (byFile.get(key) ?? byFile.set(key, []).get(key)!).push(f);
  }
  const cases = [...byFile].map(([file, findings]) => {
    const failures = findings
      .filter((f) => f.severity !== "info")
      .map((f) => `      <failure type="${esc(f.rule)}" message="${esc(f.message)}">${esc(`${f.severity}: ${file}:${f.line ?? 1}:${f.column ?? 1} ${f.message} (${f.rule})`)}</failure>`);
    const notes = findings.filter((f) => f.severity === "info").map((f) => `${file}:${f.line ?? 1} ${f.message} (${f.rule})`);
    const out = notes.length ? [`      <system-out>${esc(notes.join("\n"))}</system-out>`] : [];
    return [`    <testcase classname="composition-ci" name="${esc(file)}">`, ...failures, ...out, "    </testcase>"].join("\n");
  });
  const failures = report.findings.filter((f) => !f.suppressed && f.severity !== "info").length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="composition-ci" tests="${byFile.size}" failures="${failures}">`,
    `  <testsuite name="validate" tests="${byFile.size}" failures="${failures}" errors="0">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
