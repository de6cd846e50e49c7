import type { JsonObject } from "../core/json.js";
import type { Manifest } from "../manifest/manifest.js";
import { previousVersions } from "../manifest/previous.js";
import { evaluatePolicies, mayBeMatched } from "./evaluate.js";
import { loadPolicies, type PolicySet } from "./load.js";
import { withGeneratedName } from "./request.js";
import { crdResources } from "./resources.js";
import type { PolicyExplain, PolicyTarget, ResourceFor } from "./types.js";
import type { Finding } from "../core/finding.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import { gvkOf } from "../validate/schemas/types.js";
import { applyStructural } from "../validate/structural.js";

/**
 * The repository's own admission policies on what it holds: the glue between a validated tree and
 * the policy room. Policies come from the scanned paths and the config's `policies:` (and
 * `--policies`); each repository object is admitted as a CREATE after its schema's defaults.
 * (What the repository renders is admitted by render/policies.ts.)
 */

export interface RepositoryPolicies {
  set: PolicySet;
  /** Policies that cannot be read as written, at their own lines. */
  findings: Finding[];
  resourceFor: ResourceFor;
}

/** The policies among the repository's manifests and the extra policy files, with what matching needs. */
export function repositoryPolicies(manifests: readonly Manifest[], extra: readonly Manifest[] = []): RepositoryPolicies {
  const all = [...manifests, ...extra];
  const { policies: set, findings } = loadPolicies(all);
  return { set, findings, resourceFor: resourcesOf(all) };
}

/** Plurals and scopes of the repository's kinds: its CRDs, and the XR and claim kinds of its XRDs. */
function resourcesOf(manifests: readonly Manifest[]): ResourceFor {
  const fromCrds = crdResources(manifests.map((m) => m.object as JsonObject));
  const xrds = new Map<string, { resource: string; namespaced: boolean }>();
  for (const m of manifests) {
    if (m.kind !== "CompositeResourceDefinition" || m.group !== "apiextensions.crossplane.io") continue;
    const spec = (m.object.spec ?? {}) as {
      group?: unknown;
      scope?: unknown;
      names?: { kind?: unknown; plural?: unknown };
      claimNames?: { kind?: unknown; plural?: unknown };
    };
    if (typeof spec.group !== "string") continue;
    const v2 = m.apiVersion === "apiextensions.crossplane.io/v2";
    const scope = typeof spec.scope === "string" ? spec.scope : v2 ? "Namespaced" : "Cluster";
    if (typeof spec.names?.kind === "string" && typeof spec.names.plural === "string")
      xrds.set(`${spec.group}/${spec.names.kind}`, { resource: spec.names.plural, namespaced: scope === "Namespaced" });
    if (typeof spec.claimNames?.kind === "string" && typeof spec.claimNames.plural === "string")
      xrds.set(`${spec.group}/${spec.claimNames.kind}`, { resource: spec.claimNames.plural, namespaced: true });
  }
  return (apiVersion, kind) =>
    fromCrds(apiVersion, kind) ?? xrds.get(`${apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : ""}/${kind}`);
}

export interface PolicyRun {
  findings: Finding[];
  explain: PolicyExplain[];
}

const NO_RUN: PolicyRun = { findings: [], explain: [] };

/** Every repository object admitted (CREATE), after its schema's defaults as the API server sees it. */
export function checkManifests(
  policies: RepositoryPolicies,
  manifests: readonly Manifest[],
  registry: SchemaRegistry,
  previous?: readonly Manifest[],
): PolicyRun {
  if (!policies.set.policies.length) return NO_RUN;
  const before = previousVersions(previous ?? [], manifests);
  const targets: PolicyTarget[] = [];
  for (const m of manifests) {
    if (!mayBeMatched(policies.set, { object: m.object as JsonObject }, policies.resourceFor)) continue;
    const old = before.get(m);
    targets.push({
      object: admitted(m.object as JsonObject, registry, m.file),
      ...(old ? { oldObject: admitted(old.object as JsonObject, registry, old.file), operation: "UPDATE" as const } : {}),
      locate: (pointer) => ({ file: m.file, ...m.locate(pointer) }),
    });
  }
  return runPolicies(policies, targets);
}

export function runPolicies(policies: RepositoryPolicies, targets: PolicyTarget[]): PolicyRun {
  if (!targets.length) return NO_RUN;
  const { findings, explain } = evaluatePolicies(policies.set, targets, { resourceFor: policies.resourceFor });
  return { findings, explain };
}

/**
 * The object as validating admission sees it: named when it had only a `generateName`, with its
 * schema's defaults applied (a copy; the object is never touched).
 */
export function admitted(object: JsonObject, registry: SchemaRegistry, near: string): JsonObject {
  const entry = registry.get(gvkOf(String(object.apiVersion ?? ""), String(object.kind ?? "")), near);
  return withGeneratedName(entry?.schema ? (applyStructural(entry.schema, object).value as JsonObject) : object);
}

/** The counts of two runs (repository objects, rendered objects) per policy, as one explanation. */
export function mergeExplain(...runs: PolicyExplain[][]): PolicyExplain[] {
  const byPolicy = new Map<string, PolicyExplain>();
  for (const e of runs.flat()) {
    const key = `${e.policyKind}/${e.policy}`;
    const seen = byPolicy.get(key);
    if (!seen) byPolicy.set(key, { ...e });
    else for (const k of ["matched", "passed", "failed", "skipped", "notEvaluated", "errors"] as const) seen[k] += e[k];
  }
  return [...byPolicy.values()].sort((a, b) => (a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0));
}

/** Groups of the admission policies the policy room reads itself: it says what is wrong with one, no schema is needed. */
const POLICY_GROUPS = new Set(["kyverno.io", "policies.kyverno.io", "templates.gatekeeper.sh", "constraints.gatekeeper.sh"]);

export function isPolicyObject(m: Manifest): boolean {
  return POLICY_GROUPS.has(m.group);
}

const ADMISSION_KINDS = new Set(["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]);

/** A policy or a binding of one: what the policy room checks objects against. */
export function isAdmissionPolicy(m: Manifest): boolean {
  return isPolicyObject(m) || (m.group === "admissionregistration.k8s.io" && ADMISSION_KINDS.has(m.kind));
}

/** Policy objects of a tree, by kind and name. */
function policyObjects(manifests: readonly Manifest[]): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const m of manifests) if (isAdmissionPolicy(m)) out.set(`${m.kind}/${m.name ?? ""}`, m);
  return out;
}

/** The policies (not bindings) at base that head no longer has: by kind and name. */
export function removedPolicies(head: readonly Manifest[], base: readonly Manifest[]): Manifest[] {
  const after = policyObjects(head);
  return [...policyObjects(base)].filter(([key, m]) => !after.has(key) && !m.kind.endsWith("Binding")).map(([, m]) => m);
}

/**
 * A pull request that adds, changes or removes a policy is checked against the base's policies
 * (it cannot switch off its own rules); what it changes is said, and takes effect after merge.
 */
export function changedPolicies(head: readonly Manifest[], base: readonly Manifest[]): Finding[] {
  const [before, after] = [policyObjects(base), policyObjects(head)];
  const out: Finding[] = [];
  eachChange(before, after, (m, what) => {
    if (what === "removes") {
      out.push({
        rule: "policy/changed",
        severity: "warning",
        message: `this pull request removes ${m.kind} ${m.name ?? ""} (${m.file} at base): this check still applies it; the removal takes effect after merge`,
        apiVersion: m.apiVersion,
        kind: m.kind,
      });
      return;
    }
    out.push({
      rule: "policy/changed",
      severity: "info",
      message: `this pull request ${what} ${m.kind} ${m.name ?? ""}: this check uses the base branch's policies; the change takes effect after merge`,
      file: m.file,
      line: m.locate("").line,
      column: 1,
      apiVersion: m.apiVersion,
      kind: m.kind,
      ...(m.name ? { name: m.name } : {}),
    });
  });
  out.push(...changedParams(head, base, [...before.values(), ...after.values()]));
  return out;
}

/** A pull request checked with its own policies that removes one: said, and what it found at base is not fixed. */
export function policyRemovedFinding(m: Manifest): Finding {
  return {
    rule: "policy/changed",
    severity: "warning",
    message: `this pull request removes ${m.kind} ${m.name ?? ""} (${m.file} at base): head is checked without it, so what it found at base is no longer checked, not fixed`,
    apiVersion: m.apiVersion,
    kind: m.kind,
  };
}

/** What a pull request does to the objects of `before` (base) and `after` (head), by key; `m` is the head's, or the base's when removed. */
function eachChange(before: Map<string, Manifest>, after: Map<string, Manifest>, say: (m: Manifest, what: "adds" | "changes" | "removes") => void): void {
  for (const [key, m] of after) {
    const old = before.get(key);
    if (!old) say(m, "adds");
    else if (JSON.stringify(old.object) !== JSON.stringify(m.object)) say(m, "changes");
  }
  for (const [key, m] of before) if (!after.has(key)) say(m, "removes");
}

/**
 * The objects a ValidatingAdmissionPolicy reads as its parameters (of its `paramKind`) that the
 * pull request adds, changes or removes: like the policy itself, they are read from the base.
 */
function changedParams(head: readonly Manifest[], base: readonly Manifest[], policies: Manifest[]): Finding[] {
  const readers = new Map<string, string[]>();
  for (const p of policies) {
    if (p.kind !== "ValidatingAdmissionPolicy") continue;
    const kind = ((p.object.spec ?? {}) as { paramKind?: { apiVersion?: unknown; kind?: unknown } }).paramKind;
    if (typeof kind?.kind !== "string") continue;
    const key = `${String(kind.apiVersion ?? "")}/${kind.kind}`;
    readers.set(key, [...new Set([...(readers.get(key) ?? []), p.name ?? ""])]);
  }
  if (!readers.size) return [];
  const params = (manifests: readonly Manifest[]) =>
    new Map(
      manifests
        .filter((m) => readers.has(`${m.apiVersion}/${m.kind}`))
        .map((m) => [`${m.apiVersion}/${m.kind}/${m.namespace ?? ""}/${m.name ?? ""}`, m] as const),
    );
  const out: Finding[] = [];
  eachChange(params(base), params(head), (m, what) => {
    const atBase = what === "removes";
    const of = readers.get(`${m.apiVersion}/${m.kind}`)!.join(", ");
    out.push({
      rule: "policy/changed",
      severity: atBase ? "warning" : "info",
      message: `this pull request ${what} ${m.kind} ${m.name ?? ""}${atBase ? ` (${m.file} at base)` : ""}, a parameter object of ValidatingAdmissionPolicy ${of}: this check reads the base branch's; the change takes effect after merge`,
      ...(atBase ? {} : { file: m.file, line: m.locate("").line, column: 1 }),
      apiVersion: m.apiVersion,
      kind: m.kind,
      ...(m.name ? { name: m.name } : {}),
    });
  });
  return out;
}
