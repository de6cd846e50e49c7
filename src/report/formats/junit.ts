import { failsAt, type FailOn, type Finding } from "../../core/finding.js";
import type { Report } from "../report.js";

/**
 * JUnit XML: one test case per file with findings. A case fails (one `<failure>` listing them)
 * when the file has a finding the run fails on (`--fail-on`, default error), so a test reporter
 * is red exactly when the exit code is 1; the file's other findings are its `<system-out>`.
 */
export function formatJunit(report: Report): string {
  const failOn: FailOn = report.failOn ?? "error";
  const byFile = new Map<string, Finding[]>();
  for (const f of report.findings) {
    if (f.suppressed) continue;
    const key = f.file ?? "(repository)";
    (byFile.get(key) ?? byFile.set(key, []).get(key)!).push(f);
  }
  const line = (file: string, f: Finding) => `${f.severity}: ${file}:${f.line ?? 1}:${f.column ?? 1} ${f.message} (${f.rule})`;
  let failing = 0;
  const cases = [...byFile].map(([file, findings]) => {
    const failed = findings.filter((f) => failsAt(f, failOn));
    const others = findings.filter((f) => !failsAt(f, failOn));
    const out: string[] = [];
    if (failed.length) {
      failing++;
      const message = `${failed.length} finding${failed.length === 1 ? "" : "s"} at or above ${failOn}: ${failed[0]!.message}`;
      out.push(`      <failure type="${esc(failed[0]!.rule)}" message="${esc(message)}">${esc(failed.map((f) => line(file, f)).join("\n"))}</failure>`);
    }
    if (others.length) out.push(`      <system-out>${esc(others.map((f) => line(file, f)).join("\n"))}</system-out>`);
    return [`    <testcase classname="composition-ci" name="${esc(file)}">`, ...out, "    </testcase>"].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="composition-ci" tests="${byFile.size}" failures="${failing}">`,
    `  <testsuite name="validate" tests="${byFile.size}" failures="${failing}" errors="0">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
