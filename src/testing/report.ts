import type { Finding } from "../core/finding.js";
import { summarize } from "../core/finding.js";
import { formatReport } from "../report/formats/index.js";
import { escapeHtmlText, fenced, tableCell, tableCode } from "../core/markdown.js";
import { describeDifference } from "./compare.js";
import { countTests, type TestFailure, type TestReport, type TestResult } from "./types.js";

/** What `composition-ci test` prints: text for people, JSON, JUnit for CI test reporters, SARIF, and markdown for the Action. */

export type TestFormat = "text" | "json" | "junit" | "sarif" | "markdown";
export const TEST_FORMATS: TestFormat[] = ["text", "json", "junit", "sarif", "markdown"];

export function formatTestReport(format: TestFormat, report: TestReport, options: { toolVersion: string; color?: boolean }): string {
  switch (format) {
    case "json":
      return formatJson(report, options.toolVersion);
    case "junit":
      return formatJunit(report);
    case "sarif": {
      const findings = testFindings(report);
      return formatReport("sarif", { findings, summary: summarize(findings, 0, 0), toolVersion: options.toolVersion });
    }
    case "markdown":
      return formatMarkdown(report);
    default:
      return formatText(report, options.color ?? false);
  }
}

const STATUS_WORD = { passed: "ok", failed: "FAIL", error: "ERROR", skipped: "skip" } as const;

/** What a test is, in one line: `CompositionTest storefront` or `golden examples/x.golden.yaml`. */
export function testTitle(t: TestResult): string {
  return t.kind === "golden" ? `golden ${t.name}` : `CompositionTest ${t.name}`;
}

/** The lines of a failure: the object and where, then one line per difference. */
export function failureLines(f: TestFailure): string[] {
  const where = f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : "";
  const head = f.object ? `${f.object}${f.message ? `: ${f.message}` : ""}${where}` : `${f.message ?? ""}${where}`;
  return [head, ...(f.differences ?? []).map((d) => `  ${describeDifference(d)}`)];
}

/** `3 tests: 2 passed, 1 failed`. */
export function testSummaryLine(report: TestReport): string {
  const c = countTests(report);
  const parts = [`${c.passed} passed`];
  if (c.failed) parts.push(`${c.failed} failed`);
  if (c.errors) parts.push(`${c.errors} could not run`);
  if (c.skipped) parts.push(`${c.skipped} skipped`);
  if (c.unreadable) parts.push(`${c.unreadable} test file${c.unreadable === 1 ? "" : "s"} unreadable`);
  const updated = report.tests.filter((t) => t.updated).length;
  if (updated) parts.push(`${updated} golden file${updated === 1 ? "" : "s"} updated`);
  return `${c.tests} test${c.tests === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

function formatText(report: TestReport, color: boolean): string {
  const paint = (code: string, s: string) => (color ? `${code}${s}\x1b[0m` : s);
  const colors = { passed: "\x1b[32m", failed: "\x1b[31m", error: "\x1b[31m", skipped: "\x1b[2m" } as const;
  const lines: string[] = [];
  for (const u of report.unreadable) lines.push(`${paint("\x1b[31m", "UNREADABLE")} ${u.file}:${u.line}: ${u.message}`);
  for (const t of report.tests) {
    const status = paint(colors[t.status], STATUS_WORD[t.status].padEnd(5));
    const updated = t.updated ? " (golden file updated)" : "";
    lines.push(`${status} ${testTitle(t)}  ${t.file}:${t.line}${updated}${t.status === "skipped" && t.note ? `: ${t.note}` : ""}`);
    if (t.status === "failed" || t.status === "error") {
      if (t.source) lines.push(`      rendering ${t.source}`);
      for (const f of t.failures) lines.push(...failureLines(f).map((l) => `      ${l}`));
    }
  }
  if (!report.tests.length && !report.unreadable.length)
    lines.push(
      "no tests found: no CompositionTest objects and no golden files (crossplane render output streams) below the paths, and none mapped by tests.golden",
    );
  lines.push("", testSummaryLine(report));
  return lines.join("\n") + "\n";
}

function formatJson(report: TestReport, toolVersion: string): string {
  const tests = report.tests.map((t) => ({ ...t, durationMs: Math.round(t.durationMs) }));
  return (
    JSON.stringify(
      { version: 1, toolVersion, summary: countTests(report), durationMs: Math.round(report.durationMs), tests, unreadable: report.unreadable },
      null,
      2,
    ) + "\n"
  );
}

/**
 * JUnit XML as CI test reporters read it: one testsuite per test file, one testcase per test; a
 * failed test has a <failure> with every difference, one that could not run an <error>, a
 * skipped one <skipped>. An unreadable test file is a testcase with an <error> in its file's suite.
 */
function formatJunit(report: TestReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const suites = new Map<string, string[]>();
  const stats = new Map<string, { tests: number; failures: number; errors: number; skipped: number; ms: number }>();
  const suite = (file: string) => {
    if (!suites.has(file)) {
      suites.set(file, []);
      stats.set(file, { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 });
    }
    return { cases: suites.get(file)!, stat: stats.get(file)! };
  };
  for (const u of report.unreadable) {
    const { cases, stat } = suite(u.file);
    stat.tests++;
    stat.errors++;
    cases.push(`    <testcase name="${esc(`${u.file}:${u.line}`)}" classname="${esc(u.file)}" file="${esc(u.file)}" line="${u.line}" time="0.000">`);
    cases.push(`      <error type="test/unreadable" message="${esc(u.message)}">${text(`${u.file}:${u.line}: ${u.message}`)}</error>`);
    cases.push("    </testcase>");
  }
  for (const t of report.tests) {
    const { cases, stat } = suite(t.file);
    stat.tests++;
    stat.ms += t.durationMs;
    cases.push(`    <testcase name="${esc(testTitle(t))}" classname="${esc(t.file)}" file="${esc(t.file)}" line="${t.line}" time="${seconds(t.durationMs)}">`);
    const body = [...(t.source ? [`rendering ${t.source}`] : []), ...t.failures.flatMap((f) => failureLines(f))].join("\n");
    const summary = t.failures.length === 1 ? failureLines(t.failures[0]!)[0]! : `${t.failures.length} problems`;
    if (t.status === "failed") {
      stat.failures++;
      cases.push(`      <failure type="test/${t.kind === "golden" ? "golden" : "assertion"}" message="${esc(summary)}">${text(body)}</failure>`);
    } else if (t.status === "error") {
      stat.errors++;
      cases.push(`      <error type="test/error" message="${esc(summary)}">${text(body)}</error>`);
    } else if (t.status === "skipped") {
      stat.skipped++;
      cases.push(`      <skipped message="${esc(t.note ?? "skipped")}"/>`);
    }
    if (t.updated) cases.push(`      <system-out>${text(`golden file ${t.file} updated`)}</system-out>`);
    cases.push("    </testcase>");
  }
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const body: string[] = [];
  for (const [file, cases] of suites) {
    const s = stats.get(file)!;
    total.tests += s.tests;
    total.failures += s.failures;
    total.errors += s.errors;
    total.skipped += s.skipped;
    body.push(
      `  <testsuite name="${esc(file)}" tests="${s.tests}" failures="${s.failures}" errors="${s.errors}" skipped="${s.skipped}" time="${seconds(s.ms)}">`,
      ...cases,
      "  </testsuite>",
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="composition-ci test" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" skipped="${total.skipped}" time="${seconds(report.durationMs)}">`,
    ...body,
    "</testsuites>",
    "",
  ].join("\n");
}

/** Text content: characters XML 1.0 cannot hold at all are dropped, markup characters escaped. */
function text(s: string): string {
  return s
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** An attribute value: as text, with quotes and line breaks as references (a parser would fold them to spaces). */
function esc(s: string): string {
  return text(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

/**
 * Failed and erring tests and unreadable test files as findings (rule test/failed, test/error,
 * test/unreadable), at the test in its file: for SARIF, annotations and `check`'s report.
 */
export function testFindings(report: TestReport): Finding[] {
  const out: Finding[] = report.unreadable.map((u) => ({
    rule: "test/unreadable",
    severity: "error",
    message: u.message,
    file: u.file,
    line: u.line,
    column: 1,
  }));
  for (const t of report.tests) {
    if (t.status !== "failed" && t.status !== "error") continue;
    const first = t.failures.find((f) => f.line) ?? t.failures[0];
    const message = [
      `${testTitle(t)} ${t.status === "failed" ? "fails" : "could not run"}${t.source ? ` (rendering ${t.source})` : ""}:`,
      ...t.failures.flatMap((f) => failureLines(f).map((l) => `  ${l}`)),
    ].join("\n");
    out.push({
      rule: t.status === "failed" ? "test/failed" : "test/error",
      severity: "error",
      message,
      file: first?.file ?? t.file,
      line: first?.line ?? t.line,
      column: 1,
      kind: t.kind,
      name: t.name,
    });
  }
  return out;
}

/** Markdown for the job summary: failing tests first, each with its differences. */
function formatMarkdown(report: TestReport): string {
  const c = countTests(report);
  const failing = report.tests.filter((t) => t.status === "failed" || t.status === "error");
  const ok = failing.length === 0 && report.unreadable.length === 0;
  const lines = [`### ${ok ? "✅" : "❌"} composition-ci test: ${testSummaryLine(report)}`, ""];
  if (!c.tests && !c.unreadable) lines.push("No tests found: no CompositionTest objects and no golden files below the paths.", "");
  const order = { error: 0, failed: 1, skipped: 2, passed: 3 } as const;
  const rows = [...report.tests].sort((a, b) => order[a.status] - order[b.status]);
  if (rows.length || report.unreadable.length) {
    lines.push("| | test | file |", "|---|---|---|");
    for (const u of report.unreadable) lines.push(`| ❌ unreadable | ${tableCell(u.message)} | ${tableCode(`${u.file}:${u.line}`)} |`);
    const icon = { passed: "✅", failed: "❌", error: "⚠️", skipped: "⏭️" } as const;
    for (const t of rows)
      lines.push(`| ${icon[t.status]} ${t.status} | ${tableCell(testTitle(t))}${t.updated ? " (updated)" : ""} | ${tableCode(`${t.file}:${t.line}`)} |`);
    lines.push("");
  }
  for (const t of failing) {
    lines.push(`<details open><summary>${escapeHtmlText(testTitle(t))} ${t.status === "failed" ? "fails" : "could not run"}</summary>`, "");
    const text = [...(t.source ? [`rendering ${t.source}`] : []), ...t.failures.flatMap((f) => failureLines(f))].join("\n");
    lines.push(fenced(text), "", "</details>", "");
  }
  return lines.join("\n");
}
