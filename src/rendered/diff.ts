import type { JsonObject } from "../core/json.js";
// rendered/: what a render produces whatever the engine (RenderedSource), its YAML stream, the secrets it holds and how two renders differ.
import { valueAtSegments } from "../manifest/pointer.js";
import { deleteFieldPath } from "../manifest/fieldpath.js";
import { structuredPatch } from "diff";
import * as YAML from "yaml";
import type { Manifest } from "../manifest/manifest.js";
import { sourceState, type RenderedSource } from "./source.js";
import type { Finding } from "../core/finding.js";
import type { SecretMasker } from "../secrets/mask.js";

/**
 * What a change did to what the repository renders, source by source and object by object, and
 * to its findings. Objects are compared as YAML with sorted keys after secret masking.
 */

export type ChangeStatus = "added" | "removed" | "changed" | "unchanged";

/**
 * Every source has one honest state. Besides the object changes: `not-rendered` when
 * composition-ci could not render it on a side it exists on (the diff is unknown, never
 * "unchanged"), `failed` when it renders at base (or is new) but fails at head, `still-failing`
 * when it fails at base and at head (what it makes is unknown on both), `fixed` when it failed at
 * base and renders at head. A source fails when any nested XR of it does (RenderedSource.partial).
 */
export type SourceStatus = ChangeStatus | "not-rendered" | "failed" | "still-failing" | "fixed";

export interface ObjectChange {
  /** `Kind/<composition resource name or name>`. */
  key: string;
  kind: string;
  name: string;
  status: ChangeStatus;
  /** Unified diff of the object's YAML (masked); absent when unchanged. */
  diff?: string;
  /**
   * Fields whose change makes the provider or the cluster replace the object, not update it: its
   * name or namespace, its `crossplane.io/external-name`, or a location (`spec.forProvider.region`, …).
   */
  replacedBy?: string[];
  /** For `changed`: the fields that differ, leaf by leaf (masked; at most MAX_FIELD_CHANGES). */
  fields?: FieldChange[];
}

/** One field of a changed object: added (no `before`), removed (no `after`) or changed. */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

export const MAX_FIELD_CHANGES = 20;

export interface SourceChange {
  key: string;
  kind: string;
  name: string;
  namespace?: string;
  /** The file at head (or base, when removed). */
  file: string;
  via: string;
  status: SourceStatus;
  /** For `not-rendered`: what could not run, why, and what would let it, and on which side. */
  notRendered?: { what: string; step?: string; reason: string; fix: string }[];
  /** For `not-rendered`: the side composition-ci could not render. */
  notRenderedAt?: "head" | "base";
  /** For `failed`: the source is new (there is no base to render). */
  isNew?: boolean;
  /** For `failed`: the nested XRs (keys) that failed at head; `objects` compares the rest. */
  failedNested?: string[];
  /** Fields of the XR filled from observed state: the render cannot know them offline. */
  observedReads?: string[];
  /** The source's own change (the XR, claim or ApplicationConfiguration as written; masked), when it changed: known without rendering. */
  sourceDiff?: string;
  objects: ObjectChange[];
}

export interface FindingsDiff {
  new: Finding[];
  fixed: Finding[];
  unchanged: Finding[];
  /** What rendering found at base for sources that did not render at head: whether the change fixes it is unknown (never counted fixed). */
  unknown?: Finding[];
}

export const DIFF_CONTEXT_LINES = 3;

/** What a team does not want to review (config `diff:`): fields of rendered objects, whole kinds, and the context of hunks. */
export interface DiffView {
  /** `{kind?, path?}`: a field (crossplane field path) of every object, or of one kind; a kind alone hides its objects. */
  ignore?: { kind?: string; path?: string }[];
  /** Lines of context around each change (default 3). */
  context?: number;
}

/**
 * A source's identity across trees: group, kind, namespace and name; a name that repeats in the
 * tree (copies of one example in several folders) is told apart by its file (`@file`), and
 * repeats in one file by their order (`#2`), so that removing one copy pairs no other with it.
 */
export function sourceKeys(sources: Manifest[]): string[] {
  const identities = sources.map(sourceIdentity);
  const count = new Map<string, number>();
  for (const id of identities) count.set(id, (count.get(id) ?? 0) + 1);
  const seen = new Map<string, number>();
  return sources.map((m, i) => {
    const id = identities[i]!;
    const key = count.get(id)! > 1 ? `${id}@${m.file}` : id;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? key : `${key}#${n}`;
  });
}

function sourceIdentity(m: Manifest): string {
  return `${m.group || "core"}/${m.kind}/${m.namespace ?? ""}/${m.name ?? ""}`;
}

/**
 * `keys`: each source's key (both sides' sources, aligned by alignKeys), when the caller keyed them
 * over more sources than these; otherwise the sources are keyed here.
 */
export function diffSources(
  base: RenderedSource[],
  head: RenderedSource[],
  masker: SecretMasker,
  view: DiffView = {},
  keys?: (m: Manifest) => string | undefined,
): SourceChange[] {
  const keyed = (sources: RenderedSource[]) => {
    const own = sourceKeys(sources.map((s) => s.source));
    return new Map(sources.map((s, i) => [s.source, keys?.(s.source) ?? own[i]!] as const));
  };
  const [baseKeys, headKeys] = [keyed(base), keyed(head)];
  if (!keys) alignKeys(baseKeys, headKeys);
  const bySide = (sources: RenderedSource[], sideKeys: Map<Manifest, string>) => new Map(sources.map((s) => [sideKeys.get(s.source)!, s] as const));
  const [b, h] = [bySide(base, baseKeys), bySide(head, headKeys)];
  const all = [...new Set([...h.keys(), ...b.keys()])].sort();
  return all.map((key) => diffSource(key, b.get(key), h.get(key), masker, view));
}

/**
 * Gives a base source the key its head version has where the keys differ: a name that repeats on
 * one side only (a copy added or removed) is keyed by its file there and not on the other; the
 * source left unpaired on both sides at the same file is one source, known by its head key.
 */
export function alignKeys(base: Map<Manifest, string>, head: Map<Manifest, string>): void {
  const unpairedAt = (keys: Map<Manifest, string>, other: Set<string>) => {
    const out = new Map<string, [Manifest, string] | null>();
    for (const [m, key] of keys) {
      if (other.has(key)) continue;
      const place = `${sourceIdentity(m)}@${m.file}`;
      out.set(place, out.has(place) ? null : [m, key]);
    }
    return out;
  };
  const headAt = unpairedAt(head, new Set(base.values()));
  for (const [place, atBase] of unpairedAt(base, new Set(head.values()))) {
    const atHead = headAt.get(place);
    if (atBase && atHead) base.set(atBase[0], atHead[1]);
  }
}

function diffSource(key: string, base: RenderedSource | undefined, head: RenderedSource | undefined, masker: SecretMasker, view: DiffView): SourceChange {
  const s = (head ?? base)!;
  const change: SourceChange = { key, kind: s.source.kind, name: s.source.name ?? "", file: s.source.file, via: s.via, status: "unchanged", objects: [] };
  if (s.source.namespace) change.namespace = s.source.namespace;
  if (s.observedReads?.length) change.observedReads = s.observedReads;
  if (base && head) {
    const [before, after] = [
      toYaml(masker.maskObject(base.source.object as Record<string, unknown>)),
      toYaml(masker.maskObject(head.source.object as Record<string, unknown>)),
    ];
    if (before !== after) change.sourceDiff = unifiedDiff(`${s.source.kind}/${s.source.name ?? ""}`, before, after, undefined, view.context);
  }
  const [headState, baseState] = [head && sourceState(head), base && sourceState(base)];
  if (headState === "not-rendered") return notRenderedAt(change, head!, "head");
  if (headState === "failed") return failedAtHead(change, base, head!, masker, view);
  if (head && baseState === "not-rendered") return notRenderedAt(change, base!, "base");
  // A base whose nested XR failed still says what the rest of it made.
  change.objects = diffObjects(base?.ok ? base : undefined, head, masker, undefined, view);
  const composite = base?.ok && head?.ok ? compositeChange(base, head, masker, view) : undefined;
  if (composite) change.objects.unshift(composite);
  if (!base) change.status = "added";
  else if (!head) change.status = "removed";
  else if (baseState !== "rendered") change.status = "fixed";
  else if (change.objects.some((o) => o.status !== "unchanged")) change.status = "changed";
  return change;
}

/** The engine's own conditions on a rendered XR: they follow from the composed resources, which the diff shows. */
const ENGINE_CONDITIONS = new Set(["Ready", "Synced", "Responsive"]);

/**
 * What a change does to the rendered XR itself: its status as the functions set it (fields,
 * their own conditions). Only when it differs: the XR's spec is the example's, shown as written.
 */
function compositeChange(base: RenderedSource, head: RenderedSource, masker: SecretMasker, view: DiffView): ObjectChange | undefined {
  if (!base.composite || !head.composite) return undefined;
  const statusOf = (xr: JsonObject) => {
    const status = { ...((xr.status ?? {}) as JsonObject) };
    // What the objects it references already show (an Operation's applied resources).
    delete status.appliedResourceRefs;
    if (Array.isArray(status.pipeline))
      status.pipeline = status.pipeline.map((step) => {
        const { appliedResourceRefs: _refs, ...rest } = (step ?? {}) as JsonObject;
        return rest;
      });
    const conditions = Array.isArray(status.conditions) ? status.conditions.filter((c) => !ENGINE_CONDITIONS.has(String((c as JsonObject)?.type))) : [];
    if (conditions.length) status.conditions = conditions;
    else delete status.conditions;
    const meta = (xr.metadata ?? {}) as JsonObject;
    return { apiVersion: xr.apiVersion, kind: xr.kind, metadata: { name: meta.name, ...(meta.namespace ? { namespace: meta.namespace } : {}) }, status };
  };
  const [before, after] = [statusOf(base.composite), statusOf(head.composite)];
  const key = `${String(after.kind)}/${String(after.metadata.name ?? "")}`;
  const [change] = diffObjects({ objects: [before], keys: [key] }, { objects: [after], keys: [key] }, masker, undefined, view);
  return change && change.status !== "unchanged" ? change : undefined;
}

function notRenderedAt(change: SourceChange, side: RenderedSource, at: "head" | "base"): SourceChange {
  change.status = "not-rendered";
  change.notRenderedAt = at;
  change.notRendered = side.notRendered!.map(({ what, step, reason, fix }) => ({ what, ...(step ? { step } : {}), reason, fix }));
  return change;
}

/**
 * A source that fails at head: `failed`, or `still-failing` when it failed at base too (what it
 * makes is unknown on both sides). When only nested XRs failed, the rest is still compared (the
 * source is then `changed` if the rest changed though it failed at base too): the failed XRs'
 * objects are unknown at head (Crossplane keeps what they composed), not removed.
 */
function failedAtHead(change: SourceChange, base: RenderedSource | undefined, head: RenderedSource, masker: SecretMasker, view: DiffView): SourceChange {
  const baseRendered = base !== undefined && sourceState(base) === "rendered";
  // Only nested XRs failed (head.ok), on a base that rendered too (fully or but for nested XRs): the rest is compared.
  if (head.ok && (!base || base.ok) && !base?.notRendered?.length) {
    // The nested XR itself is its parent's object, known; what a failed one composes (on either side) is not.
    const unknownBelow = [...(head.partial ?? []), ...(base?.partial ?? [])];
    change.objects = diffObjects(base, head, masker, undefined, view).filter((o) => !unknownBelow.some((p) => o.key.startsWith(`${p} > `)));
    change.failedNested = head.partial;
  }
  if (base && !baseRendered) {
    change.status = change.objects.some((o) => o.status !== "unchanged") ? "changed" : "still-failing";
    return change;
  }
  change.status = "failed";
  if (!base) change.isNew = true;
  return change;
}

/** Objects and how each is known (`RenderedSource.keys`), in the same order. */
export interface KeyedObjects {
  objects: Record<string, unknown>[];
  keys: string[];
  /** Keys of objects whose name and namespace the engine would not change on an update (`RenderedSource.namesKept`). */
  namesKept?: string[];
}

/**
 * Objects whose name the engine keeps on an update (an OAM trait without `metadata.name`: the
 * runtime finds it in the ApplicationConfiguration's status; a composed resource: Crossplane sets
 * an existing one's name and namespace back): at head they keep the base's name and namespace,
 * as the cluster would, and are updated in place.
 */
function keepNames(base: Map<string, Record<string, unknown>>, head: Map<string, Record<string, unknown>>, kept: string[] | undefined): void {
  for (const key of kept ?? []) {
    const [before, after] = [base.get(key), head.get(key)];
    const { name, namespace } = (before?.metadata ?? {}) as { name?: unknown; namespace?: unknown };
    if (!before || !after || name === undefined) continue;
    const metadata: Record<string, unknown> = { ...((after.metadata ?? {}) as Record<string, unknown>), name };
    if (namespace === undefined) delete metadata.namespace;
    else metadata.namespace = namespace;
    head.set(key, { ...after, metadata });
  }
}

function objectsByKey(source: KeyedObjects | undefined): Map<string, Record<string, unknown>> {
  return new Map((source?.objects ?? []).map((o, i) => [source!.keys[i] ?? String(i), o] as const));
}

/** Object-by-object changes between two renders of one source (either may be absent). */
export function diffObjects(
  base: KeyedObjects | undefined,
  head: KeyedObjects | undefined,
  masker: SecretMasker,
  sides: [string, string] = ["base", "head"],
  view: DiffView = {},
): ObjectChange[] {
  const [b, h] = [objectsByKey(base), objectsByKey(head)];
  keepNames(b, h, head?.namesKept);
  const hidden = (o: Record<string, unknown>) => (view.ignore ?? []).some((i) => i.path === undefined && i.kind === o.kind);
  const keys = [...new Set([...h.keys(), ...b.keys()])].sort().filter((key) => !hidden((h.get(key) ?? b.get(key))!));
  return keys.map((key) => {
    const before = b.get(key);
    const after = h.get(key);
    const o = (after ?? before)!;
    const meta = (o.metadata ?? {}) as { name?: string };
    const kind = String(o.kind ?? "");
    const name = key.startsWith(`${kind}/`) ? key.slice(kind.length + 1) : (meta.name ?? key);
    const [maskedBefore, maskedAfter] = [before && withoutIgnored(masker.maskObject(before), view), after && withoutIgnored(masker.maskObject(after), view)];
    const [oldText, newText] = [maskedBefore && toYaml(maskedBefore), maskedAfter && toYaml(maskedAfter)];
    const status: ChangeStatus = !before ? "added" : !after ? "removed" : oldText === newText ? "unchanged" : "changed";
    const change: ObjectChange = { key, kind, name, status };
    if (status !== "unchanged") change.diff = unifiedDiff(key, oldText ?? "", newText ?? "", sides, view.context);
    if (status === "changed") {
      change.fields = fieldChanges(maskedBefore, maskedAfter);
      const replacedBy = REPLACING_FIELDS.filter((path) => JSON.stringify(valueAtSegments(before, path)) !== JSON.stringify(valueAtSegments(after, path))).map(
        (path) => path.join("."),
      );
      if (replacedBy.length) change.replacedBy = replacedBy;
    }
    return change;
  });
}

/** A copy of a (masked) object without the fields `diff.ignore` names for its kind. */
function withoutIgnored(o: Record<string, unknown>, view: DiffView): Record<string, unknown> {
  const paths = (view.ignore ?? []).filter((i) => i.path !== undefined && (i.kind === undefined || i.kind === o.kind)).map((i) => i.path!);
  if (!paths.length) return o;
  const copy = structuredClone(o);
  for (const p of paths) deleteFieldPath(copy, p);
  return copy;
}

/** The leaf fields that differ between two objects, as field paths (`spec.items[0].name`), at most MAX_FIELD_CHANGES. */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const child = (path: string, key: string | number) =>
    typeof key === "number" ? `${path}[${key}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${key}]`;
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (out.length >= MAX_FIELD_CHANGES) return;
    if (isMap(a) && isMap(b)) {
      for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(a[key], b[key], child(path, key));
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], child(path, i));
      return;
    }
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    out.push({ path: path || "(root)", ...(a !== undefined ? { before: a } : {}), ...(b !== undefined ? { after: b } : {}) });
  };
  walk(before, after, "");
  return out;
}

/** Fields that name an object or where it lives: changing one replaces it (delete and create). */
const REPLACING_FIELDS: string[][] = [
  ["metadata", "name"],
  ["metadata", "namespace"],
  ["metadata", "annotations", "crossplane.io/external-name"],
  ...["region", "location", "zone", "availabilityZone"].map((f) => ["spec", "forProvider", f]),
];

/** YAML with sorted keys: the same object always prints the same. */
export function toYaml(o: unknown): string {
  return YAML.stringify(o, { sortMapEntries: true, lineWidth: 0 });
}

/** A hunk's range as diff and git write it: an empty one starts at the line before it (`-0,0` for a new file). */
function range(start: number, lines: number): string {
  return `${lines === 0 ? start - 1 : start},${lines}`;
}

export function unifiedDiff(key: string, before: string, after: string, [from, to]: [string, string] = ["base", "head"], context = DIFF_CONTEXT_LINES): string {
  const patch = structuredPatch(`${from}/${key}`, `${to}/${key}`, before, after, "", "", { context });
  const lines = [`--- ${before ? `${from}/${key}` : "/dev/null"}`, `+++ ${after ? `${to}/${key}` : "/dev/null"}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines.filter((l) => !l.startsWith("\\")));
  }
  return lines.join("\n");
}

/**
 * Findings new, fixed and unchanged between two trees, compared by rule, file, object, field and
 * message, not by line: a finding that only moved is unchanged. Repeats are matched one for one.
 * `message` turns a message into what identifies it (diff passes one that hides secret values: a
 * changed password does not make a finding about it new); `atHead` says where a base finding's
 * object is at head (diff passes the objects the change moved or renamed: ObjectMoves).
 */
export function diffFindings(
  base: Finding[],
  head: Finding[],
  message: (text: string) => string = (text) => text,
  atHead: (f: Finding) => Finding = (f) => f,
): FindingsDiff {
  const findingIdentity = (f: Finding) => identityOf(f, message);
  const baseIds = base.map((f) => findingIdentity(atHead(f)));
  const pool = new Map<string, number>();
  for (const id of baseIds) pool.set(id, (pool.get(id) ?? 0) + 1);
  const out: FindingsDiff = { new: [], fixed: [], unchanged: [] };
  for (const f of head) {
    const id = findingIdentity(f);
    const left = pool.get(id) ?? 0;
    if (left > 0) {
      pool.set(id, left - 1);
      out.unchanged.push(f);
    } else out.new.push(f);
  }
  const remaining = new Map(pool);
  base.forEach((f, i) => {
    const id = baseIds[i]!;
    const left = remaining.get(id) ?? 0;
    if (left > 0) {
      remaining.set(id, left - 1);
      out.fixed.push(f);
    }
  });
  return out;
}

export function findingIdentity(f: Finding): string {
  return identityOf(f, (text) => text);
}

function identityOf(f: Finding, message: (text: string) => string): string {
  return [f.rule, f.file, f.apiVersion, f.kind, f.name, f.path, message(f.message)].join("\u0000");
}
