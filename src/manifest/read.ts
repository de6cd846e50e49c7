import type { Finding } from "../report/finding.js";
import { discover } from "./discover.js";
import { DEFAULT_LIMITS, loadPath, type LoadLimits } from "./load.js";
import type { Manifest } from "./manifest.js";

export interface ReadResult {
  manifests: Manifest[];
  findings: Finding[];
  files: number;
  documents: number;
}

/** Discovers and loads every manifest below the paths, with the loading findings. */
export function readManifests(paths: string[], root: string, ignore: string[] = [], limits: LoadLimits = DEFAULT_LIMITS): ReadResult {
  const files = discover(paths, { root, ignore });
  const result: ReadResult = { manifests: [], findings: [], files: files.length, documents: 0 };
  for (const f of files) {
    const loaded = loadPath(f.abs, f.rel, limits);
    result.manifests.push(...loaded.manifests);
    result.findings.push(...loaded.findings);
    result.documents += loaded.documents;
  }
  return result;
}
