import { matchesSelector, labelsOf, type LabelSelector } from "../selector.js";
import type { Admission } from "../request.js";
import type { JsonObject } from "../../core/json.js";
import { hasWildcard, wildcardMatch } from "./wildcard.js";

/** Kyverno's `match` and `exclude`: `any`/`all` of resource filters, or the legacy single filter. */

interface ResourceDescription {
  kinds?: string[];
  name?: string;
  names?: string[];
  namespaces?: string[];
  annotations?: Record<string, string>;
  selector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  operations?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface ResourceFilter {
  resources?: ResourceDescription;
  subjects?: Subject[];
  roles?: string[];
  clusterRoles?: string[];
}

export interface MatchResources extends ResourceFilter {
  any?: ResourceFilter[];
  all?: ResourceFilter[];
}

/** true, false, or what could not be known offline. */
export type Tri = boolean | { unknown: string };

export interface MatchContext {
  a: Admission;
  /** The target's namespace labels, when known. */
  namespaceLabels?: Record<string, unknown>;
  roles?: string[];
  clusterRoles?: string[];
}

export function matches(m: MatchResources | undefined, ctx: MatchContext): Tri {
  if (!m) return false;
  if (m.any?.length) return anyOf(m.any.map((f) => () => filterMatches(f, ctx)));
  if (m.all?.length) return allOf(m.all.map((f) => () => filterMatches(f, ctx)));
  if (isEmptyFilter(m)) return false;
  return filterMatches(m, ctx);
}

export function excluded(m: MatchResources | undefined, ctx: MatchContext): Tri {
  if (!m) return false;
  if (m.any?.length) return anyOf(m.any.map((f) => () => filterMatches(f, ctx)));
  if (m.all?.length) return allOf(m.all.map((f) => () => filterMatches(f, ctx)));
  if (isEmptyFilter(m)) return false;
  return filterMatches(m, ctx);
}

function isEmptyFilter(f: ResourceFilter): boolean {
  const r = f.resources ?? {};
  return (
    Object.values(r).every(
      (v) =>
        v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && Object.keys(v as object).length === 0) || v === "",
    ) &&
    !f.subjects?.length &&
    !f.roles?.length &&
    !f.clusterRoles?.length
  );
}

function anyOf(checks: (() => Tri)[]): Tri {
  let unknown: Tri | undefined;
  for (const c of checks) {
    const r = c();
    if (r === true) return true;
    if (r !== false) unknown ??= r;
  }
  return unknown ?? false;
}

function allOf(checks: (() => Tri)[]): Tri {
  let unknown: Tri | undefined;
  for (const c of checks) {
    const r = c();
    if (r === false) return false;
    if (r !== true) unknown ??= r;
  }
  return unknown ?? true;
}

function filterMatches(f: ResourceFilter, ctx: MatchContext): Tri {
  const checks: (() => Tri)[] = [];
  const r = f.resources;
  if (r) checks.push(() => resourceMatches(r, ctx));
  if (f.subjects?.length || f.roles?.length || f.clusterRoles?.length) checks.push(() => userMatches(f, ctx));
  if (checks.length === 0) return false;
  return allOf(checks);
}

function resourceMatches(r: ResourceDescription, ctx: MatchContext): Tri {
  const { a } = ctx;
  if (r.kinds?.length && !r.kinds.some((k) => kindMatches(k, a))) return false;
  const names = [...(r.names ?? []), ...(r.name ? [r.name] : [])];
  if (names.length && !names.some((n) => wildcardMatch(n, a.name))) return false;
  if (r.namespaces?.length) {
    const ns = a.kind === "Namespace" && a.group === "" ? a.name : a.namespace;
    if (!r.namespaces.some((n) => wildcardMatch(n, ns))) return false;
  }
  if (r.operations?.length && !r.operations.includes(a.operation)) return false;
  if (r.annotations && Object.keys(r.annotations).length > 0) {
    const have = ((a.object.metadata as JsonObject | undefined)?.annotations ?? {}) as Record<string, unknown>;
    const ok = Object.entries(r.annotations).every(([k, v]) =>
      Object.entries(have).some(([hk, hv]) => wildcardMatch(k, hk) && wildcardMatch(String(v), String(hv))),
    );
    if (!ok) return false;
  }
  if (r.selector && !selectorMatches(r.selector, labelsOf(a.object) as Record<string, string>)) return false;
  if (r.namespaceSelector) {
    if (a.kind === "Namespace" && a.group === "") {
      if (!selectorMatches(r.namespaceSelector, labelsOf(a.object) as Record<string, string>)) return false;
    } else if (a.namespace) {
      if (!ctx.namespaceLabels) return { unknown: `the labels of namespace ${JSON.stringify(a.namespace)} (no Namespace object for it among the input)` };
      if (!selectorMatches(r.namespaceSelector, ctx.namespaceLabels as Record<string, string>)) return false;
    }
  }
  return true;
}

/** A label selector whose matchLabels may hold wildcards in keys and values. */
function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const matchLabels: Record<string, string> = {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (!hasWildcard(k) && !hasWildcard(String(v))) {
      matchLabels[k] = v;
      continue;
    }
    const hit = Object.entries(labels).find(([lk, lv]) => wildcardMatch(k, lk) && wildcardMatch(String(v), String(lv)));
    if (!hit) return false;
    matchLabels[hit[0]] = hit[1];
  }
  return matchesSelector({ ...selector, matchLabels }, labels);
}

interface KindSelector {
  group: string;
  version: string;
  kind: string;
  sub: string;
}

const parsedSelectors = new Map<string, KindSelector>();

/** `Kind`, `Kind/subresource`, `version/Kind`, `group/version/Kind`, each part possibly a wildcard. */
export function kindMatches(selector: string, a: Admission): boolean {
  let s = parsedSelectors.get(selector);
  if (!s) parsedSelectors.set(selector, (s = parseKindSelector(selector)));
  const haveSub = a.target.subResource ?? "";
  if (s.sub !== haveSub && !(s.sub === "*" && haveSub)) return false;
  return wildcardMatch(s.kind, a.kind) && wildcardMatch(s.group, a.group) && wildcardMatch(s.version, a.version);
}

export function parseKindSelector(selector: string): KindSelector {
  const parts = selector.split("/");
  const upper = (s: string | undefined) => !!s && /^[A-Z]/.test(s);
  let group = "*";
  let version = "*";
  let kind: string;
  let sub = "";
  if (parts.length === 1) kind = parts[0]!;
  else if (parts.length === 2) [version, kind] = upper(parts[0]) ? ["*", parts[0]!] : [parts[0]!, parts[1]!];
  else if (parts.length === 3) [group, version, kind] = upper(parts[1]) ? ["*", parts[0]!, parts[1]!] : [parts[0]!, parts[1]!, parts[2]!];
  else [group, version, kind, sub] = [parts[0]!, parts[1]!, parts[2]!, parts[3]!];
  if (parts.length === 2 && upper(parts[0])) sub = parts[1]!;
  if (parts.length === 3 && upper(parts[1])) sub = parts[2]!;
  return { group, version, kind, sub };
}

function userMatches(f: ResourceFilter, ctx: MatchContext): Tri {
  const user = ctx.a.target.userInfo ?? {};
  const checks: (() => Tri)[] = [];
  if (f.roles?.length) checks.push(() => (ctx.roles ? f.roles!.some((r) => ctx.roles!.includes(r)) : { unknown: "the roles of the requesting user" }));
  if (f.clusterRoles?.length)
    checks.push(() =>
      ctx.clusterRoles ? f.clusterRoles!.some((r) => ctx.clusterRoles!.includes(r)) : { unknown: "the cluster roles of the requesting user" },
    );
  if (f.subjects?.length) {
    checks.push(() =>
      f.subjects!.some((s) => {
        if (s.kind === "Group") return (user.groups ?? []).some((g) => wildcardMatch(s.name ?? "", g));
        if (s.kind === "ServiceAccount") return user.username === `system:serviceaccount:${s.namespace}:${s.name}`;
        return wildcardMatch(s.name ?? "", user.username ?? "");
      }),
    );
  }
  return allOf(checks);
}
