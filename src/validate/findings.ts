import type { Manifest } from "../manifest/manifest.js";
import { pointerToFieldPath } from "../manifest/pointer.js";
import type { Finding, Severity } from "../core/finding.js";
import { ruleLevel, type RuleLevel } from "../config/config.js";

/** A finding about one field of one manifest, with the field's line and column. */
export function findingAt(manifest: Manifest, pointer: string, rule: string, severity: Severity, message: string): Finding {
  const { line, column } = manifest.locate(pointer);
  const finding: Finding = { rule, severity, message, file: manifest.file, line, column, apiVersion: manifest.apiVersion, kind: manifest.kind };
  if (manifest.name !== undefined) finding.name = manifest.name;
  const path = pointerToFieldPath(pointer);
  if (path) finding.path = path;
  return finding;
}

export const IGNORE_ANNOTATION = "composition-ci.dev/ignore";

/** The rules an object's `composition-ci.dev/ignore` annotation switches off (ids or `family/*`). */
export function ignoredRules(manifest: Manifest): string[] {
  const value = manifest.object.metadata?.annotations?.[IGNORE_ANNOTATION];
  if (typeof value !== "string") return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function matchesRule(patterns: string[], rule: string): boolean {
  return patterns.some((p) => p === rule || p === "*" || (p.endsWith("/*") && rule.startsWith(p.slice(0, -1))));
}

/**
 * Applies the config's rule levels (`off` drops a finding, a severity replaces its own) and
 * marks findings suppressed by their object's ignore annotation: counted, not shown.
 */
export function applyPolicy(findings: Finding[], rules: Record<string, RuleLevel>, suppressions: Map<Finding, string[]>): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    const level = ruleLevel(rules, f.rule);
    if (level === "off") continue;
    const adjusted = level ? { ...f, severity: level } : f;
    const ignore = suppressions.get(f);
    if (ignore && matchesRule(ignore, f.rule)) adjusted.suppressed = true;
    out.push(adjusted);
  }
  return out;
}

/** The ignore annotations that apply to findings placed on repository objects (by file, kind and name). */
export function objectSuppressions(findings: Finding[], manifests: Manifest[]): Map<Finding, string[]> {
  const byObject = new Map<string, string[]>();
  for (const m of manifests) {
    const ignore = ignoredRules(m);
    if (ignore.length) byObject.set(`${m.file}|${m.kind}|${m.name}`, ignore);
  }
  const out = new Map<Finding, string[]>();
  if (byObject.size === 0) return out;
  for (const f of findings) {
    const ignore = byObject.get(`${f.file}|${f.kind}|${f.name}`);
    if (ignore) out.set(f, ignore);
  }
  return out;
}
