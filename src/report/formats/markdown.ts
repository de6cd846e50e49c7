import { SEVERITY_RANK, type Finding, type Severity } from "../finding.js";
import type { DiffReport, SourceChange } from "../diff.js";
import type { DriftItem, DriftReport } from "../../drift/report.js";

/**
 * The PR report in GitHub-flavoured markdown: title with the overall status, summary tables,
 * findings (new first), one collapsible block per changed source with a diff per object. A
 * truncation ladder keeps it under a size limit: full diffs, then trimmed hunks, then the list of
 * changed objects, then the summary only; every cut says so.
 */

export const COMMENT_LIMIT = 65_000;
export const SUMMARY_LIMIT = 1024 * 1024;
const TRIMMED_DIFF_LINES = 40;
const FINDING_ROWS = [200, 100, 30, 0];

export interface MarkdownOptions {
  maxChars: number;
  /** `https://github.com/o/r/blob/<sha>/` (plus the root's prefix): findings link to `file#Lline`. */
  linkBase?: string;
  /** Where the whole report is, said at every cut. */
  fullReportHint?: string;
}

type Level = 0 | 1 | 2 | 3;
const CUTS: Record<Level, string> = {
  0: "",
  1: "Diffs are trimmed to fit the size limit.",
  2: "Diffs are left out to fit the size limit; the changed objects are listed.",
  3: "Only the summary fits the size limit.",
};

export function formatDiffMarkdown(report: DiffReport, options: MarkdownOptions): string {
  return ladder((level) => render(report, level, options), options);
}

/** The first level of detail that fits; a hard cut, said, when even the summary does not. */
function ladder(renderAt: (level: Level) => string, options: MarkdownOptions): string {
  for (const level of [0, 1, 2, 3] as Level[]) {
    const text = renderAt(level);
    if (text.length <= options.maxChars) return text;
  }
  const note = `\n\n> ✂️ The report was cut at ${options.maxChars} characters. ${options.fullReportHint ?? ""}\n`;
  return renderAt(3).slice(0, options.maxChars - note.length) + note;
}

/** The drift report: items by source, new ones marked, each with its diff or differing fields. */
export function formatDriftMarkdown(report: DriftReport, options: MarkdownOptions): string {
  return ladder((level) => renderDrift(report, level, options), options);
}

function renderDrift(report: DriftReport, level: Level, options: MarkdownOptions): string {
  const fresh = report.items.filter((i) => i.state === "new").length;
  const title = report.items.length
    ? `### ⚠️ composition-ci drift: ${report.items.length} item${report.items.length === 1 ? "" : "s"} (${fresh} new)`
    : "### ✅ composition-ci drift: none";
  const against = [report.baselines.snapshot && `the snapshot in \`${report.baselines.snapshot}\``, report.baselines.cluster && "the cluster"].filter(Boolean).join(" and ");
  const parts = [title, `<sub>${report.sources} sources rendered and compared with ${against || "nothing"}${report.baselines.previous ? `; new or persisting since \`${report.baselines.previous}\`` : ""}.</sub>`];
  if (level > 0) parts.push(`> ✂️ ${CUTS[level]} ${options.fullReportHint ?? ""}`.trimEnd());
  if (level < 3 && report.items.length) {
    const bySource = new Map<string, DriftItem[]>();
    for (const i of report.items) bySource.set(i.source, [...(bySource.get(i.source) ?? []), i]);
    for (const [source, items] of bySource) {
      const lines = items.map((i) => {
        const head = `- ${i.state === "new" ? "🆕 " : ""}**${i.kind}**${i.object ? ` \`${i.object}\`` : ""}`;
        if (level === 2 || !i.detail) return head;
        const detail = level === 1 ? trim(i.detail) : i.detail;
        return `${head}\n\n${fenced(detail, i.detail.startsWith("---") ? "diff" : "")}\n`;
      });
      parts.push(`<details><summary>${cell(source)} · ${items.length} item${items.length === 1 ? "" : "s"}</summary>\n\n${lines.join("\n")}\n\n</details>`);
    }
  }
  return parts.join("\n\n") + "\n";
}

function render(report: DiffReport, level: Level, options: MarkdownOptions): string {
  const parts = [title(report), summaryTables(report)];
  if (level > 0) parts.push(`> ✂️ ${CUTS[level]} ${options.fullReportHint ?? ""}`.trimEnd());
  if (level < 3) parts.push(findingsSection(report, FINDING_ROWS[level]!, options));
  if (level < 3) parts.push(changesSection(report, level));
  return parts.filter(Boolean).join("\n\n") + "\n";
}

function title(report: DiffReport): string {
  const newBy = (s: Severity) => report.findings.new.filter((f) => f.severity === s && !f.suppressed).length;
  const changed = report.changes.filter((c) => c.status !== "unchanged").length;
  const what = `${changed} source${changed === 1 ? "" : "s"} changed`;
  if (newBy("error")) return `### ❌ composition-ci: ${what}, ${newBy("error")} new error${newBy("error") === 1 ? "" : "s"}`;
  if (newBy("warning")) return `### ⚠️ composition-ci: ${what}, ${newBy("warning")} new warning${newBy("warning") === 1 ? "" : "s"}`;
  return `### ✅ composition-ci: ${what}, no new findings`;
}

function summaryTables(report: DiffReport): string {
  const { objects, sources } = report;
  const visible = (list: Finding[]) => list.filter((f) => !f.suppressed);
  const head = [...visible(report.findings.new), ...visible(report.findings.unchanged)];
  const row = (s: Severity) =>
    `| ${s} | ${visible(report.findings.new).filter((f) => f.severity === s).length} | ${visible(report.findings.fixed).filter((f) => f.severity === s).length} | ${head.filter((f) => f.severity === s).length} |`;
  const scope = sources.all ? "all sources" : `the ${sources.rendered} affected by the change, of ${sources.total}`;
  return [
    `| Sources rendered | Objects added | Objects changed | Objects removed |`,
    `|---:|---:|---:|---:|`,
    `| ${sources.rendered} of ${sources.total} | ${objects.added} | ${objects.changed} | ${objects.removed} |`,
    "",
    `| Findings | New | Fixed | Total |`,
    `|---|---:|---:|---:|`,
    row("error"),
    row("warning"),
    row("info"),
    "",
    `<sub>Base \`${report.base.ref}\` (${report.base.commit.slice(0, 7)}) → head \`${report.head.ref}\`${report.head.commit ? ` (${report.head.commit.slice(0, 7)})` : ""}; rendered ${scope}.</sub>`,
  ].join("\n");
}

function findingsSection(report: DiffReport, maxRows: number, options: MarkdownOptions): string {
  const rows = [
    ...report.findings.new.filter((f) => !f.suppressed).map((f) => ({ f, isNew: true })),
    ...report.findings.unchanged.filter((f) => !f.suppressed).map((f) => ({ f, isNew: false })),
  ].sort((a, b) => Number(b.isNew) - Number(a.isNew) || SEVERITY_RANK[b.f.severity] - SEVERITY_RANK[a.f.severity]);
  const fixed = report.findings.fixed.filter((f) => !f.suppressed).length;
  if (rows.length === 0) return fixed ? `**Findings**: none left; ${fixed} fixed.` : "";
  const lines = ["**Findings**", "", "| | Severity | Rule | Where | Message |", "|---|---|---|---|---|"];
  for (const { f, isNew } of rows.slice(0, maxRows)) {
    lines.push(`| ${isNew ? "🆕" : ""} | ${f.severity} | \`${f.rule}\` | ${where(f, options)} | ${cell(f.message)} |`);
  }
  if (rows.length > maxRows) lines.push("", `…and ${rows.length - maxRows} more findings (the job summary and the report artifact list all of them).`);
  if (fixed) lines.push("", `${fixed} finding${fixed === 1 ? "" : "s"} fixed by this change.`);
  return lines.join("\n");
}

function where(f: Finding, options: MarkdownOptions): string {
  if (!f.file) return "";
  const label = `${f.file}${f.line ? `:${f.line}` : ""}`;
  if (!options.linkBase) return cell(label);
  return `[${cell(label)}](${options.linkBase}${encodeURI(f.file)}${f.line ? `#L${f.line}` : ""})`;
}

/** Text safe inside a table cell: no pipes, no raw HTML, no line breaks. */
function cell(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
}

function changesSection(report: DiffReport, level: Level): string {
  const changed = report.changes.filter((c) => c.status !== "unchanged");
  if (changed.length === 0) return "No rendered object changed.";
  return ["**Changes**", ...changed.map((c) => sourceBlock(c, level))].join("\n\n");
}

function sourceBlock(c: SourceChange, level: Level): string {
  const counts = (["added", "changed", "removed"] as const)
    .map((s) => [s, c.objects.filter((o) => o.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  const state = c.status === "failed" ? "does not render at head (see findings)" : c.status === "changed" ? counts.join(", ") : `${c.status}${counts.length ? `: ${counts.join(", ")}` : ""}`;
  const summary = `<b>${cell(c.kind)}</b> <code>${cell(c.name)}</code> · ${cell(c.file)} · ${state}`;
  const body = c.objects
    .filter((o) => o.status !== "unchanged")
    .map((o) => (level === 2 ? `- ${o.status}: \`${o.key}\`` : fenced(level === 1 ? trim(o.diff ?? "") : (o.diff ?? ""))));
  return `<details><summary>${summary}</summary>\n\n${body.join(level === 2 ? "\n" : "\n\n")}\n\n</details>`;
}

function trim(diff: string): string {
  const lines = diff.split("\n");
  if (lines.length <= TRIMMED_DIFF_LINES) return diff;
  return [...lines.slice(0, TRIMMED_DIFF_LINES), `… ${lines.length - TRIMMED_DIFF_LINES} more lines (trimmed)`].join("\n");
}

function fenced(text: string, language = "diff"): string {
  let fence = "```";
  while (text.includes(fence)) fence += "`";
  return `${fence}${language}\n${text}\n${fence}`;
}
