import fs from "node:fs";
import path from "node:path";
import * as YAML from "yaml";
import type { JsonObject } from "../core/json.js";
import { renderableSources } from "../render/repo.js";
import { sourceTitle, streamFileNames, type RenderedSource } from "../rendered/source.js";
import type { SecretMasker } from "../secrets/mask.js";

/**
 * A committed snapshot of what a repository renders (the rendered-manifests pattern): one file per
 * source, named `<kind>-<namespace>-<name>.yaml`, holding the source's rendered objects with secret
 * values masked, each document headed by the key it is known by, and the source's render errors.
 */

export const SNAPSHOT_MARKER = "# composition-ci snapshot:";
/** The prefix of a snapshot error that says the source could not be rendered here (not that it failed). */
export const NOT_RENDERED = "render/not-rendered";
const KEY_COMMENT = " key: ";

export interface SnapshotSource {
  /** The snapshot file's name. */
  file: string;
  /** `<Kind> <name> (<file>)`. */
  title: string;
  objects: JsonObject[];
  keys: string[];
  /** The source's render errors, `rule: message`, and why it was not rendered (`render/not-rendered: …`). */
  errors: string[];
}

/** The snapshot of a render: masked objects, one entry per renderable source. */
export function snapshotOf(sources: RenderedSource[], masker: SecretMasker): SnapshotSource[] {
  const renderable = renderableSources(sources);
  const names = streamFileNames(renderable.map((s) => s.source));
  return renderable.map((s, i) => ({
    file: names[i]!,
    title: sourceTitle(s.source),
    objects: s.objects.map((o) => masker.maskObject(o)),
    keys: s.keys,
    errors: [
      ...s.findings.filter((f) => f.severity === "error" && !f.suppressed).map((f) => `${f.rule}: ${f.message.split("\n")[0]}`),
      ...(s.notRendered ?? []).map((n) => `${NOT_RENDERED}: function ${n.what} ${n.reason}`),
    ].sort(),
  }));
}

export function formatSnapshotFile(s: SnapshotSource): string {
  const header = [`${SNAPSHOT_MARKER} ${s.title}`, `# render errors: ${s.errors.length}`, ...s.errors.map((e) => `#   ${e}`)].join("\n");
  const docs = s.objects.map((o, i) => {
    const doc = new YAML.Document(o, { sortMapEntries: true });
    doc.commentBefore = `${KEY_COMMENT}${s.keys[i] ?? ""}`;
    return `---\n${doc.toString({ lineWidth: 0 })}`;
  });
  return `${header}\n${docs.join("")}`;
}

export type SnapshotState = "present" | "no-directory" | "empty" | "not-a-directory";

/**
 * Whether `dir` holds a snapshot yet: `no-directory` (the first run, before `--update-snapshot`),
 * `empty` (a directory without one snapshot file), `not-a-directory` (a file of that name), else
 * `present`.
 */
export function snapshotState(dir: string): SnapshotState {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) return "no-directory";
  if (!stat.isDirectory()) return "not-a-directory";
  return fs.readdirSync(dir).some((f) => f.endsWith(".yaml") && startsWithMarker(path.join(dir, f))) ? "present" : "empty";
}

/** Whether a file begins with the snapshot marker, reading only that much of it. */
function startsWithMarker(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const head = Buffer.alloc(Buffer.byteLength(SNAPSHOT_MARKER));
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n).toString("utf8") === SNAPSHOT_MARKER;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The snapshot files of `dir` (files without the marker are not ours and are ignored). */
export function readSnapshot(dir: string): Map<string, SnapshotSource> {
  const out = new Map<string, SnapshotSource>();
  if (!fs.existsSync(dir)) return out;
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    if (!text.startsWith(SNAPSHOT_MARKER)) continue;
    const lines = text.split("\n");
    const title = lines[0]!.slice(SNAPSHOT_MARKER.length).trim();
    const errors = lines.filter((l) => l.startsWith("#   ")).map((l) => l.slice(4));
    const objects: JsonObject[] = [];
    const keys: string[] = [];
    for (const doc of YAML.parseAllDocuments(text)) {
      const o = doc.toJS() as JsonObject | null;
      if (!o) continue;
      objects.push(o);
      const comments = `${doc.commentBefore ?? ""}\n${(doc.contents as { commentBefore?: string } | null)?.commentBefore ?? ""}`;
      keys.push(
        comments
          .split("\n")
          .map((l) => l.trim())
          .find((l) => l.startsWith("key: "))
          ?.slice(5) ?? "",
      );
    }
    out.set(file, { file, title, objects, keys, errors });
  }
  return out;
}

export interface SnapshotUpdate {
  written: string[];
  removed: string[];
  unchanged: string[];
}

/** Writes the snapshot, removing files of sources that are gone; says what it touched. */
export function writeSnapshot(dir: string, sources: SnapshotSource[]): SnapshotUpdate {
  fs.mkdirSync(dir, { recursive: true });
  const result: SnapshotUpdate = { written: [], removed: [], unchanged: [] };
  for (const s of sources) {
    const target = path.join(dir, s.file);
    const text = formatSnapshotFile(s);
    if (fs.existsSync(target) && fs.readFileSync(target, "utf8") === text) result.unchanged.push(s.file);
    else {
      fs.writeFileSync(target, text);
      result.written.push(s.file);
    }
  }
  const current = new Set(sources.map((s) => s.file));
  for (const file of readSnapshot(dir).keys()) {
    if (current.has(file)) continue;
    fs.rmSync(path.join(dir, file));
    result.removed.push(file);
  }
  return result;
}
