// manifest/: files to Manifests: discovery, YAML loading with positions and limits, the roles of files that are not manifests.
import fs from "node:fs";
import type { DiscoveredFile } from "./discover.js";
import type { UnreadObject } from "./glimpse.js";

/**
 * KubeVela definitions kept as CUE (`vela def apply x.cue` turns each into its Definition object):
 * a top-level `name: { type: "trait", ... }` header. They are definitions of the repository,
 * known by name so that an Application naming one is not told it is missing; their templates
 * are not read.
 */
const KINDS: Record<string, string> = {
  component: "ComponentDefinition",
  trait: "TraitDefinition",
  policy: "PolicyDefinition",
  "workflow-step": "WorkflowStepDefinition",
  workload: "WorkloadDefinition",
};

const MAX_CUE_BYTES = 1 << 20;

export function cueDefinitions(files: readonly DiscoveredFile[]): UnreadObject[] {
  const out: UnreadObject[] = [];
  for (const f of files) {
    let text: string;
    try {
      if (fs.statSync(f.abs).size > MAX_CUE_BYTES) continue;
      text = fs.readFileSync(f.abs, "utf8");
    } catch {
      continue; // an unreadable .cue file is no manifest: nothing to say
    }
    const header = definitionHeader(text);
    if (header) out.push({ group: "core.oam.dev", kind: header.kind, name: header.name, file: f.rel, line: header.line, why: "a KubeVela CUE definition" });
  }
  return out;
}

/** The first top-level field (`name: {` or `"name": {`) whose block says `type: "<definition type>"`. */
function definitionHeader(text: string): { name: string; kind: string; line: number } | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^"?([A-Za-z0-9][\w.-]*)"?\s*:\s*\{\s*$/.exec(lines[i]!);
    if (!open) continue;
    for (let j = i + 1; j < lines.length && !/^\}/.test(lines[j]!); j++) {
      const type = /^\s+type:\s*"([\w-]+)"/.exec(lines[j]!);
      if (type && KINDS[type[1]!]) return { name: open[1]!, kind: KINDS[type[1]!]!, line: i + 1 };
    }
    return undefined;
  }
  return undefined;
}
