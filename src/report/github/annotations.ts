import { SEVERITY_RANK, type Finding } from "../../core/finding.js";

/**
 * GitHub shows at most 10 error and 10 warning annotations per step: the most severe findings,
 * new ones first, get them; the rest are counted.
 */

export const ANNOTATION_LIMIT = { error: 10, warning: 10 } as const;

export interface Annotation {
  level: "error" | "warning";
  finding: Finding;
}

export function pickAnnotations(findings: Finding[], isNew: (f: Finding) => boolean): { annotations: Annotation[]; left: number } {
  const candidates = findings
    .filter((f) => !f.suppressed && f.severity !== "info" && f.file)
    .sort((a, b) => Number(isNew(b)) - Number(isNew(a)) || SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
  const annotations: Annotation[] = [];
  const used = { error: 0, warning: 0 };
  for (const f of candidates) {
    const level = f.severity as "error" | "warning";
    if (used[level] >= ANNOTATION_LIMIT[level]) continue;
    used[level]++;
    annotations.push({ level, finding: f });
  }
  return { annotations, left: candidates.length - annotations.length };
}
