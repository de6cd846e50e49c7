import { groupOf } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";
import { compileSpec, type SpecProblem } from "./admission/cel-spec.js";
import type { MatchResources } from "./admission/match.js";
import { ValidatingAdmissionPolicy, type Binding } from "./admission/vap.js";
import { ValidatingPolicy } from "./admission/vpol.js";
import { loadKyvernoPolicy } from "./kyverno/policy.js";
import { Constraint, readTemplate, type Template } from "./gatekeeper.js";
import type { LoadedPolicy } from "./policy.js";
import type { PolicyManifest } from "./types.js";
import type { JsonObject } from "../core/json.js";

/** The policies of an input, with the Namespaces and the objects that params may name. */
export interface PolicySet {
  policies: LoadedPolicy[];
  namespaces: Map<string, JsonObject>;
  /** Every object of the input. */
  objects: JsonObject[];
  objectsOfKind(group: string, kind: string): JsonObject[];
}

const VAP_GROUP = "admissionregistration.k8s.io";

/**
 * Reads the policy objects among `manifests` (any other object is kept as a possible param, and
 * Namespaces for namespaceSelector and `namespaceObject`). A policy that cannot be read as
 * written is a finding at its own line; the others load.
 */
export function loadPolicies(manifests: readonly PolicyManifest[]): { policies: PolicySet; findings: Finding[] } {
  const findings: Finding[] = [];
  const policies: LoadedPolicy[] = [];
  const vaps = new Map<string, ValidatingAdmissionPolicy>();
  const bindings: Binding[] = [];
  const templates = new Map<string, Template>();
  const constraints: PolicyManifest[] = [];
  const namespaces = new Map<string, JsonObject>();
  const byKind = new Map<string, JsonObject[]>();

  for (const m of manifests) {
    const o = m.object as JsonObject;
    const apiVersion = String(o.apiVersion ?? "");
    const group = groupOf(apiVersion);
    const kind = String(o.kind ?? "");
    const name = String((o.metadata as JsonObject | undefined)?.name ?? "");
    const key = `${group}/${kind}`;
    (byKind.get(key) ?? byKind.set(key, []).get(key)!).push(o);
    if (key === "/Namespace" && name) namespaces.set(name, o);
    const spec = (o.spec && typeof o.spec === "object" ? o.spec : {}) as JsonObject;
    const problems: SpecProblem[] = [];
    const report = (rule: string) => {
      for (const p of problems) findings.push(policyFinding(m, rule, p.pointer, p.message));
    };
    try {
      if (group === VAP_GROUP && kind === "ValidatingAdmissionPolicy") {
        const policy = new ValidatingAdmissionPolicy(
          name,
          m,
          compileSpec(spec, "kubernetes", "/spec", problems),
          spec.matchConstraints as MatchResources | undefined,
          spec.paramKind as never,
        );
        vaps.set(name, policy);
        policies.push(policy);
        problems.push(...ruleProblems(spec.matchConstraints as MatchResources | undefined, "/spec/matchConstraints"));
        report(`policy/${name}`);
      } else if (group === VAP_GROUP && kind === "ValidatingAdmissionPolicyBinding") {
        bindings.push({
          name,
          manifest: m,
          policyName: String(spec.policyName ?? ""),
          ...(spec.paramRef ? { paramRef: spec.paramRef as never } : {}),
          ...(spec.matchResources ? { matchResources: spec.matchResources as MatchResources } : {}),
          validationActions: Array.isArray(spec.validationActions) ? spec.validationActions.map(String) : [],
        });
      } else if (group === "policies.kyverno.io" && (kind === "ValidatingPolicy" || kind === "NamespacedValidatingPolicy")) {
        policies.push(new ValidatingPolicy(kind, name, m, spec, compileSpec(spec, "kyverno", "/spec", problems)));
        problems.push(...ruleProblems(spec.matchConstraints as MatchResources | undefined, "/spec/matchConstraints"));
        report(`policy/${name}`);
      } else if (group === "templates.gatekeeper.sh" && kind === "ConstraintTemplate") {
        const template = readTemplate(m, problems);
        if (template) templates.set(template.kind, template);
        report(`policy/${name}`);
      } else if (group === "constraints.gatekeeper.sh") {
        constraints.push(m);
      } else if (group === "kyverno.io" && (kind === "ClusterPolicy" || kind === "Policy")) {
        const loaded = loadKyvernoPolicy(kind, name, m, problems);
        if (loaded) policies.push(loaded);
        report(`policy/${name}`);
      }
    } catch (err) {
      findings.push(policyFinding(m, `policy/${name}`, "", `policy could not be read: ${(err as Error).message}`));
    }
  }

  for (const c of constraints) {
    const kind = String((c.object as JsonObject).kind);
    const name = String(((c.object as JsonObject).metadata as JsonObject | undefined)?.name ?? "");
    const template = templates.get(kind);
    if (template) policies.push(new Constraint(kind, name, c, template));
    else
      findings.push(
        policyFinding(
          c,
          `policy/${name}`,
          "",
          `Constraint ${JSON.stringify(name)} is of kind ${kind}, which no ConstraintTemplate among the input defines`,
          "warning",
        ),
      );
  }
  for (const b of bindings) {
    const policy = vaps.get(b.policyName);
    if (!policy) {
      findings.push(
        policyFinding(
          b.manifest,
          `policy/${b.policyName || b.name}`,
          "/spec/policyName",
          `ValidatingAdmissionPolicyBinding ${JSON.stringify(b.name)} binds policy ${JSON.stringify(b.policyName)}, which is not among the policies`,
        ),
      );
      continue;
    }
    if (b.validationActions.length === 0) {
      // Evaluated as `kyverno apply` does, as Deny.
      findings.push(
        policyFinding(
          b.manifest,
          `policy/${b.policyName}`,
          "/spec",
          `ValidatingAdmissionPolicyBinding ${JSON.stringify(b.name)} has no validationActions (the API server requires at least one; evaluated as Deny)`,
        ),
      );
      b.validationActions = ["Deny"];
    }
    if (b.paramRef && !policy.paramKind?.kind) {
      findings.push(
        policyFinding(
          b.manifest,
          `policy/${b.policyName}`,
          "/spec/paramRef",
          `ValidatingAdmissionPolicyBinding ${JSON.stringify(b.name)} has a paramRef but policy ${JSON.stringify(b.policyName)} has no paramKind`,
        ),
      );
    } else if (b.paramRef?.name && policy.paramKind?.kind && !hasParam(byKind, policy.paramKind, b.paramRef.name)) {
      const pk = policy.paramKind;
      findings.push(
        policyFinding(
          b.manifest,
          `policy/${b.policyName}`,
          "/spec/paramRef/name",
          `paramRef names ${pk.kind} ${JSON.stringify(b.paramRef.name)}, which is not among the input${b.paramRef.parameterNotFoundAction === "Deny" ? " (parameterNotFoundAction Deny: every matched object is denied)" : ""}`,
          "warning",
        ),
      );
    }
    policy.bindings.push(b);
  }
  return {
    policies: {
      policies,
      namespaces,
      objects: manifests.map((m) => m.object as JsonObject),
      objectsOfKind: (group, kind) => byKind.get(`${group}/${kind}`) ?? [],
    },
    findings,
  };
}

/** Resource rules that can match nothing: the API server requires operations, groups, versions and resources. */
function ruleProblems(m: MatchResources | undefined, base: string): SpecProblem[] {
  const out: SpecProblem[] = [];
  if (!m?.resourceRules?.length) return [{ pointer: base, message: "matchConstraints has no resourceRules: the policy matches nothing" }];
  m.resourceRules.forEach((r, i) => {
    const missing = (["operations", "apiGroups", "apiVersions", "resources"] as const).filter((k) => !Array.isArray(r[k]) || r[k]!.length === 0);
    if (missing.length > 0)
      out.push({
        pointer: `${base}/resourceRules/${i}`,
        message: `resourceRules[${i}] has no ${missing.join(", ")}: it matches nothing (the API server requires them)`,
      });
  });
  return out;
}

function hasParam(byKind: Map<string, JsonObject[]>, pk: { apiVersion?: string; kind?: string }, name: string): boolean {
  return (byKind.get(`${groupOf(pk.apiVersion ?? "")}/${pk.kind}`) ?? []).some((o) => (o.metadata as JsonObject | undefined)?.name === name);
}

export function policyFinding(m: PolicyManifest, rule: string, pointer: string, message: string, severity: Finding["severity"] = "error"): Finding {
  const o = m.object as JsonObject;
  const at = m.locate(pointer);
  return {
    rule,
    severity,
    message,
    file: m.file,
    line: at.line,
    column: at.column,
    apiVersion: String(o.apiVersion ?? ""),
    kind: String(o.kind ?? ""),
    name: String((o.metadata as JsonObject | undefined)?.name ?? ""),
  };
}
