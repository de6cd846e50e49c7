import { compileSpec, type SpecProblem } from "../admission/cel-spec.js";
import { namespaceLabels } from "../admission/match.js";
import { NO_VERDICTS, type EvalContext, type LoadedPolicy, type Verdict } from "../policy.js";
import type { Admission } from "../request.js";
import type { PolicyManifest, Severity } from "../types.js";
import type { JsonObject } from "../../core/json.js";
import { withAutogenRules } from "./autogen.js";
import { evaluateConditions, unknownOperators } from "./conditions.js";
import { hasWildcard, wildcardMatch } from "./wildcard.js";
import type { VariableScope } from "./variables.js";
import { baseScope } from "./context.js";
import { excluded, matches, parseKindSelector, type MatchContext, type MatchResources } from "./match.js";
import { evaluateRule, type CompiledRule } from "./rule.js";

/**
 * A kyverno.io ClusterPolicy or Policy: its `validate` rules (and the rules Kyverno generates from
 * them for Pod controllers) on each request. Enforce is an error, Audit a warning.
 */
export class KyvernoPolicy implements LoadedPolicy {
  /** The kinds the rules match, to pass over other objects quickly; undefined when a rule matches any kind. */
  private readonly kinds: Set<string> | undefined;

  constructor(
    readonly kind: string,
    readonly name: string,
    readonly manifest: PolicyManifest,
    private readonly spec: JsonObject,
    private readonly rules: CompiledRule[],
  ) {
    this.kinds = kindsOf(rules);
  }

  mayMatch(a: Admission): boolean {
    return !this.kinds || this.kinds.has(a.kind);
  }

  evaluate(a: Admission, ctx: EvalContext): readonly Verdict[] {
    if (this.kinds && !this.kinds.has(a.kind)) return NO_VERDICTS;
    if (this.kind === "Policy") {
      const ns = (this.manifest.object.metadata as JsonObject | undefined)?.namespace;
      if (a.namespace !== (typeof ns === "string" ? ns : "default")) return NO_VERDICTS;
    }
    const mctx = matchContext(a);
    const verdicts: Verdict[] = [];
    let scope: VariableScope | undefined;
    for (const rule of this.rules) {
      const validate = rule.raw.validate as JsonObject | undefined;
      if (!validate) continue;
      const matched = matches(rule.raw.match as MatchResources, mctx);
      if (matched === false) continue;
      const out = matched === true ? excluded(rule.raw.exclude as MatchResources, mctx) : false;
      if (out === true) continue;
      const unknown = matched !== true ? matched : out !== false ? out : undefined;
      if (unknown) {
        verdicts.push({
          outcome: "not-evaluated",
          part: rule.name,
          severity: "info",
          atPolicy: true,
          message: `not evaluated: needs the cluster: ${unknown.unknown}`,
        });
        continue;
      }
      scope ??= scopeOf(a);
      const exception = exceptionFor(this, rule.name, mctx, scope, ctx);
      if (exception && !exception.podSecurity) {
        verdicts.push({ outcome: "skip", part: rule.name, severity: "info", message: `rule is skipped due to policy exception ${exception.name}` });
        continue;
      }
      const result = evaluateRule(rule, a, scope, ctx, exception?.podSecurity);
      if (!result) continue;
      const severity = this.severity(validate);
      const special = result.outcome === "not-evaluated" || result.outcome === "error";
      verdicts.push({
        outcome: result.outcome,
        part: rule.name,
        severity: result.outcome === "not-evaluated" ? "info" : severity,
        ...(result.message ? { message: result.message } : {}),
        ...(result.pointer !== undefined ? { pointer: result.pointer } : {}),
        ...(special ? { atPolicy: true } : {}),
      });
      if (this.spec.applyRules === "One" && result.outcome !== "skip") break;
    }
    return verdicts;
  }

  /** The rule's failureAction, else the policy's validationFailureAction: Enforce → error, Audit → warning. */
  private severity(validate: JsonObject): Severity {
    const action = String(validate.failureAction ?? this.spec.validationFailureAction ?? "Audit").toLowerCase();
    return action === "enforce" ? "error" : "warning";
  }
}

/** What match reads of a request, made once per request for every policy. */
function matchContext(a: Admission): MatchContext {
  let m = a.memo.kyvernoMatch as MatchContext | undefined;
  if (!m) {
    m = a.memo.kyvernoMatch = {
      a,
      ...(a.namespaceObject ? { namespaceLabels: namespaceLabels(a.namespaceObject, a.namespace) } : {}),
      // The user's roles are what the caller says (none by default), as `kyverno apply` has them.
      roles: a.target.userInfo?.roles ?? [],
      clusterRoles: a.target.userInfo?.clusterRoles ?? [],
    };
  }
  return m;
}

function scopeOf(a: Admission): VariableScope {
  return (a.memo.kyvernoScope ??= baseScope(a)) as VariableScope;
}

/** The kinds every rule's match names (the kind part of each selector), or undefined when one may match any kind. */
function kindsOf(rules: CompiledRule[]): Set<string> | undefined {
  const kinds = new Set<string>();
  for (const rule of rules) {
    const m = (rule.raw.match ?? {}) as JsonObject;
    const filters = [m, ...((m.any as JsonObject[] | undefined) ?? []), ...((m.all as JsonObject[] | undefined) ?? [])];
    const named = filters.flatMap((f) => ((f.resources as JsonObject | undefined)?.kinds as string[] | undefined) ?? []);
    // A filter without kinds (or `all` with one that has kinds) can match other kinds: no shortcut.
    if (named.length === 0 || (m.all && (m.all as JsonObject[]).some((f) => !((f.resources as JsonObject | undefined)?.kinds as string[] | undefined)?.length)))
      return undefined;
    if ((m.any as JsonObject[] | undefined)?.some((f) => !((f.resources as JsonObject | undefined)?.kinds as string[] | undefined)?.length)) return undefined;
    for (const k of named) {
      const kind = parseKindSelector(k).kind;
      if (hasWildcard(kind)) return undefined;
      kinds.add(kind);
    }
  }
  return kinds;
}

/**
 * The PolicyException of the input (kyverno.io, any version) that exempts this rule for this
 * request; one with `podSecurity` controls exempts only those controls.
 */
function exceptionFor(
  policy: KyvernoPolicy,
  rule: string,
  mctx: MatchContext,
  scope: VariableScope,
  ctx: EvalContext,
): { name: string; podSecurity?: JsonObject[] } | undefined {
  const ns = (policy.manifest.object.metadata as JsonObject | undefined)?.namespace;
  const names = new Set([policy.name, typeof ns === "string" ? `${ns}/${policy.name}` : policy.name]);
  for (const e of ctx.objectsOfKind("kyverno.io", "PolicyException")) {
    const spec = (e.spec ?? {}) as JsonObject;
    const entries = Array.isArray(spec.exceptions) ? (spec.exceptions as JsonObject[]) : [];
    const covers = entries.some(
      (x) => names.has(String(x.policyName)) && Array.isArray(x.ruleNames) && (x.ruleNames as string[]).some((r) => wildcardMatch(r, rule)),
    );
    if (!covers || matches(spec.match as MatchResources, mctx) !== true) continue;
    try {
      if (spec.conditions && !evaluateConditions(spec.conditions, scope).result) continue;
    } catch {
      continue;
    }
    const meta = (e.metadata ?? {}) as JsonObject;
    const name = `${meta.namespace ? `${meta.namespace}/` : ""}${meta.name}`;
    return Array.isArray(spec.podSecurity) && spec.podSecurity.length > 0 ? { name, podSecurity: spec.podSecurity as JsonObject[] } : { name };
  }
  return undefined;
}

export function loadKyvernoPolicy(kind: string, name: string, m: PolicyManifest, problems: SpecProblem[]): LoadedPolicy | undefined {
  const spec = ((m.object as JsonObject).spec ?? {}) as JsonObject;
  const rawRules = Array.isArray(spec.rules) ? (spec.rules as JsonObject[]) : [];
  rawRules.forEach((r, i) => {
    const base = `/spec/rules/${i}`;
    const v = r.validate as JsonObject | undefined;
    for (const [where, conditions] of [
      ["preconditions", r.preconditions],
      ["validate/deny/conditions", (v?.deny as JsonObject | undefined)?.conditions],
    ] as const) {
      for (const op of unknownOperators(conditions))
        problems.push({ pointer: `${base}/${where}`, message: `rule ${JSON.stringify(r.name)} uses the unknown condition operator ${JSON.stringify(op)}` });
    }
  });
  const annotations = ((m.object as JsonObject).metadata as JsonObject | undefined)?.annotations ?? {};
  const all = withAutogenRules(rawRules, annotations as Record<string, unknown>);
  const compiled = all.map((raw, i): CompiledRule => {
    const generated = i >= rawRules.length;
    const base = `/spec/rules/${generated ? rawRules.findIndex((r) => String(raw.name).endsWith(String(r.name))) : i}`;
    const sink: SpecProblem[] = generated ? [] : problems;
    const rule: CompiledRule = { name: String(raw.name ?? ""), raw };
    const cel = (raw.validate as JsonObject | undefined)?.cel as JsonObject | undefined;
    const pre = Array.isArray(raw.celPreconditions) ? raw.celPreconditions : undefined;
    if (cel)
      rule.cel = compileSpec(
        { ...cel, ...(pre ? { matchConditions: pre } : {}), failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail" },
        "kyverno",
        `${base}/validate/cel`,
        sink,
        "expressions",
      );
    else if (pre) rule.celPreconditions = compileSpec({ matchConditions: pre }, "kyverno", base, sink);
    return rule;
  });
  return new KyvernoPolicy(kind, name, m, spec, compiled);
}
