import { failsAt, SEVERITY_RANK, type Finding, type Severity } from "../../core/finding.js";
import { type DiffReport } from "../diff.js";
import { MAX_FIELD_CHANGES, type SourceChange } from "../../rendered/diff.js";
import { updateSnapshotCommand } from "../../drift/command.js";
import type { DriftItem, DriftReport } from "../../drift/report.js";
import { failingText } from "../verdict.js";
import { alsoLikeIt, groupRepeats } from "../repeats.js";
import { code, escapeHtmlText, escapeMarkdown, escapeMarkdownKeepingCode, fenced, fileLink } from "../../core/markdown.js";

/**
 * The PR report in GitHub-flavoured markdown: title with the overall status, summary tables,
 * findings (new first), one collapsible block per changed source with a diff per object. A
 * truncation ladder keeps it under a size limit: full diffs, then trimmed hunks, then the list of
 * changed objects, then the summary only; every cut says so.
 */

export const COMMENT_LIMIT = 65_000;
export const SUMMARY_LIMIT = 1024 * 1024;
const TRIMMED_DIFF_LINES = 40;
const FINDING_ROWS = [100, 50, 20, 0];

export interface MarkdownOptions {
  maxChars: number;
  /** `https://github.com/o/r/blob/<sha>/` (plus the root's prefix): findings link to `file#Lline`. */
  linkBase?: string;
  /** Where the whole report is, said at every cut. */
  fullReportHint?: string;
  /** Told apart from another job's comment on the same pull request (the Action's comment-key). */
  title?: string;
  /** List the findings already on the base branch (the job summary), not only their count. */
  listBaseFindings?: boolean;
  /** The pull request's head commit the comment describes, its page and when it was made (the Action's pr mode). */
  describes?: { sha: string; url?: string; at?: string };
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
  const { snapshot, snapshotMissing, previous, previousMissing } = report.baselines;
  // Items are new, persisting or changed only against a previous report that was read: without
  // one (the first night), none is called new.
  const compared = previous !== undefined;
  const fresh = report.items.filter((i) => i.state === "new").length;
  const { rendered, notRendered, failed } = report.states;
  const unknown = notRendered + failed;
  const missing = snapshot && snapshotMissing ? `no snapshot in ${code(snapshot)} yet` : "";
  const count = `${report.items.length} item${report.items.length === 1 ? "" : "s"}`;
  const title = report.items.length
    ? `### ⚠️ composition-ci drift: ${count}${missing ? ` (${missing})` : compared ? ` (${fresh} new)` : ""}`
    : missing
      ? `### ⚠️ composition-ci drift: ${missing}`
      : unknown
        ? `### ⚠️ composition-ci drift: none among the ${rendered} rendered source${rendered === 1 ? "" : "s"}; ${unknown} unknown (did not render)`
        : "### ✅ composition-ci drift: none";
  const snapshotBaseline =
    snapshot &&
    (snapshotMissing
      ? `no snapshot (${code(snapshot)} ${snapshotMissing === "no-directory" ? "does not exist yet" : "holds no snapshot file yet"})`
      : `the snapshot in ${code(snapshot)}`);
  const against = [snapshotBaseline, report.baselines.cluster && "the cluster"].filter(Boolean).join(" and ");
  const states = [
    notRendered ? `${notRendered} not rendered (a function composition-ci cannot run here)` : "",
    failed ? `${failed} failed (their findings say why)` : "",
  ].filter(Boolean);
  const looked = `${rendered} of ${report.sources} source${report.sources === 1 ? "" : "s"} rendered${states.length ? `, ${states.join(", ")}: their drift is unknown` : ""}`;
  const since = compared
    ? `; new or persisting since ${code(previous)}`
    : previousMissing
      ? `; first report: nothing to compare with yet (no earlier ${code(previousMissing)})`
      : "";
  const parts = [title, `<sub>${looked}; compared with ${against || "nothing"}${since}.</sub>`];
  const command = snapshot ? code(updateSnapshotCommand(snapshot, { paths: report.paths })) : "";
  if (missing) {
    const where =
      snapshotMissing === "no-directory"
        ? `The snapshot directory ${code(snapshot!)} does not exist yet`
        : `The snapshot directory ${code(snapshot!)} holds no snapshot file yet`;
    parts.push(`> 📸 ${where}, so every source counts as added. Create it with ${command}, review it and commit it: the next run compares with it.`);
  }
  const next: string[] = [];
  if (report.run) next.push(`[Workflow run](${report.run.url})`);
  if (report.items.length && snapshot && !missing) {
    next.push(`if this is what should run now, refresh the snapshot: ${command} and commit it`);
  }
  if (next.length) parts.push(next.join(" · "));
  if (level > 0) parts.push(`> ✂️ ${CUTS[level]} ${options.fullReportHint ?? ""}`.trimEnd());
  if (level < 3 && report.items.length) {
    const bySource = new Map<string, DriftItem[]>();
    for (const i of report.items) bySource.set(i.source, [...(bySource.get(i.source) ?? []), i]);
    for (const [source, items] of bySource) {
      const lines = items.map((i) => {
        const head = `- ${compared && i.state === "new" ? "🆕 " : ""}**${i.kind}**${i.object ? ` ${code(i.object)}` : ""}${compared && i.state === "changed" ? " (changed since the previous report)" : ""}`;
        if (level === 2 || !i.detail) return head;
        const detail = level === 1 ? trim(i.detail) : i.detail;
        return `${head}\n\n${fenced(detail, i.detail.startsWith("---") ? "diff" : "")}\n`;
      });
      parts.push(
        `<details><summary>${escapeHtmlText(source)} · ${items.length} item${items.length === 1 ? "" : "s"}</summary>\n\n${lines.join("\n")}\n\n</details>`,
      );
    }
  }
  return parts.join("\n\n") + "\n";
}

function render(report: DiffReport, level: Level, options: MarkdownOptions): string {
  return renderBlocks(report, level, options).join("\n\n") + "\n";
}

/** The report as blocks that are never split (a section, one source's diffs), in order. */
function renderBlocks(report: DiffReport, level: Level, options: MarkdownOptions): string[] {
  const parts = [headline(report, options.title), numbers(report)];
  if (level > 0) parts.push(`> ✂️ ${CUTS[level]} ${options.fullReportHint ?? ""}`.trimEnd());
  if (level < 3)
    parts.push(
      failingTests(report),
      replacements(report),
      summarySection(report, level),
      ...changesSection(report, level),
      definitionsSection(report),
      unrenderedFilesLine(report),
      findingsSections(report, FINDING_ROWS[level]!, options),
      notRenderedSection(report),
      stillFailingSection(report),
    );
  parts.push(footer(report, options.describes));
  return parts.filter(Boolean);
}

/**
 * The report in as many comments as it needs (at most `maxParts`, each within `maxChars`), whole:
 * blocks go to the next part rather than being cut. Only when it would take more parts, or one
 * block alone does not fit, is detail dropped (the one-comment ladder).
 */
export function formatDiffMarkdownParts(report: DiffReport, options: MarkdownOptions, maxParts = 5): string[] {
  const blocks = renderBlocks(report, 0, options);
  const whole = blocks.join("\n\n") + "\n";
  if (whole.length <= options.maxChars) return [whole];
  const room = options.maxChars - PART_NOTE_ROOM;
  if (blocks.some((b) => b.length > room)) return [formatDiffMarkdown(report, options)];
  const parts: string[][] = [[]];
  let size = 0;
  for (const b of blocks) {
    if (parts.at(-1)!.length && size + 2 + b.length > room) {
      parts.push([]);
      size = 0;
    }
    parts.at(-1)!.push(b);
    size += (size ? 2 : 0) + b.length;
  }
  if (parts.length > maxParts) return [formatDiffMarkdown(report, options)];
  const n = parts.length;
  return parts.map((p, i) => {
    const body = p.join("\n\n");
    if (i === 0) return `${body}\n\n<sub>The report goes on in ${n - 1} more comment${n === 2 ? "" : "s"} (part 1/${n}).</sub>\n`;
    return `<sub>composition-ci report${options.title ? ` (${escapeMarkdown(options.title)})` : ""}, part ${i + 1}/${n}</sub>\n\n${body}\n`;
  });
}

const PART_NOTE_ROOM = 200;

/** The repository's tests that fail at head (CompositionTests, golden files) come first: a reviewer reads them before any diff. */
function failingTests(report: DiffReport): string {
  const failing = [...report.findings.new, ...report.findings.unchanged].filter((f) => f.rule.startsWith("test/") && f.severity === "error" && !f.suppressed);
  if (!failing.length) return "";
  const fresh = new Set(report.findings.new);
  const rows = failing.map((f) => {
    // The first line says which test; the next ones are its differences, a few of them shown.
    const [first = "", ...differences] = f.message
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const shown = differences
      .slice(0, MAX_TEST_DIFFERENCES)
      .map((d) => `\n  - ${escapeMarkdownKeepingCode(d)}`)
      .join("");
    const more = differences.length > MAX_TEST_DIFFERENCES ? `\n  - …and ${differences.length - MAX_TEST_DIFFERENCES} more` : "";
    return `- ❌ ${fresh.has(f) ? "🆕 " : ""}${f.file ? `${code(`${f.file}${f.line ? `:${f.line}` : ""}`)} ` : ""}${escapeMarkdownKeepingCode(first)}${shown}${more}`;
  });
  return `**Failing tests** (${failing.length})\n\n${rows.join("\n")}`;
}

const MAX_TEST_DIFFERENCES = 5;

/** The step's verdict, as its exit code gives it. */
function headline(report: DiffReport, title?: string): string {
  const v = report.verdict;
  const name = title ? `composition-ci (${escapeMarkdown(title)})` : "composition-ci";
  const rule = `fail-on: ${v.failOn}${v.failOnNew ? ", new findings only" : ""}`;
  if (v.failed) return `### ❌ ${name}: fails on ${failingText(v)} (${rule})`;
  const old = report.findings.unchanged.filter((f) => !f.suppressed && f.severity === "error").length;
  const context = v.failOnNew && old ? `; ${old} error${old === 1 ? "" : "s"} already on the base branch` : "";
  // A change composition-ci could not render is not "unchanged": the headline says the diff is incomplete.
  const { unknown, affected } = renderGaps(report);
  if (unknown)
    return `### ⚠️ ${name}: ${unknown} of ${affected} affected source${affected === 1 ? "" : "s"} could not be rendered: the rendered diff is incomplete (${rule}${context})`;
  return `### ✅ ${name}: passes (${rule}${context})`;
}

/** The affected sources, and how many of them have no rendered diff (not rendered, or failing at head and not rendered at base). */
export function renderGaps(report: DiffReport): { unknown: number; affected: number } {
  const unknown = report.changes.filter((c) => c.status === "not-rendered" || c.status === "still-failing").length;
  return { unknown, affected: report.changes.length };
}

/** What the change does, in numbers: only real renders are counted as changes. */
function numbers(report: DiffReport): string {
  const count = (status: string) => report.changes.filter((c) => c.status === status).length;
  const changed = report.changes.filter((c) => ["added", "removed", "changed", "fixed"].includes(c.status)).length;
  const { added, changed: modified, removed } = report.objects;
  const visible = (list: Finding[]) => list.filter((f) => !f.suppressed).length;
  const { unknown, affected } = renderGaps(report);
  const rendered = affected - unknown;
  const items = [
    unknown
      ? rendered === 0
        ? "**no affected source rendered**"
        : `**${changed} of the ${rendered} rendered source${rendered === 1 ? "" : "s"} changed**`
      : `**${changed} source${changed === 1 ? "" : "s"} changed**`,
    `objects +${added} ~${modified} −${removed}`,
    `findings: ${visible(report.findings.new)} new, ${visible(report.findings.fixed)} fixed${
      visible(report.findings.unknown ?? []) ? `, ${visible(report.findings.unknown ?? [])} unknown at head` : ""
    }`,
  ];
  if (count("failed")) items.push(`**${count("failed")} fail${count("failed") === 1 ? "s" : ""} to render at head**`);
  if (count("not-rendered")) items.push(`${count("not-rendered")} not rendered (diff unknown)`);
  if (count("still-failing")) items.push(`${count("still-failing")} failing at head, not rendered at base (diff unknown)`);
  if (report.run) items.push(`[workflow run](${report.run.url})`);
  return items.join(" · ");
}

/** Removed objects and objects the change replaces (a new name, external name or location), first; each once, with the sources it happens in. */
function replacements(report: DiffReport): string {
  const seen = new Map<string, { text: string; sources: SourceChange[] }>();
  for (const c of report.changes) {
    for (const o of c.objects) {
      let text: string | undefined;
      if (o.status === "removed") text = `${code(o.key)} is **removed**`;
      else if (o.replacedBy)
        text = `${code(o.key)} is **replaced**: ${o.replacedBy.map((f) => code(f)).join(", ")} change${o.replacedBy.length === 1 ? "s" : ""}`;
      if (!text) continue;
      const entry = seen.get(text) ?? seen.set(text, { text, sources: [] }).get(text)!;
      entry.sources.push(c);
    }
  }
  const lines = [...seen.values()].map(
    ({ text, sources }) =>
      `- ${text} in ${sources.length === 1 ? `${escapeMarkdown(sources[0]!.kind)} ${code(sources[0]!.name)}` : `${sources.length} sources (${shortList(sourceNames(sources))})`}`,
  );
  return lines.length ? `⚠️ **Deleted or replaced when this merges**\n\n${lines.join("\n")}` : "";
}

const SUMMARY_LINES: Record<Level, number> = { 0: 60, 1: 20, 2: 0, 3: 0 };

/**
 * What changed, one line per object or field, in Terraform's spirit, grouped by what renders it
 * and counted once across the sources that render the same change; the diffs stay below.
 */
function summarySection(report: DiffReport, level: Level): string {
  const max = SUMMARY_LINES[level];
  if (max === 0) return "";
  const groups = new Map<string, Map<string, Set<SourceChange>>>();
  const add = (via: string, line: string, c: SourceChange) => {
    const lines = groups.get(via) ?? groups.set(via, new Map()).get(via)!;
    (lines.get(line) ?? lines.set(line, new Set()).get(line)!).add(c);
  };
  for (const c of report.changes) {
    for (const o of c.objects) {
      const label = `${o.kind} ${o.name}`;
      if (o.status === "added") add(c.via, `+ ${label}`, c);
      else if (o.status === "removed") add(c.via, `- ${label}`, c);
      else if (o.status === "changed") {
        for (const f of o.fields ?? [])
          add(c.via, `~ ${label}: ${f.path} ${f.before === undefined ? "(none)" : shown(f.before)} → ${f.after === undefined ? "(none)" : shown(f.after)}`, c);
        if ((o.fields?.length ?? 0) >= MAX_FIELD_CHANGES) add(c.via, `~ ${label}: … more fields (the diff below)`, c);
      }
    }
  }
  if (groups.size === 0) return "";
  let budget = max;
  const blocks: string[] = [];
  let left = 0;
  for (const [via, lines] of groups) {
    const rows: string[] = [];
    for (const [line, sources] of lines) {
      if (budget <= 0) {
        left++;
        continue;
      }
      budget--;
      const n = sources.size;
      const xrs = [...sources].every((s) => s.via.startsWith("Composition")) ? "XR" : "source";
      const where = line.startsWith("- ") ? (n > 1 ? `   (deleted in ${n} ${xrs}s)` : "   (deleted)") : n > 1 ? `   (in ${n} ${xrs}s)` : "";
      rows.push(`${line}${where}`);
    }
    if (rows.length) blocks.push(`${escapeMarkdown(via)}\n\n${fenced(rows.join("\n"), "diff")}`);
  }
  const more = left ? `\n\n…and ${left} more line${left === 1 ? "" : "s"}: the diffs below have them.` : "";
  return `**Summary** (each change once, across the sources that render it; diffs below)\n\n${blocks.join("\n\n")}${more}`;
}

/** A value in a summary line: JSON, cut at 60 characters. */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

interface ChangeGroup {
  changes: SourceChange[];
  first: SourceChange;
}

/** Sources whose change is the same (same route, same object diffs) are shown once, with all their names. */
function groupChanges(changes: SourceChange[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const c of changes) {
    const signature = JSON.stringify([c.via, c.kind, c.status, c.objects.filter((o) => o.status !== "unchanged").map((o) => [o.key, o.status, o.diff])]);
    const group = groups.get(signature) ?? { changes: [], first: c };
    group.changes.push(c);
    groups.set(signature, group);
  }
  return [...groups.values()];
}

const SIGNS: Record<string, string> = { added: "+", removed: "−", changed: "±", fixed: "✔", failed: "✖" };

/** The changes: a heading and one block per group of sources (blocks a long report may spread over comments). */
function changesSection(report: DiffReport, level: Level): string[] {
  const shown = report.changes.filter((c) => c.status in SIGNS);
  if (shown.length === 0) {
    const { unknown, affected } = renderGaps(report);
    if (unknown && unknown === affected)
      return ["None of the affected sources rendered: what the change does to them is below, where it can be known without rendering."];
    return [unknown ? "No change among the sources that rendered." : "No rendered object changed."];
  }
  const [first, ...rest] = groupChanges(shown).map((g) => groupBlock(g, level));
  const note = observedNote(shown);
  return [`**Changes**\n\n${first}`, ...rest, ...(note ? [note] : [])];
}

/** Fields filled from observed state, said once for the whole comment (marked ⓘ above), collapsed. */
function observedNote(changes: SourceChange[]): string {
  const byVia = new Map<string, Set<string>>();
  for (const c of changes) for (const r of c.observedReads ?? []) (byVia.get(c.via) ?? byVia.set(c.via, new Set()).get(c.via)!).add(r);
  if (!byVia.size) return "";
  const rows = [...byVia].map(([via, reads]) => `- ${escapeMarkdown(via)}: ${[...reads].map((r) => code(r)).join(", ")}`);
  return `<details><summary>ⓘ Read from observed state, unknown offline: empty here, set by the cluster</summary>\n\n${rows.join("\n")}\n\n</details>`;
}

function groupBlock({ changes, first: c }: ChangeGroup, level: Level): string {
  const who =
    changes.length === 1
      ? `${escapeMarkdown(c.kind)} ${code(c.name)} (${escapeMarkdown(c.file)})`
      : `${escapeMarkdown(c.kind)} ×${changes.length} (${shortList(sourceNames(changes))})`;
  const objects = c.objects.filter((o) => o.status !== "unchanged");
  const offline = c.observedReads?.length ? " ⓘ" : "";
  const line = `${SIGNS[c.status]} **${who}** via ${escapeMarkdown(c.via)}: ${stateText(c, objects)}${offline}`;
  if (level === 2 || objects.length === 0)
    return level === 2 && objects.length ? `${line}\n${objects.map((o) => `  - ${o.status} ${code(o.key)}`).join("\n")}` : line;
  const diffs = objects.map((o) => fenced(level === 1 ? trim(o.diff ?? "") : (o.diff ?? ""), "diff"));
  const same = changes.length > 1 ? ` (the same for all ${changes.length})` : "";
  return `${line}\n\n<details><summary>diff${same}</summary>\n\n${diffs.join("\n\n")}\n\n</details>`;
}

function stateText(c: SourceChange, objects: SourceChange["objects"]): string {
  if (c.status === "failed") {
    const what = c.isNew ? "new source, **fails to render**" : "renders at base, **fails at head**";
    const nested = c.failedNested?.length ? `: nested ${shortList(c.failedNested.map(code))}, whose objects are unknown` : "";
    const rest = objectParts(objects);
    return `${what}${nested} (see the findings)${rest.length ? `; the rest: ${rest.join(", ")}` : ""}`;
  }
  const parts = objectParts(objects);
  const prefix =
    c.status === "fixed" ? "failed at base, renders at head: " : c.status === "added" ? "new source: " : c.status === "removed" ? "source gone: " : "";
  return `${prefix}${parts.join(", ") || "no objects"}`;
}

/** `+Bucket ×2, ~ConfigMap, −Service`: the objects' changes by kind. */
function objectParts(objects: SourceChange["objects"]): string[] {
  const kinds = (status: string, sign: string) => {
    const counts = new Map<string, number>();
    for (const o of objects.filter((x) => x.status === status)) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
    return [...counts].map(([kind, n]) => `${sign}${escapeMarkdown(kind)}${n > 1 ? ` ×${n}` : ""}`);
  };
  return [...kinds("added", "+"), ...kinds("changed", "~"), ...kinds("removed", "−")];
}

function shortList(items: string[], shown = 5): string {
  const more = items.length - shown;
  return more > 0 ? `${items.slice(0, shown).join(", ")} and ${more} more` : items.join(", ");
}

/** New findings, then fixed ones; those already on the base branch only as a count. */
function findingsSections(report: DiffReport, maxRows: number, options: MarkdownOptions): string {
  const visible = (list: Finding[]) => list.filter((f) => !f.suppressed).sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
  const [fresh, fixed, old] = [visible(report.findings.new), visible(report.findings.fixed), visible(report.findings.unchanged)];
  const parts: string[] = [];
  const section = (title: string, list: Finding[], icon: (f: Finding) => string, more: (n: number) => string) => {
    const repeats = groupRepeats(list);
    const shown = list.filter((f) => repeats.get(f) !== 0);
    const rows = shown.slice(0, maxRows).map((f) => findingLine(f, options, icon(f), repeats));
    if (shown.length > maxRows) rows.push(more(shown.length - maxRows));
    parts.push(`**${title}**\n\n${rows.join("\n")}`);
  };
  // The repository's own admission policies come first: what the platform team forbids.
  const violations = fresh.filter((f) => f.rule.startsWith("policy/") && f.rule !== "policy/changed");
  if (violations.length)
    section(
      "Policy violations new in this change",
      violations,
      (f) => ICONS[f.severity],
      (n) => `- …and ${n} more policy violations. ${options.fullReportHint ?? ""}`.trimEnd(),
    );
  const others = fresh.filter((f) => !violations.includes(f));
  if (others.length)
    section(
      violations.length ? "Other new findings" : "New findings",
      others,
      (f) => ICONS[f.severity],
      (n) => `- …and ${n} more new findings. ${options.fullReportHint ?? ""}`.trimEnd(),
    );
  if (fixed.length)
    section(
      "Fixed by this change",
      fixed,
      () => "✅",
      (n) => `- …and ${n} more fixed.`,
    );
  const unknown = visible(report.findings.unknown ?? []);
  if (unknown.length)
    section(
      "Found at base where head did not render or no longer checks: whether this change fixes them is unknown",
      unknown,
      () => "❔",
      (n) => `- …and ${n} more.`,
    );
  if (old.length) {
    const bySeverity = (["error", "warning", "info"] as Severity[])
      .map((s) => [s, old.filter((f) => f.severity === s).length] as const)
      .filter(([, n]) => n > 0);
    const counts = bySeverity.map(([s, n]) => `${n} ${s === "info" ? "info" : `${s}${n === 1 ? "" : "s"}`}`).join(", ");
    // When they fail the run, the reader sees which: the verdict is theirs.
    const { verdict } = report;
    const failing = verdict.failed && !verdict.failOnNew ? old.filter((f) => failsAt(f, verdict.failOn)) : [];
    const [list, intro, rows] = options.listBaseFindings
      ? [old, undefined, maxRows]
      : [failing, failing.length ? "The run fails on these:" : undefined, Math.min(maxRows, MAX_FAILING_BASE_ROWS)];
    const listed =
      list.length && rows > 0
        ? `\n\n${list
            .slice(0, rows)
            .map((f) => findingLine(f, options))
            .join("\n")}${list.length > rows ? `\n- …and ${list.length - rows} more.` : ""}`
        : "";
    parts.push(
      `<details><summary>${old.length} finding${old.length === 1 ? "" : "s"} already on the base branch (${counts})</summary>\n\n${["This change neither adds nor fixes them.", options.fullReportHint, intro].filter(Boolean).join(" ")}${listed}\n\n</details>`,
    );
  }
  return parts.join("\n\n");
}

const ICONS: Record<Severity, string> = { error: "❌", warning: "⚠️", info: "ℹ️" };

/** The base branch's findings that fail the run, listed in the PR comment (the job summary lists them all). */
const MAX_FAILING_BASE_ROWS = 10;

function findingLine(f: Finding, options: MarkdownOptions, icon = ICONS[f.severity], repeats?: Map<Finding, number>): string {
  const at = where(f, options);
  return `- ${icon} **${f.severity}** ${code(f.rule)}${at ? ` ${at}` : ""}: ${escapeMarkdownKeepingCode(f.message)}${repeats ? alsoLikeIt(f, repeats) : ""}`;
}

/** What the change does to XRDs, Compositions, activation policies and packages, known without rendering; breaking changes first. */
function definitionsSection(report: DiffReport): string {
  if (!report.definitions?.length) return "";
  const blocks = report.definitions.map((d) => {
    const sorted = [...d.changes].sort((a, b) => Number(b.breaking) - Number(a.breaking));
    const rows = sorted.slice(0, 20).map((c) => `  - ${c.breaking ? "⚠️ **breaking**: " : ""}${code(c.path)} ${escapeMarkdown(c.what)}`);
    if (sorted.length > 20) rows.push(`  - …and ${sorted.length - 20} more`);
    return `- ${escapeMarkdown(d.kind)} ${code(d.name)} (${code(d.file)})\n${rows.join("\n")}`;
  });
  return `**What this change alters, known without rendering** (definitions, Compositions, activation policies, packages)\n\n${blocks.join("\n")}`;
}

/** Sources composition-ci could not render, once per function: the diff is unknown, and how to know it. */
function notRenderedSection(report: DiffReport): string {
  const byWhat = new Map<string, { reason: string; fix: string; sources: Set<SourceChange>; at: Set<string>; steps: Set<string> }>();
  for (const c of report.changes) {
    if (c.status !== "not-rendered") continue;
    for (const n of c.notRendered ?? []) {
      const entry = byWhat.get(n.what) ?? { reason: n.reason, fix: n.fix, sources: new Set<SourceChange>(), at: new Set<string>(), steps: new Set<string>() };
      entry.sources.add(c);
      entry.at.add(c.notRenderedAt ?? "head");
      if (n.step) entry.steps.add(n.step);
      byWhat.set(n.what, entry);
    }
  }
  if (byWhat.size === 0) return "";
  const examples = exampleDiffs(report.changes.filter((c) => c.status === "not-rendered"));
  const lines = [...byWhat].map(([what, e]) => {
    const side = e.at.has("head") ? "" : " at base";
    const steps = e.steps.size ? ` (step${e.steps.size === 1 ? "" : "s"} ${shortList([...e.steps].map(code))})` : "";
    const n = e.sources.size;
    return `- ${code(what)}${steps} ${escapeMarkdownKeepingCode(e.reason)}: ${n} source${n === 1 ? "" : "s"} not rendered${side} (${shortList(sourceNames([...e.sources]))}). To render ${n === 1 ? "it" : "them"}: ${escapeMarkdownKeepingCode(e.fix)}`;
  });
  return `**Not rendered: the diff of these is unknown**\n\n${lines.join("\n")}${examples}`;
}

/** How the examples that could not render changed, as written: what the change does to them, known without rendering. */
function exampleDiffs(changes: SourceChange[]): string {
  const changed = changes.filter((c) => c.sourceDiff);
  if (!changed.length) return "";
  const names = sourceNames(changed);
  const blocks = changed.map((c, i) => `${escapeMarkdown(c.kind)} ${names[i]}\n\n${fenced(trim(c.sourceDiff!), "diff")}`);
  return `\n\n<details><summary>${changed.length === 1 ? "The example" : `${changed.length} examples`} as written (changed by this pull request)</summary>\n\n${blocks.join("\n\n")}\n\n</details>`;
}

/** Changed files no rendered diff shows: a reviewer reads them in the pull request's own diff. */
function unrenderedFilesLine(report: DiffReport): string {
  const files = report.unrenderedFiles ?? [];
  if (files.length === 0) return "";
  const n = files.length;
  const [its, it] = n === 1 ? ["its", "it"] : ["their", "them"];
  return `${n} changed file${n === 1 ? "" : "s"} no rendered diff shows (${shortList(files.map(code))}): ${its} objects apply as written, or ${its} definitions are not in the repository, or the sources that read ${it} did not render; the pull request's file diff shows ${it}.`;
}

/** Sources that fail at head and did not render at base either (failed or not run): what they make is unknown on both sides. */
function stillFailingSection(report: DiffReport): string {
  const failing = report.changes.filter((c) => c.status === "still-failing");
  if (failing.length === 0) return "";
  // The file always: examples repeat a name across folders, and the reader looks for the one.
  const rows = failing.slice(0, MAX_STILL_FAILING).map((c) => `- ${escapeMarkdown(c.kind)} ${code(c.name)} (${code(c.file)}) via ${escapeMarkdown(c.via)}`);
  if (failing.length > MAX_STILL_FAILING) rows.push(`- …and ${failing.length - MAX_STILL_FAILING} more`);
  return `**Failing at head, and not rendered at base either: the diff of these is unknown** (the findings say why)\n\n${rows.join("\n")}`;
}

const MAX_STILL_FAILING = 10;

/** Source names as code, with the file where another source of the list has the same name. */
function sourceNames(changes: SourceChange[]): string[] {
  const count = new Map<string, number>();
  for (const c of changes) count.set(c.name, (count.get(c.name) ?? 0) + 1);
  return changes.map((c) => (count.get(c.name)! > 1 ? `${code(c.name)} (${escapeMarkdown(c.file)})` : code(c.name)));
}

function footer(report: DiffReport, describes?: MarkdownOptions["describes"]): string {
  const { sources } = report;
  const scope = sources.all
    ? `all ${sources.total} sources`
    : sources.considered === 0
      ? `none of the ${sources.total} sources at head`
      : `${sources.considered} of the ${sources.total} sources at head (those the change affects)`;
  const states = [
    `${sources.rendered} rendered`,
    sources.notRendered ? `${sources.notRendered} not rendered` : "",
    sources.failed ? `${sources.failed} failed` : "",
  ]
    .filter(Boolean)
    .join(", ");
  // An edited sticky comment says which commit it describes, and since when: visibly current.
  const short = describes && /^[0-9a-f]{7,64}$/i.test(describes.sha) ? describes.sha.slice(0, 7) : undefined;
  const current = short
    ? ` Describes ${describes!.url ? `[${code(short)}](${describes!.url})` : code(short)}${describes!.at ? ` as of ${escapeMarkdown(describes!.at)}` : ""}.`
    : "";
  const looked = sources.considered === 0 && !sources.all ? scope : `${scope}: ${states}`;
  return `<sub>Base ${code(report.base.ref)} (${report.base.commit.slice(0, 7)}) → head ${code(report.head.ref)}${report.head.commit ? ` (${report.head.commit.slice(0, 7)})` : ""}; looked at ${looked}.${current}</sub>`;
}

function where(f: Finding, options: MarkdownOptions): string {
  if (!f.file) return "";
  const label = escapeMarkdown(`${f.file}${f.line ? `:${f.line}` : ""}`);
  if (!options.linkBase) return label;
  return fileLink(`${f.file}${f.line ? `:${f.line}` : ""}`, options.linkBase, f.file, f.line);
}

function trim(diff: string): string {
  const lines = diff.split("\n");
  if (lines.length <= TRIMMED_DIFF_LINES) return diff;
  return [...lines.slice(0, TRIMMED_DIFF_LINES), `… ${lines.length - TRIMMED_DIFF_LINES} more lines (trimmed)`].join("\n");
}
