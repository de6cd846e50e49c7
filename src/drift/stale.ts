import { renderableSources } from "../render/repo.js";
import { sourceState, sourceTitle, type RenderedSource } from "../rendered/source.js";
import { sourceKeys, type SourceChange } from "../rendered/diff.js";
import { code } from "../core/markdown.js";
import type { SecretMasker } from "../secrets/mask.js";
import { updateSnapshotCommand } from "./command.js";
import { snapshotDrift, type DriftItem } from "./report.js";
import { readSnapshot, snapshotOf, snapshotState, type SnapshotSource, type SnapshotState } from "./snapshot.js";

/**
 * In a pull request: which sources' files in the committed drift snapshot the change makes stale,
 * so that the nightly drift report would show the change as drift once it is merged. A source is
 * stale when its render at head differs from its snapshot file object by object (as `drift
 * --snapshot` compares them: masked, keyed as the diff keys them), when the snapshot lacks it, or
 * when the change removes it and its file is still there. Only the sources the change alters are
 * looked at (given the diff's `changes`): drift already in the snapshot is the nightly report's.
 */

export interface StaleSource {
  /** `<Kind> <name> (<file>)`. */
  source: string;
  /** The snapshot file that holds it, when there is one. */
  file?: string;
  /** What differs, as drift items: object-added/-removed/-changed, source-added (not in the snapshot), source-removed (gone at head, its file still there), source-failed (other render errors). */
  items: DriftItem[];
}

export interface StaleSnapshot {
  /** The snapshot directory: `present`, or there is none to be stale (`no-directory`, `empty`, `not-a-directory`). */
  state: SnapshotState;
  /** The sources whose snapshot the change makes stale, in the snapshot's order. */
  stale: StaleSource[];
  /** Sources the change alters that did not render at head (not rendered or failed): whether their snapshot is stale is unknown. */
  unknown: string[];
}

/** Statuses of a source whose head render is known and compared with the snapshot. */
const COMPARED = new Set<SourceChange["status"]>(["added", "changed", "fixed", "not-rendered"]);

/**
 * `head`: the sources rendered at head (the diff's head side: every source it rendered, in its
 * order); `changes`: the diff's source changes (`DiffReport.changes`), which pick the sources the
 * change alters. Without `changes`, every rendered source in `head` is compared (and nothing is
 * said of snapshot files no source in `head` has: `head` may be a part of the repository).
 * `masker`: the run's, so that secret values compare as the snapshot holds them (masked).
 */
export function staleSnapshot(snapshotDir: string, head: RenderedSource[], masker: SecretMasker, changes?: SourceChange[]): StaleSnapshot {
  const state = snapshotState(snapshotDir);
  if (state !== "present") return { state, stale: [], unknown: [] };
  const snapshot = readSnapshot(snapshotDir);
  const keys = sourceKeys(head.map((s) => s.source));
  const byKey = new Map(head.map((s, i) => [keys[i]!, s] as const));
  const renderable = new Set(renderableSources(head));
  const picked: RenderedSource[] = [];
  const removed: SourceChange[] = [];
  const unknown: string[] = [];
  for (const change of changes ?? keys.map((key) => ({ key, status: "changed" }) as SourceChange)) {
    if (change.status === "removed") {
      removed.push(change);
      continue;
    }
    const s = byKey.get(change.key);
    // Unchanged: whatever its snapshot holds is not this change's doing. KubeVela Applications are in no snapshot.
    if (!s || !renderable.has(s) || change.status === "unchanged") continue;
    // Failed, still failing or not rendered at head: what it makes there is unknown.
    if (!COMPARED.has(change.status) || sourceState(s) !== "rendered") unknown.push(sourceTitle(s.source));
    else picked.push(s);
  }
  const used = new Set<string>();
  const stale: StaleSource[] = [];
  for (const current of snapshotOf(picked, masker)) {
    const before = matchFile(current, snapshot, used);
    if (before) used.add(before.file);
    const items = snapshotDrift([current], new Map(before ? [[before.file, before]] : []), masker).filter((i) => i.kind !== "source-not-rendered");
    if (items.length) stale.push({ source: current.title, ...(before ? { file: before.file } : {}), items });
  }
  for (const change of removed) {
    const title = `${change.kind} ${change.name} (${change.file})`;
    const file = [...snapshot.values()].find((s) => s.title === title && !used.has(s.file));
    if (!file) continue;
    used.add(file.file);
    stale.push({ source: title, file: file.file, items: snapshotDrift([], new Map([[file.file, file]]), masker) });
  }
  const order = (s: StaleSource) => s.file ?? `\uffff${s.source}`;
  stale.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return { state, stale, unknown };
}

/**
 * The snapshot file of a source rendered on its own (its file name may lack the disambiguation a
 * whole render gives it): the same file name and title, else the same title, else the same file
 * name (a source whose file moved).
 */
function matchFile(current: SnapshotSource, snapshot: Map<string, SnapshotSource>, used: Set<string>): SnapshotSource | undefined {
  const free = [...snapshot.values()].filter((s) => !used.has(s.file));
  return (
    free.find((s) => s.file === current.file && s.title === current.title) ??
    free.find((s) => s.title === current.title) ??
    free.find((s) => s.file === current.file)
  );
}

export interface StaleSnapshotMessage {
  /** A section for the pull request comment and the job summary (empty when there is nothing to say). */
  markdown: string;
  /** One line for a warning annotation, when the snapshot is stale. */
  warning?: string;
}

const LISTED = 20;

const ITEM_TEXT: Partial<Record<DriftItem["kind"], string>> = {
  "object-added": "added",
  "object-removed": "removed",
  "object-changed": "changed",
};

/**
 * What to say of it: `snapshot` is the directory as the workflow names it (the Action's
 * `snapshot` input), `paths` the paths the nightly run renders (its `paths` input).
 */
export function staleSnapshotMessage(result: StaleSnapshot, snapshot: string, paths?: readonly string[]): StaleSnapshotMessage {
  const command = updateSnapshotCommand(snapshot, { paths });
  if (result.state === "no-directory" || result.state === "empty") {
    const what = result.state === "no-directory" ? "does not exist yet" : "holds no snapshot file yet";
    return { markdown: `> 📸 The drift snapshot ${code(snapshot)} ${what}: ${code(command)} creates it (then commit it).\n` };
  }
  if (result.state === "not-a-directory") return { markdown: `> 📸 The drift snapshot ${code(snapshot)} is not a directory: nothing is compared with it.\n` };
  const lines: string[] = [];
  if (result.stale.length) {
    const n = result.stale.length;
    lines.push(
      `### 📸 The drift snapshot in ${code(snapshot)} is stale`,
      "",
      `This pull request changes what ${n} source${n === 1 ? "" : "s"} render${n === 1 ? "s" : ""}, and the committed snapshot still holds what ${n === 1 ? "it" : "they"} rendered before: once merged, the nightly drift report would show the change as drift.`,
      "",
      ...result.stale.slice(0, LISTED).map((s) => `- ${code(s.source)}${s.file ? ` (${code(s.file)})` : ""}: ${describe(s)}`),
      ...(n > LISTED ? [`- and ${n - LISTED} more`] : []),
      "",
      `If the change is intended, refresh the snapshot in this pull request: ${code(command)}, and commit it.`,
    );
  }
  if (result.unknown.length) {
    const n = result.unknown.length;
    if (lines.length) lines.push("");
    const listed = result.unknown.slice(0, LISTED).map(code).join(", ") + (n > LISTED ? ` and ${n - LISTED} more` : "");
    lines.push(
      `> 📸 ${n} source${n === 1 ? "" : "s"} this pull request changes did not render here (${listed}): whether ${n === 1 ? "its" : "their"} drift snapshot is stale is unknown.`,
    );
  }
  if (!lines.length) return { markdown: "" };
  const markdown = `${lines.join("\n")}\n`;
  if (!result.stale.length) return { markdown };
  const n = result.stale.length;
  return {
    markdown,
    warning: `the drift snapshot in ${snapshot} is stale for ${n} source${n === 1 ? "" : "s"} this pull request changes (${result.stale
      .map((s) => s.source)
      .slice(0, 5)
      .join("; ")}${n > 5 ? "; …" : ""}): if the change is intended, run \`${command}\` and commit it`,
  };
}

function describe(s: StaleSource): string {
  const parts: string[] = [];
  const objects = s.items.filter((i) => ITEM_TEXT[i.kind]);
  if (s.items.some((i) => i.kind === "source-added")) parts.push("not in the snapshot");
  if (s.items.some((i) => i.kind === "source-removed")) parts.push("no longer rendered, its snapshot file is still there");
  if (s.items.some((i) => i.kind === "source-failed")) parts.push("its render errors differ from the snapshot's");
  const shown = objects.slice(0, 5).map((i) => `${code(i.object ?? "")} ${ITEM_TEXT[i.kind]}`);
  if (objects.length) parts.push(shown.join(", ") + (objects.length > 5 ? ` and ${objects.length - 5} more objects` : ""));
  return parts.join("; ");
}
