import { fieldPathPointer } from "../fieldpath.js";
import { NO_VERDICTS, severityOfActions, type EvalContext, type LoadedPolicy, type Verdict } from "../policy.js";
import { activation, type Admission } from "../request.js";
import type { PolicyManifest, Severity } from "../types.js";
import { evaluateSpec, type CelSpec, type SpecOutcome } from "./cel-spec.js";
import { matchResources, type MatchResources, mayMatchResources } from "./match.js";
import { paramsFor, type ParamRef } from "./params.js";

/** A ValidatingAdmissionPolicyBinding, read. */
export interface Binding {
  name: string;
  manifest: PolicyManifest;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions: string[];
}

/** The kinds the API server never sends to admission policies: the policies and bindings themselves. */
const EXEMPT = new Set(["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"]);

export class ValidatingAdmissionPolicy implements LoadedPolicy {
  readonly kind = "ValidatingAdmissionPolicy";
  readonly bindings: Binding[] = [];
  private readonly unbound: Binding;

  constructor(
    readonly name: string,
    readonly manifest: PolicyManifest,
    readonly spec: CelSpec,
    readonly matchConstraints: MatchResources | undefined,
    readonly paramKind: { apiVersion?: string; kind?: string } | undefined,
  ) {
    // Unbound, a VAP does nothing in a cluster; its binding may live there: what it would deny is
    // worth a warning, never an error.
    this.unbound = { name: "", manifest, policyName: name, validationActions: ["Warn"] };
  }

  note(): string | undefined {
    return this.bindings.length === 0
      ? "no binding in the repository: evaluated as if bound with validationActions Warn and no params (the binding may be in the cluster)"
      : undefined;
  }

  mayMatch(a: Admission): boolean {
    return mayMatchResources(this.matchConstraints, a);
  }

  evaluate(a: Admission, ctx: EvalContext): readonly Verdict[] {
    if (a.group === "admissionregistration.k8s.io" && EXEMPT.has(a.kind)) return NO_VERDICTS;
    const matched = matchResources(this.matchConstraints, a, true);
    if ("unknown" in matched)
      return [{ outcome: "not-evaluated", severity: "info", atPolicy: true, message: `not evaluated: needs the cluster: ${matched.unknown}` }];
    if (!matched.matched) return NO_VERDICTS;
    // A policy without a binding is evaluated as `kyverno apply` does: as if bound with Deny and no params.
    if (this.bindings.length === 0) return this.evaluateBinding(this.unbound, a, ctx);
    const verdicts: Verdict[] = [];
    for (const b of this.bindings) verdicts.push(...this.evaluateBinding(b, a, ctx));
    return verdicts;
  }

  private evaluateBinding(b: Binding, a: Admission, ctx: EvalContext): readonly Verdict[] {
    const matched = matchResources(b.matchResources, a, false);
    const binding = b.name || undefined;
    if ("unknown" in matched)
      return [{ outcome: "not-evaluated", binding, severity: "info", atPolicy: true, message: `not evaluated: needs the cluster: ${matched.unknown}` }];
    if (!matched.matched) return NO_VERDICTS;
    const severity = severityOfActions(b.validationActions);
    const params = paramsFor(this.paramKind, b.paramRef, a, ctx);
    if ("skip" in params) return [{ outcome: "skip", binding, severity }];
    if ("deny" in params) return [{ outcome: "fail", binding, severity, message: params.deny }];
    if ("error" in params) return [failure(this.spec, binding, severity, `failed to configure binding: ${params.error}`)];
    const verdicts: Verdict[] = [];
    for (const param of params.params) {
      verdicts.push(...verdictsOf(this.spec, evaluateSpec(this.spec, activation(a, param)), severity, binding));
    }
    return verdicts;
  }
}

/** An evaluation error: denies under failurePolicy Fail, is only noted under Ignore. */
function failure(spec: CelSpec, binding: string | undefined, severity: Severity, message: string, part?: string, pointer?: string): Verdict {
  return {
    outcome: "error",
    binding,
    part,
    severity: spec.failurePolicy === "Fail" ? severity : "info",
    message,
    atPolicy: true,
    ...(pointer ? { pointer } : {}),
  };
}

export function verdictsOf(spec: CelSpec, outcome: SpecOutcome, severity: Severity, binding?: string): Verdict[] {
  switch (outcome.kind) {
    case "skip":
      return [{ outcome: "skip", binding, severity }];
    case "error":
      return [failure(spec, binding, severity, outcome.message)];
    case "not-evaluated":
      return [{ outcome: "not-evaluated", binding, severity: outcome.overBudget ? "warning" : "info", message: outcome.message, atPolicy: true }];
  }
  const several = spec.validations.length > 1;
  return outcome.validations.map((v): Verdict => {
    const part = several ? String(v.index) : undefined;
    switch (v.outcome) {
      case "pass":
        return { outcome: "pass", part, binding, severity };
      case "fail":
        return {
          outcome: "fail",
          part,
          binding,
          severity,
          message: v.message,
          pointer: fieldPathPointer(v.fieldPath),
          ...(v.reason ? { reason: v.reason } : {}),
        };
      case "error":
        return failure(spec, binding, severity, v.message, part, v.at);
      default:
        return {
          outcome: "not-evaluated",
          part,
          binding,
          severity: v.overBudget ? "warning" : "info",
          message: v.message,
          atPolicy: true,
          ...(v.at ? { pointer: v.at } : {}),
        };
    }
  });
}
