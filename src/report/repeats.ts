import type { Finding } from "../core/finding.js";

/**
 * Findings that repeat one message per document of a kind (no schema for a kind, a missing
 * definition) are read once per kind: the text report and the PR comment print the first with
 * how many more there are. JSON, SARIF and annotations keep one result per document.
 */

/** Rules that repeat one message per document of a kind, or per file (templated, lenient): people read them once. */
const GROUPED_RULES = new Set([
  "schema/missing",
  "composition/mode-resources",
  "render/legacy-mode",
  "vela/definition-missing",
  "oam/definition-missing",
  "file/templated",
  "yaml/lenient",
]);

/**
 * For findings of a grouped rule with the same message: the first maps to how many more there
 * are, the others to 0 (not printed). JSON and SARIF keep one result per document.
 */
export function groupRepeats(findings: Finding[]): Map<Finding, number> {
  const first = new Map<string, Finding>();
  const out = new Map<Finding, number>();
  for (const f of findings) {
    if (f.suppressed || !GROUPED_RULES.has(f.rule)) continue;
    const key = `${f.rule}\u0000${f.message}`;
    const lead = first.get(key);
    if (!lead) {
      first.set(key, f);
      out.set(f, 0);
      continue;
    }
    out.set(lead, (out.get(lead) ?? 0) + 1);
    out.set(f, 0);
  }
  for (const [f, n] of out) if (n === 0 && first.get(`${f.rule}\u0000${f.message}`) === f) out.delete(f);
  return out;
}

/** A finding's message with the count of the others like it. */
export function moreLikeIt(f: Finding, repeats: Map<Finding, number>): string {
  return f.message + alsoLikeIt(f, repeats);
}

/** ` (and N more like it)` for the first of a group of repeats, "" otherwise. */
export function alsoLikeIt(f: Finding, repeats: Map<Finding, number>): string {
  const more = repeats.get(f);
  return more ? ` (and ${more} more like it)` : "";
}
