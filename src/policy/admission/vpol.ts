import { NO_VERDICTS, severityOfActions, type EvalContext, type LoadedPolicy, type Verdict } from "../policy.js";
import { activation, type Admission } from "../request.js";
import type { PolicyManifest } from "../types.js";
import type { JsonObject } from "../../core/json.js";
import { compileSpec, evaluateSpec, type CelSpec, type SpecProblem } from "./cel-spec.js";
import { matchResources, type MatchResources, type NamedRule } from "./match.js";
import { verdictsOf } from "./vap.js";

/**
 * Kyverno's ValidatingPolicy and NamespacedValidatingPolicy: a VAP's spec without a binding, its
 * own validationActions, and rules written for Pods applied to Pod controllers (autogen, as Kyverno
 * generates them: `object.spec`/`object.metadata` read from the pod template).
 */
export class ValidatingPolicy implements LoadedPolicy {
  private readonly autogen: { match: MatchResources; spec: CelSpec }[];

  constructor(
    readonly kind: string,
    readonly name: string,
    readonly manifest: PolicyManifest,
    private readonly raw: JsonObject,
    private readonly spec: CelSpec,
  ) {
    this.autogen = autogenSpecs(raw);
  }

  evaluate(a: Admission, _ctx: EvalContext): readonly Verdict[] {
    const spec = this.raw;
    const evaluation = spec.evaluation as { mode?: string } | undefined;
    if (evaluation?.mode === "JSON") return NO_VERDICTS;
    if (this.kind === "NamespacedValidatingPolicy") {
      const ns = (this.manifest.object.metadata as JsonObject | undefined)?.namespace;
      if (a.namespace !== (typeof ns === "string" ? ns : "default")) return NO_VERDICTS;
    }
    const severity = severityOfActions(spec.validationActions ?? ["Audit"]);
    const candidates = [{ match: spec.matchConstraints as MatchResources | undefined, spec: this.spec }, ...this.autogen];
    for (const c of candidates) {
      const matched = matchResources(c.match, a, true);
      if ("unknown" in matched)
        return [{ outcome: "not-evaluated", severity: "info", atPolicy: true, message: `not evaluated: needs the cluster: ${matched.unknown}` }];
      if (matched.matched) return verdictsOf(c.spec, evaluateSpec(c.spec, activation(a, null)), severity);
    }
    return NO_VERDICTS;
  }
}

const CONTROLLERS: Record<string, { group: string; resource: string; cronjob?: boolean }> = {
  daemonsets: { group: "apps", resource: "daemonsets" },
  deployments: { group: "apps", resource: "deployments" },
  replicasets: { group: "apps", resource: "replicasets" },
  statefulsets: { group: "apps", resource: "statefulsets" },
  jobs: { group: "batch", resource: "jobs" },
  cronjobs: { group: "batch", resource: "cronjobs", cronjob: true },
};

/** Kyverno's CanAutoGen: one rule, for core v1 pods, no names, no object selector, no exclusions. */
function canAutogen(m: MatchResources | undefined): boolean {
  if (!m || (m.excludeResourceRules ?? []).length > 0) return false;
  const sel = m.objectSelector;
  if (sel && (Object.keys(sel.matchLabels ?? {}).length > 0 || (sel.matchExpressions ?? []).length > 0)) return false;
  const rules = m.resourceRules ?? [];
  if (rules.length !== 1) return false;
  const r = rules[0]!;
  const one = (l: string[] | undefined, v: string) => l?.length === 1 && l[0] === v;
  return !(r.resourceNames ?? []).length && one(r.apiGroups, "") && one(r.apiVersions, "v1") && one(r.resources, "pods");
}

function autogenSpecs(raw: JsonObject): { match: MatchResources; spec: CelSpec }[] {
  const match = raw.matchConstraints as MatchResources | undefined;
  if (!canAutogen(match)) return [];
  const configured = (raw.autogen as { podControllers?: { controllers?: string[] } } | undefined)?.podControllers?.controllers;
  const controllers = (configured ?? Object.keys(CONTROLLERS)).filter((c) => CONTROLLERS[c]);
  const out: { match: MatchResources; spec: CelSpec }[] = [];
  for (const cronjob of [false, true]) {
    const targets = controllers.filter((c) => !!CONTROLLERS[c]!.cronjob === cronjob).map((c) => CONTROLLERS[c]!);
    if (targets.length === 0) continue;
    const operations = match!.resourceRules![0]!.operations;
    const rules: NamedRule[] = targets.map((t) => ({
      apiGroups: [t.group],
      apiVersions: ["v1"],
      resources: [t.resource],
      ...(operations ? { operations } : {}),
    }));
    const template = cronjob ? "spec.jobTemplate.spec.template" : "spec.template";
    const rewritten = JSON.parse(rewriteForTemplate(JSON.stringify(raw), template)) as JsonObject;
    const ignored: SpecProblem[] = []; // the policy's own compilation reports them
    out.push({
      match: { resourceRules: rules, namespaceSelector: match!.namespaceSelector ?? null },
      spec: compileSpec(rewritten, "kyverno", "/spec", ignored),
    });
  }
  return out;
}

/** Kyverno's replacements: `object.spec` → `object.<template>.spec`, `object.metadata` → `object.<template>.metadata`, but not `.metadata.namespace`. */
export function rewriteForTemplate(text: string, template: string): string {
  return text.replace(/\b(object|oldObject)\.(spec|metadata)(?![A-Za-z0-9_])(?!\.namespace(?![A-Za-z0-9_]))/g, `$1.${template}.$2`);
}
