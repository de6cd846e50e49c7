import crypto from "node:crypto";
import { diffObjects } from "../rendered/diff.js";
import type { SecretMasker } from "../secrets/mask.js";
import { NOT_RENDERED, type SnapshotSource } from "./snapshot.js";

/**
 * Drift: how today's render differs from a baseline (a committed snapshot, or the cluster), as a
 * list of items. Each item has a stable id, so a previous run's report marks it new or persisting.
 */

export type DriftKind =
  | "object-added"
  | "object-removed"
  | "object-changed"
  | "source-added"
  | "source-removed"
  | "source-failed"
  | "source-not-rendered"
  | "cluster-missing"
  | "cluster-changed"
  | "cluster-orphan";

export interface DriftItem {
  id: string;
  kind: DriftKind;
  /** The source: `<Kind> <name> (<file>)`. */
  source: string;
  /** The object's key, when the item is about one object. */
  object?: string;
  /** A unified diff, or the differing fields, or the errors. */
  detail?: string;
  /**
   * Against the previous run's report: `new`, `persisting` (the same detail), or `changed` (the
   * same item, another detail). With no previous report (`baselines.previous` absent) every item
   * is `new`, which then means only "not known to be older".
   */
  state: "new" | "persisting" | "changed";
}

export interface DriftReport {
  version: 1;
  tool: { name: "composition-ci"; version: string };
  baselines: {
    /** The snapshot directory, relative to the repository root (the Action: as its input names it). */
    snapshot?: string;
    /**
     * The snapshot directory does not exist yet (`no-directory`), or holds no snapshot file
     * (`empty`): every source is `source-added`, and the report says how to create the snapshot.
     */
    snapshotMissing?: "no-directory" | "empty";
    cluster: boolean;
    /** The previous run's report the items were marked against (its file name); only when one was read. */
    previous?: string;
    /** The previous report named (its file name) does not exist yet: the first report, nothing to compare with. */
    previousMissing?: string;
  };
  /** The paths rendered, relative to the root, when not the whole repository (`.`): the snapshot's command names them. */
  paths?: string[];
  /** Every source looked at. */
  sources: number;
  /**
   * How many of them rendered today; the others' drift is unknown (not rendered: a function
   * composition-ci cannot run here; failed: their findings say why), never "none".
   */
  states: { rendered: number; notRendered: number; failed: number };
  items: DriftItem[];
  /** Changes when the set of drift items or their details change; stored in the drift issue. */
  fingerprint: string;
  /** The workflow run (in the Action), for the link. */
  run?: { url: string };
}

function item(kind: DriftKind, source: string, object?: string, detail?: string): DriftItem {
  const id = [kind, source, object ?? ""].join("|");
  const out: DriftItem = { id, kind, source, state: "new" };
  if (object !== undefined) out.object = object;
  if (detail !== undefined) out.detail = detail;
  return out;
}

/** Today's render against the committed snapshot, source by source and object by object. */
export function snapshotDrift(current: SnapshotSource[], snapshot: Map<string, SnapshotSource>, masker: SecretMasker): DriftItem[] {
  const items: DriftItem[] = [];
  const pairs = pairSources(current, [...snapshot.values()]);
  for (const [before, after] of pairs) {
    const file = (after ?? before)!.file;
    if (!after) {
      items.push(item("source-removed", before!.title, undefined, `${before!.file} is in the snapshot, but nothing renders it any more`));
      continue;
    }
    if (!before) {
      items.push(item("source-added", after.title, undefined, `not in the snapshot (${file})`));
      continue;
    }
    const newErrors = after.errors.filter((e) => !before.errors.includes(e));
    const notRendered = newErrors.filter((e) => e.startsWith(`${NOT_RENDERED}:`));
    const failed = newErrors.filter((e) => !notRendered.includes(e));
    // Not rendered today: whether it drifted is unknown, and says so rather than "no drift".
    if (notRendered.length) items.push(item("source-not-rendered", after.title, undefined, notRendered.join("\n")));
    if (failed.length) items.push(item("source-failed", after.title, undefined, failed.join("\n")));
    if (after.errors.length && after.objects.length === 0 && before.objects.length > 0) continue;
    for (const change of diffObjects(before, after, masker, ["snapshot", "render"])) {
      if (change.status === "unchanged") continue;
      items.push(item(`object-${change.status}` as DriftKind, after.title, change.key, change.diff));
    }
  }
  return items;
}

/**
 * Today's sources paired with the snapshot's: by snapshot file name first (it carries kind,
 * namespace and name, and the file when those repeat), then what is left by title (kind, name and
 * file: a file name that changed because a second source of the name appeared), in file-name order.
 */
function pairSources(current: SnapshotSource[], snapshot: SnapshotSource[]): [SnapshotSource | undefined, SnapshotSource | undefined][] {
  const then = new Map(snapshot.map((s) => [s.file, s]));
  const pairs: [SnapshotSource | undefined, SnapshotSource | undefined][] = [];
  const unmatched: SnapshotSource[] = [];
  for (const s of current) {
    const before = then.get(s.file);
    if (before) {
      pairs.push([before, s]);
      then.delete(s.file);
    } else unmatched.push(s);
  }
  const left = [...then.values()];
  for (const s of unmatched) {
    const i = left.findIndex((b) => b.title === s.title);
    pairs.push([i >= 0 ? left.splice(i, 1)[0] : undefined, s]);
  }
  for (const b of left) pairs.push([b, undefined]);
  const name = ([b, a]: [SnapshotSource | undefined, SnapshotSource | undefined]) => (a ?? b)!.file;
  return pairs.sort((x, y) => (name(x) < name(y) ? -1 : name(x) > name(y) ? 1 : 0));
}

/** Marks the items a previous report already had: persisting when their detail is the same, changed when not. */
export function markPrevious(items: DriftItem[], previous: DriftReport | undefined, asWritten: (detail: string) => string = (d) => d): void {
  // The previous report is as it was written (secrets redacted): today's details are compared as they will be.
  const seen = new Map((previous?.items ?? []).map((i) => [i.id, i.detail ?? ""] as const));
  for (const i of items) i.state = !seen.has(i.id) ? "new" : seen.get(i.id) === asWritten(i.detail ?? "") ? "persisting" : "changed";
}

export function driftFingerprint(items: DriftItem[]): string {
  const text = items
    .map((i) => `${i.id}\u0000${i.detail ?? ""}`)
    .sort()
    .join("\u0001");
  return crypto.createHash("sha256").update(text).digest("hex").slice(0, 16);
}
