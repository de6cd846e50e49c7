import type { Finding } from "../report/finding.js";
import { discover, type DiscoveredFile } from "./discover.js";
import { DEFAULT_LIMITS, loadPath, type LoadedFile, type LoadLimits } from "./load.js";
import type { Manifest } from "./manifest.js";

export interface ReadResult {
  manifests: Manifest[];
  findings: Finding[];
  files: number;
  documents: number;
}

/** Discovers and loads every manifest below the paths, with the loading findings. */
export function readManifests(paths: string[], root: string, ignore: string[] = [], limits: LoadLimits = DEFAULT_LIMITS): ReadResult {
  return mergeLoaded(loadFiles(discover(paths, { root, ignore }), limits));
}

/** Loads files in order; a file that cannot be read is a finding, not an exception. */
export function loadFiles(files: DiscoveredFile[], limits: LoadLimits = DEFAULT_LIMITS): LoadedFile[] {
  return files.map((f) => {
    try {
      return loadPath(f.abs, f.rel, limits);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      const finding: Finding = { rule: "file/unreadable", severity: "error", message: `file could not be read (${reason})`, file: f.rel, line: 1, column: 1 };
      return { manifests: [], findings: [finding], documents: 0 };
    }
  });
}

/** Loaded files, in order, as one result. */
function mergeLoaded(files: LoadedFile[]): ReadResult {
  const result: ReadResult = { manifests: [], findings: [], files: files.length, documents: 0 };
  for (const loaded of files) {
    for (const m of loaded.manifests) result.manifests.push(m);
    for (const f of loaded.findings) result.findings.push(f);
    result.documents += loaded.documents;
  }
  return result;
}
