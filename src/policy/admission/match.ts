import { isEmptySelector, labelsOf, matchesSelector, type LabelSelector } from "../selector.js";
import type { Admission } from "../request.js";

/** admissionregistration MatchResources, as the API server's matcher reads it. */
export interface MatchResources {
  namespaceSelector?: LabelSelector | null;
  objectSelector?: LabelSelector | null;
  resourceRules?: NamedRule[];
  excludeResourceRules?: NamedRule[];
  matchPolicy?: "Exact" | "Equivalent";
}

export interface NamedRule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  scope?: string;
  resourceNames?: string[];
}

/** Matched, not matched, or unknown offline (a namespaceSelector on a namespace the input does not hold). */
export type Match = { matched: true } | { matched: false } | { unknown: string };

export const MATCHED: Match = { matched: true };
export const NOT_MATCHED: Match = { matched: false };

export function matchResources(m: MatchResources | undefined | null, a: Admission, rulesRequired: boolean): Match {
  if (!m) return rulesRequired ? NOT_MATCHED : MATCHED;
  const rules = m.resourceRules ?? [];
  if (rulesRequired || rules.length > 0) {
    if (!rules.some((r) => ruleMatches(r, a, m.matchPolicy !== "Exact"))) return NOT_MATCHED;
  }
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, a, m.matchPolicy !== "Exact"))) return NOT_MATCHED;
  if (!objectSelectorMatches(m.objectSelector, a)) return NOT_MATCHED;
  return namespaceSelectorMatches(m.namespaceSelector, a);
}

export function objectSelectorMatches(selector: LabelSelector | undefined | null, a: Admission): boolean {
  if (isEmptySelector(selector)) return true;
  const objects = [a.target.object, a.target.oldObject].filter((o) => o);
  return objects.some((o) => matchesSelector(selector, labelsOf(o)));
}

/** Cluster-scoped objects match any namespaceSelector, except Namespaces, which are matched by their own labels. */
export function namespaceSelectorMatches(selector: LabelSelector | undefined | null, a: Admission): Match {
  if (isEmptySelector(selector)) return MATCHED;
  if (a.kind === "Namespace" && a.group === "") return matchesSelector(selector, labelsOf(a.object)) ? MATCHED : NOT_MATCHED;
  if (!a.namespace) return MATCHED;
  if (!a.namespaceObject && onlyNameLabel(selector!)) return matchesSelector(selector, namespaceLabels({}, a.namespace)) ? MATCHED : NOT_MATCHED;
  if (!a.namespaceObject) return { unknown: `the labels of namespace ${JSON.stringify(a.namespace)} (no Namespace object for it among the input)` };
  return matchesSelector(selector, namespaceLabels(a.namespaceObject, a.namespace)) ? MATCHED : NOT_MATCHED;
}

/** A selector that reads only the label the API server puts on every namespace is answered without the Namespace. */
function onlyNameLabel(selector: LabelSelector): boolean {
  const keys = [...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map((e) => e.key)];
  return keys.every((k) => k === "kubernetes.io/metadata.name");
}

/** A Namespace's labels, with the one the API server sets on every namespace. */
export function namespaceLabels(ns: Record<string, unknown>, name: string): Record<string, unknown> {
  return { "kubernetes.io/metadata.name": name, ...labelsOf(ns) };
}

/**
 * One rule: operations, groups, versions, resources ("*", "*\/*", "pods/*", "*\/scale"), scope and
 * names. `equivalent` (matchPolicy Equivalent) lets a rule naming another version of the same
 * group and resource match, as the API server does for versions it serves.
 */
export function ruleMatches(r: NamedRule, a: Admission, equivalent: boolean): boolean {
  if (!oneOf(r.operations, a.operation)) return false;
  if (!oneOf(r.apiGroups, a.group)) return false;
  if (!equivalent && !oneOf(r.apiVersions, a.version)) return false;
  if (!resourceMatches(r.resources ?? [], a.resource.resource, a.target.subResource ?? "")) return false;
  const scope = r.scope ?? "*";
  if (scope === "Cluster" && a.resource.namespaced) return false;
  if (scope === "Namespaced" && !a.resource.namespaced) return false;
  if (r.resourceNames && r.resourceNames.length > 0 && !r.resourceNames.includes(a.name)) return false;
  return true;
}

/** Whether some rule of `m` names the admission's group and resource (operations, versions, names, scope and selectors aside). */
export function mayMatchResources(m: MatchResources | undefined | null, a: Admission): boolean {
  if (!m) return false;
  return (m.resourceRules ?? []).some(
    (r) => oneOf(r.apiGroups, a.group) && resourceMatches(r.resources ?? [], a.resource.resource, a.target.subResource ?? ""),
  );
}

function oneOf(list: string[] | undefined, value: string): boolean {
  return !!list && (list.includes("*") || list.includes(value));
}

export function resourceMatches(resources: string[], resource: string, sub: string): boolean {
  for (const entry of resources) {
    if (entry === "*/*") return true;
    const slash = entry.indexOf("/");
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const subres = slash < 0 ? "" : entry.slice(slash + 1);
    if (res !== "*" && res !== resource) continue;
    if (subres === "*" ? sub !== "" : subres === sub) return true;
  }
  return false;
}
