import type { Finding, Severity } from "../../core/finding.js";
import type { Coverage, Report } from "../report.js";
import { groupRepeats, moreLikeIt } from "../repeats.js";

const COLORS: Record<Severity, string> = { error: "\x1b[31m", warning: "\x1b[33m", info: "\x1b[36m" };
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** For people: findings grouped by file, then a one-line summary. */
export function formatText(report: Report, color: boolean, debug = false): string {
  const paint = (code: string, s: string) => (color ? `${code}${s}${RESET}` : s);
  const lines: string[] = [];
  const byFile = new Map<string, Finding[]>();
  const repeats = groupRepeats(report.findings);
  for (const f of report.findings) {
    if (f.suppressed || repeats.get(f) === 0) continue;
    const key = f.file ?? "(no file)";
    (byFile.get(key) ?? byFile.set(key, []).get(key)!).push(f);
  }
  for (const [file, findings] of byFile) {
    lines.push(paint("\x1b[1m", printable(file)));
    for (const f of findings) {
      const where = f.line ? `${f.line}:${f.column ?? 1}` : "";
      const object = f.kind ? paint(DIM, ` [${f.kind}${f.name ? ` ${f.name}` : ""}]`) : "";
      const message = moreLikeIt(f, repeats);
      lines.push(`  ${where.padEnd(8)} ${paint(COLORS[f.severity], f.severity.padEnd(7))} ${message}  ${paint(DIM, f.rule)}${object}`);
      if (debug && f.detail) lines.push(...f.detail.split("\n").map((l) => paint(DIM, `           ${l}`)));
    }
    lines.push("");
  }
  const s = report.summary;
  const counts = `${s.errors} error${s.errors === 1 ? "" : "s"}, ${s.warnings} warning${s.warnings === 1 ? "" : "s"}, ${s.infos} info`;
  const suppressed = s.suppressed ? `, ${s.suppressed} suppressed` : "";
  const status = s.errors + s.warnings + s.infos === 0 ? paint("\x1b[32m", "✓ clean") : counts;
  lines.push(`${status}${suppressed} — ${s.documents} document${s.documents === 1 ? "" : "s"} in ${s.files} file${s.files === 1 ? "" : "s"}`);
  if (report.coverage) lines.push(coverageLine(report.coverage));
  if (report.policies?.length) lines.push(policiesLine(report.policies));
  return lines.join("\n") + "\n";
}

/** After the counts, what was rendered and tested: "clean" over sources that never rendered is no verdict. */
function coverageLine({ sources: s, tests: t }: Coverage): string {
  const because = Object.entries(s.notRenderedBecause)
    .map(([what, n]) => `${what}: ${n}`)
    .join(", ");
  let line = `rendered ${s.rendered} of ${s.total} source${s.total === 1 ? "" : "s"}`;
  if (s.notRendered) line += `, ${s.notRendered} not rendered (${because})`;
  if (s.failed) line += `, ${s.failed} failed`;
  if (t)
    line += `; tests: ${t.run} run, ${t.passed} passed${t.failed ? `, ${t.failed} failed` : ""}${t.errors ? `, ${t.errors} could not run` : ""}${t.skipped ? `, ${t.skipped} skipped` : ""}`;
  return line;
}

/** A file name as one line of text: control characters (a newline in a name) are escaped. */
function printable(name: string): string {
  return name.replace(/[\x00-\x1f\x7f]/g, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

/** The repository's admission policies, in one line: how many, and what they found (--explain-policies lists each). */
function policiesLine(explain: NonNullable<Report["policies"]>): string {
  const sum = (k: "matched" | "passed" | "failed" | "notEvaluated") => explain.reduce((n, e) => n + e[k], 0);
  const notEvaluated = sum("notEvaluated");
  return `policies: ${explain.length} admission polic${explain.length === 1 ? "y" : "ies"} matched ${sum("matched")} object${sum("matched") === 1 ? "" : "s"}: ${sum("passed")} passed, ${sum("failed")} failed${notEvaluated ? `, ${notEvaluated} not evaluated (need the cluster)` : ""}`;
}
