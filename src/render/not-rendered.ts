import type { Finding } from "../core/finding.js";
import { findingAt } from "../validate/findings.js";
import { sourceState, type NotRendered, type RenderedSource } from "../rendered/source.js";

/**
 * What composition-ci could not render, said once per function (or engine) with the count of
 * sources it kept from rendering, at the Function object or the first step that names it: a
 * warning with the fix, never an error of the repository and never one line per source.
 */
export function notRenderedFindings(sources: RenderedSource[]): Finding[] {
  const groups = new Map<string, { first: NotRendered; sources: RenderedSource[]; steps: Set<string> }>();
  for (const s of sources) {
    for (const n of s.notRendered ?? []) {
      const group = groups.get(n.what) ?? { first: n, sources: [], steps: new Set<string>() };
      if (!group.sources.includes(s)) group.sources.push(s);
      if (n.step) group.steps.add(n.step);
      groups.set(n.what, group);
    }
  }
  return [...groups.values()].map(({ first, sources: kept, steps }) => {
    const count = kept.length === 1 ? `1 source (${named(kept)}) was` : `${kept.length} sources (${named(kept)}) were`;
    const message =
      first.severity === "info"
        ? `${count} validated but not rendered: ${first.what} ${first.reason}; ${first.fix}`
        : `${count} not rendered: ${first.subject ?? `function ${first.what}`}${stepsText(steps)} ${first.reason}. To render ${kept.length === 1 ? "it" : "them"}: ${first.fix}`;
    return findingAt(first.at.manifest, first.at.pointer, "render/not-rendered", first.severity, message);
  });
}

/** ` (step kcl)`, ` (steps kcl, render)`: where the pipelines run the function. */
function stepsText(steps: Iterable<string>): string {
  const list = [...steps];
  if (!list.length) return "";
  const shown = list.slice(0, 3).join(", ") + (list.length > 3 ? ` and ${list.length - 3} more` : "");
  return ` (step${list.length === 1 ? "" : "s"} ${shown})`;
}

/** `SQL my-db, SQL other`; a name two sources share gets its file (`SQL my-db (examples/aws.yaml)`). */
function named(sources: RenderedSource[], shown = 3): string {
  const label = (s: RenderedSource) => `${s.source.kind} ${s.source.name ?? ""}`.trim();
  const counts = new Map<string, number>();
  for (const s of sources) counts.set(label(s), (counts.get(label(s)) ?? 0) + 1);
  const names = sources.slice(0, shown).map((s) => (counts.get(label(s))! > 1 ? `${label(s)} (${s.source.file})` : label(s)));
  const more = sources.length - names.length;
  return more > 0 ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

/** `rendered 8 of 54 sources; not rendered: 40 (function-kcl 40); failed: 2`, what render --all and check say at the end. */
/** How many sources rendered, were not rendered (by what) and failed. */
export function sourceCoverage(sources: RenderedSource[]): {
  total: number;
  rendered: number;
  notRendered: number;
  failed: number;
  notRenderedBecause: Record<string, number>;
} {
  const counts = { rendered: 0, "not-rendered": 0, failed: 0 };
  const byWhat: Record<string, number> = {};
  for (const s of sources) {
    counts[sourceState(s)]++;
    for (const what of new Set((s.notRendered ?? []).map((n) => n.what))) byWhat[what] = (byWhat[what] ?? 0) + 1;
  }
  return { total: sources.length, rendered: counts.rendered, notRendered: counts["not-rendered"], failed: counts.failed, notRenderedBecause: byWhat };
}

export function renderSummary(sources: RenderedSource[]): string {
  const counts = { rendered: 0, "not-rendered": 0, failed: 0 };
  const byWhat = new Map<string, number>();
  for (const s of sources) {
    counts[sourceState(s)]++;
    for (const what of new Set((s.notRendered ?? []).map((n) => n.what))) byWhat.set(what, (byWhat.get(what) ?? 0) + 1);
  }
  let line = `rendered ${counts.rendered} of ${sources.length} sources (XRs, claims, Operations, ApplicationConfigurations, kpt packages, Applications)`;
  if (counts["not-rendered"]) line += `; not rendered: ${counts["not-rendered"]} (${[...byWhat].map(([what, n]) => `${what}: ${n}`).join(", ")})`;
  // The findings of a failed source are on it or its Composition; its name says where to look.
  if (counts.failed) line += `; failed: ${counts.failed} (${named(sources.filter((s) => sourceState(s) === "failed"))})`;
  return `${line}\n`;
}
