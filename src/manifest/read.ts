import type { Finding } from "../core/finding.js";
import { discover, type DiscoveredFile } from "./discover.js";
import { DEFAULT_LIMITS, loadPath, type FileRole, type LoadCache, type LoadedFile, type LoadLimits } from "./load.js";
import { chainsawFiles, kustomizePatchFiles, kustomizeResourceFiles } from "./roles.js";
import { cueDefinitions } from "./cue-definitions.js";
import type { Manifest } from "./manifest.js";
import type { UnreadObject } from "./glimpse.js";

export interface ReadResult {
  manifests: Manifest[];
  findings: Finding[];
  files: number;
  documents: number;
  /** Every directory walked and whether it holds a Kptfile (discover.ts). */
  kptfileDirs: Map<string, boolean>;
  /** Objects seen in files or documents that were not read (templates, YAML errors). */
  unread: UnreadObject[];
}

/**
 * Discovers and loads every manifest below the paths, with the loading findings. With a `cache`
 * shared by two reads (diff's base and head), a file with the same bytes is parsed once.
 */
export function readManifests(paths: string[], root: string, ignore: string[] = [], limits: LoadLimits = DEFAULT_LIMITS, cache?: LoadCache): ReadResult {
  const notes: string[] = [];
  const kptfileDirs = new Map<string, boolean>();
  const cueFiles: DiscoveredFile[] = [];
  const result = mergeLoaded(loadFiles(discover(paths, { root, ignore, notes, kptfileDirs, cueFiles }), limits, cache), kptfileDirs);
  result.unread.push(...cueDefinitions(cueFiles));
  for (const message of notes) result.findings.push({ rule: "file/ignored", severity: "info", message });
  return result;
}

/**
 * Loads the files below the paths into `cache` and nothing else, yielding to the event loop
 * between batches: diff warms the cache with the head's files while git writes the base tree
 * (most of whose files are the same), so that neither tree parses them again.
 */
export async function preload(paths: string[], root: string, ignore: string[], limits: LoadLimits, cache: LoadCache): Promise<void> {
  const files = discover(paths, { root, ignore });
  for (let i = 0; i < files.length; i += 128) {
    loadFiles(files.slice(i, i + 128), limits, cache);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Loads files in order; a file that cannot be read is a finding, not an exception. */
export function loadFiles(files: DiscoveredFile[], limits: LoadLimits = DEFAULT_LIMITS, cache?: LoadCache): LoadedFile[] {
  return files.map((f) => {
    try {
      return loadPath(f.abs, f.rel, limits, cache);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      const finding: Finding = { rule: "file/unreadable", severity: "error", message: `file could not be read (${reason})`, file: f.rel, line: 1, column: 1 };
      return { manifests: [], findings: [finding], documents: 0 };
    }
  });
}

/** Loaded files, in order, as one result; files of objects not meant to be applied are left out, and said once. */
function mergeLoaded(files: LoadedFile[], kptfileDirs: Map<string, boolean>): ReadResult {
  const result: ReadResult = { manifests: [], findings: [], files: files.length, documents: 0, kptfileDirs, unread: [] };
  for (const loaded of files) {
    for (const m of loaded.manifests) result.manifests.push(m);
    for (const o of loaded.unread ?? []) result.unread.push(o);
    for (const f of loaded.findings) result.findings.push(f);
    result.documents += loaded.documents;
  }
  const byRole = new Map<FileRole, string[]>();
  for (const loaded of files) if (loaded.role && loaded.source) byRole.set(loaded.role, [...(byRole.get(loaded.role) ?? []), loaded.source.file]);
  const kustomizations = files.flatMap((f) => (f.kustomization !== undefined && f.source ? [{ file: f.source.file, document: f.kustomization }] : []));
  const patches = kustomizePatchFiles(kustomizations, new Set(result.manifests.map((m) => m.file)));
  const addonTemplates = kubeVelaAddonTemplates(files);
  for (const [role, named] of [
    ["test-template", chainsawFiles(result.manifests)],
    ["kustomize-patch", patches],
    ["addon-template", addonTemplates],
  ] as const) {
    if (!named.size) continue;
    const used = [...new Set(result.manifests.filter((m) => named.has(m.file)).map((m) => m.file))];
    result.manifests = result.manifests.filter((m) => !named.has(m.file));
    if (used.length) byRole.set(role, used);
  }
  for (const [role, roleFiles] of byRole) result.findings.push(roleFinding(role, roleFiles));
  kustomizedDuplicates(result.findings, new Set([...kustomizeResourceFiles(kustomizations), ...patches]));
  return result;
}

/** A repeated key in a file a kustomization reads is certain to fail: kustomize refuses the file. */
function kustomizedDuplicates(findings: Finding[], kustomized: Set<string>): void {
  if (!kustomized.size) return;
  findings.forEach((f, i) => {
    if (f.rule === "yaml/duplicate-key" && f.file && kustomized.has(f.file))
      findings[i] = {
        ...f,
        severity: "error",
        message: f.message.replace(/: kubectl, .*$/, ": kustomize refuses the file, and a kustomization here reads it"),
      };
  });
}

/**
 * A KubeVela addon's `template.yaml` (beside the addon's `metadata.yaml`): the Application `vela
 * addon enable` completes with the addon's resources and applies; not applied as written.
 */
function kubeVelaAddonTemplates(files: LoadedFile[]): Set<string> {
  const read = new Set(files.flatMap((f) => (f.source ? [f.source.file] : [])));
  const out = new Set<string>();
  for (const file of read) {
    const slash = file.lastIndexOf("/");
    const dir = slash < 0 ? "" : file.slice(0, slash + 1);
    if (file.slice(dir.length) === "template.yaml" && read.has(`${dir}metadata.yaml`)) out.add(file);
  }
  return out;
}

/** What files of each role hold, said of one file (`one`) or of several. */
const ROLE_MESSAGES: Record<FileRole, { one: string; many: string; rest: string }> = {
  "test-assertion": {
    one: "holds",
    many: "hold",
    rest: "test assertions (kuttl or chainsaw): partial objects a test expects to find; not checked as manifests",
  },
  "test-template": { one: "is", many: "are", rest: "used by chainsaw Tests, which fill them in from bindings and assert them; not checked as manifests" },
  "render-output": { one: "holds", many: "hold", rest: "`crossplane render` output (golden files); not checked as manifests or rendered as sources" },
  "kustomize-patch": { one: "is a patch", many: "are patches", rest: "a Kustomization merges into other objects (partial objects); not checked as manifests" },
  "addon-template": {
    one: "is a KubeVela addon's template",
    many: "are KubeVela addons' templates",
    rest: "(the Application `vela addon enable` completes with the addon's resources); not checked as manifests",
  },
};

function roleFinding(role: FileRole, files: string[]): Finding {
  const named = files.slice(0, 5).join(", ") + (files.length > 5 ? ` and ${files.length - 5} more` : "");
  const { one, many, rest } = ROLE_MESSAGES[role];
  const message = files.length === 1 ? `${named} ${one} ${rest}` : `${files.length} files (${named}) ${many} ${rest}`;
  return { rule: "file/not-applied", severity: "info", message, file: files[0]!, line: 1, column: 1 };
}
