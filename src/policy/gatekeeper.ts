import { toCel } from "../cel/values.js";
import { compileSpec, evaluateSpec, type CelSpec, type SpecProblem } from "./admission/cel-spec.js";
import { namespaceLabels } from "./admission/match.js";
import { verdictsOf } from "./admission/vap.js";
import { NO_VERDICTS, type EvalContext, type LoadedPolicy, type Verdict } from "./policy.js";
import { activation, type Admission } from "./request.js";
import { labelsOf, matchesSelector, type LabelSelector } from "./selector.js";
import type { PolicyManifest, Severity } from "./types.js";
import type { JsonObject } from "../core/json.js";
import { wildcardMatch } from "./kyverno/wildcard.js";

/**
 * Gatekeeper: a ConstraintTemplate whose code is `K8sNativeValidation` (the VAP shape in CEL) and
 * its Constraints, each a policy of its own. CEL sees `variables.params` (the Constraint's
 * parameters) and `variables.anyObject` (the object, or the old object on DELETE), as Gatekeeper
 * gives them. Templates with Rego only are not evaluated.
 */

interface ConstraintMatch {
  kinds?: { apiGroups?: string[]; kinds?: string[] }[];
  scope?: string;
  namespaces?: string[];
  excludedNamespaces?: string[];
  labelSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  name?: string;
}

export interface Template {
  kind: string;
  manifest: PolicyManifest;
  /** The K8sNativeValidation code, compiled; undefined when the template has Rego only. */
  spec?: CelSpec;
}

export function readTemplate(m: PolicyManifest, problems: SpecProblem[]): Template | undefined {
  const spec = ((m.object as JsonObject).spec ?? {}) as JsonObject;
  const kind = (((spec.crd as JsonObject | undefined)?.spec as JsonObject | undefined)?.names as JsonObject | undefined)?.kind;
  if (typeof kind !== "string") return undefined;
  const targets = Array.isArray(spec.targets) ? (spec.targets as JsonObject[]) : [];
  for (const [t, target] of targets.entries()) {
    const code = Array.isArray(target.code) ? (target.code as JsonObject[]) : [];
    const i = code.findIndex((c) => c.engine === "K8sNativeValidation");
    if (i < 0) continue;
    const source = (code[i]!.source ?? {}) as JsonObject;
    return {
      kind,
      manifest: m,
      spec: compileSpec({ ...source, failurePolicy: source.failurePolicy ?? "Fail" }, "kubernetes", `/spec/targets/${t}/code/${i}/source`, problems),
    };
  }
  return { kind, manifest: m };
}

const SEVERITY: Record<string, Severity> = { deny: "error", warn: "warning", dryrun: "info" };

export class Constraint implements LoadedPolicy {
  constructor(
    readonly kind: string,
    readonly name: string,
    readonly manifest: PolicyManifest,
    private readonly template: Template,
  ) {}

  note(): string | undefined {
    return this.template.spec ? undefined : "its ConstraintTemplate has Rego only: not evaluated (composition-ci runs K8sNativeValidation code)";
  }

  evaluate(a: Admission, _ctx: EvalContext): readonly Verdict[] {
    const spec = ((this.manifest.object as JsonObject).spec ?? {}) as JsonObject;
    const matched = matches((spec.match ?? {}) as ConstraintMatch, a);
    if (matched === false) return NO_VERDICTS;
    if (matched !== true)
      return [{ outcome: "not-evaluated", severity: "info", atPolicy: true, message: `not evaluated: needs the cluster: ${matched.unknown}` }];
    const cel = this.template.spec;
    if (!cel) return NO_VERDICTS;
    const base = activation(a, null);
    const params = toCel(spec.parameters ?? {});
    const anyObject = a.operation === "DELETE" ? base.values.oldObject : base.values.object;
    const variables = Object.assign(Object.create(null) as Record<string, unknown>, { params: params.value, anyObject });
    const act = {
      values: Object.create(base.values, { variables: { value: variables, enumerable: true } }) as Record<string, unknown>,
      widest: Math.max(base.widest, params.widest),
      longestString: Math.max(base.longestString, params.longestString),
    };
    return verdictsOf(cel, evaluateSpec(cel, act), severityOf(spec));
  }
}

function severityOf(spec: JsonObject): Severity {
  const action = String(spec.enforcementAction ?? "deny").toLowerCase();
  if (action !== "scoped") return SEVERITY[action] ?? "error";
  const scoped = Array.isArray(spec.scopedEnforcementActions) ? (spec.scopedEnforcementActions as JsonObject[]) : [];
  const actions = scoped.map((s) => String(s.action ?? "").toLowerCase());
  return actions.includes("deny") ? "error" : actions.includes("warn") ? "warning" : "info";
}

function matches(m: ConstraintMatch, a: Admission): boolean | { unknown: string } {
  if (m.kinds?.length && !m.kinds.some((k) => oneOf(k.apiGroups, a.group) && oneOf(k.kinds, a.kind))) return false;
  if (m.scope === "Cluster" && a.namespace) return false;
  if (m.scope === "Namespaced" && !a.namespace) return false;
  if (m.name && !wildcardMatch(m.name, a.name)) return false;
  const ns = a.kind === "Namespace" && a.group === "" ? a.name : a.namespace;
  if (ns && m.namespaces?.length && !m.namespaces.some((p) => wildcardMatch(p, ns))) return false;
  if (ns && m.excludedNamespaces?.some((p) => wildcardMatch(p, ns))) return false;
  if (m.labelSelector && !matchesSelector(m.labelSelector, labelsOf(a.object))) return false;
  if (m.namespaceSelector && ns) {
    const labels = a.kind === "Namespace" && a.group === "" ? labelsOf(a.object) : a.namespaceObject ? namespaceLabels(a.namespaceObject, ns) : undefined;
    if (!labels) return { unknown: `the labels of namespace ${JSON.stringify(ns)} (no Namespace object for it among the input)` };
    if (!matchesSelector(m.namespaceSelector, labels)) return false;
  }
  return true;
}

function oneOf(list: string[] | undefined, value: string): boolean {
  return !list || list.length === 0 || list.includes("*") || list.includes(value);
}
