// policy/: the repository's own admission policies (ValidatingAdmissionPolicy, Kyverno, Gatekeeper) evaluated offline; one door, index.ts.
import { pointerToFieldPath } from "../manifest/pointer.js";
import type { Finding } from "../core/finding.js";
import { setWorld, type ResourceLookup } from "../cel/environment.js";
import { resolveResource } from "./resources.js";
import { setJmespathClock } from "./kyverno/jmespath.js";
import { groupOf } from "../manifest/manifest.js";
import { policyFinding, type PolicySet } from "./load.js";
import type { EvalContext, LoadedPolicy, Verdict } from "./policy.js";
import { admissionOf, writtenName, type Admission } from "./request.js";
import { BadSelector } from "./selector.js";
import type { EvaluateOptions, PolicyEvaluation, PolicyExplain, PolicyResult, PolicyTarget, ResourceFor } from "./types.js";
import type { JsonObject } from "../core/json.js";

/**
 * Every policy on every target. A violation is a finding at the target's line (the validation's
 * fieldPath when it has one); what a policy could not do (an expression that throws, an
 * evaluation over the budget, data only the cluster has) is one finding at the policy's line per
 * policy and message, counting the targets.
 */
export function evaluatePolicies(set: PolicySet, targets: readonly PolicyTarget[], options: EvaluateOptions = {}): PolicyEvaluation {
  const now = options.now ?? (() => new Date());
  setWorld(now, lookupIn(set, options));
  setJmespathClock(now);
  const ctx: EvalContext = { objectsOfKind: set.objectsOfKind, ...(options.resourceFor ? { resourceFor: options.resourceFor } : {}) };
  const admissions = targets.map((t, i) => admissionOf(t, i, options.resourceFor, set.namespaces));
  const byKind = groupByKind(admissions);
  const findings: Finding[] = [];
  const results: PolicyResult[] = [];
  const explain: PolicyExplain[] = [];
  for (const policy of set.policies) {
    const at = policy.manifest.locate("");
    const note = policy.note?.();
    const tally: PolicyExplain = {
      policy: policy.name,
      policyKind: policy.kind,
      file: policy.manifest.file,
      line: at.line,
      matched: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
      notEvaluated: 0,
      errors: 0,
      ...(note ? { note } : {}),
    };
    const problems = new Map<string, { verdict: Verdict; targets: Admission[] }>();
    for (const a of candidatesOf(policy, admissions, byKind)) {
      const verdicts = verdictsFor(policy, a, ctx);
      if (verdicts.length === 0) continue;
      tally.matched++;
      count(tally, verdicts);
      for (const v of verdicts) {
        if (options.results)
          results.push({
            policy: policy.name,
            policyKind: policy.kind,
            ...(v.binding ? { binding: v.binding } : {}),
            ...(v.part ? { rule: v.part } : {}),
            target: a.index,
            outcome: v.outcome,
            ...(v.message ? { message: v.message } : {}),
            ...(v.reason ? { reason: v.reason } : {}),
            severity: v.severity,
            ...(v.pointer !== undefined ? { pointer: v.pointer } : {}),
          });
        if (v.atPolicy) {
          const key = `${v.part ?? ""}|${v.severity}|${v.message}`;
          const entry = problems.get(key) ?? problems.set(key, { verdict: v, targets: [] }).get(key)!;
          entry.targets.push(a);
        } else if (v.outcome === "fail") findings.push(violation(policy, v, a));
      }
    }
    for (const { verdict, targets: hit } of problems.values()) {
      const first = describe(hit[0]!);
      const more = hit.length > 1 ? ` and ${hit.length - 1} more` : "";
      findings.push(
        policyFinding(policy.manifest, ruleId(policy, verdict), verdict.pointer ?? "", `${verdict.message} (for ${first}${more})`, verdict.severity),
      );
    }
    explain.push(tally);
  }
  return { findings, explain, results };
}

const mayMatchByKind = new WeakMap<PolicySet, Map<string, boolean>>();

/**
 * Whether some policy of the set may match the target, judged by what a policy's quick test reads
 * (group, version, kind, resource, subresource), once per such key: callers prepare only these
 * targets (schema defaults); the others no policy would match.
 */
export function mayBeMatched(set: PolicySet, target: PolicyTarget, resourceFor?: ResourceFor): boolean {
  const a = admissionOf(target, 0, resourceFor, set.namespaces);
  const key = kindKey(a);
  const memo = mayMatchByKind.get(set) ?? mayMatchByKind.set(set, new Map()).get(set)!;
  let may = memo.get(key);
  if (may === undefined) {
    may = set.policies.some((p) => !p.mayMatch || p.mayMatch(a));
    memo.set(key, may);
  }
  return may;
}

function kindKey(a: Admission): string {
  return `${a.group}\u0000${a.version}\u0000${a.kind}\u0000${a.resource.resource}\u0000${a.target.subResource ?? ""}`;
}

/** Admissions of one group, version, kind and resource together: a policy that cannot match one of them matches none. */
function groupByKind(admissions: Admission[]): Admission[][] {
  const groups = new Map<string, Admission[]>();
  for (const a of admissions) {
    const key = kindKey(a);
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(a);
  }
  return [...groups.values()];
}

/** The admissions a policy may match, in input order. */
function candidatesOf(policy: LoadedPolicy, admissions: Admission[], byKind: Admission[][]): Admission[] {
  if (!policy.mayMatch) return admissions;
  const kept = byKind.filter((group) => policy.mayMatch!(group[0]!));
  if (kept.length === byKind.length) return admissions;
  return kept.flat().sort((x, y) => x.index - y.index);
}

/** The input's objects by group, resource and namespace, indexed on first use. */
function lookupIn(set: PolicySet, options: EvaluateOptions): ResourceLookup {
  let index: Map<string, JsonObject[]> | undefined;
  return (apiVersion, resource, namespace) => {
    if (!index) {
      index = new Map();
      for (const o of set.objects) {
        const key = `${groupOf(String(o.apiVersion ?? ""))}/${resolveResource(options.resourceFor, o).resource}`;
        (index.get(key) ?? index.set(key, []).get(key)!).push(o);
      }
    }
    const all = index.get(`${groupOf(apiVersion)}/${resource}`) ?? [];
    return namespace ? all.filter((o) => ((o.metadata as JsonObject | undefined)?.namespace ?? "default") === namespace) : all;
  };
}

function verdictsFor(policy: LoadedPolicy, a: Admission, ctx: EvalContext): readonly Verdict[] {
  try {
    return policy.evaluate(a, ctx);
  } catch (err) {
    const message =
      err instanceof BadSelector
        ? `the policy has a bad label selector: ${err.message}`
        : `composition-ci could not evaluate the policy: ${(err as Error).message}`;
    return [{ outcome: "error", severity: "error", atPolicy: true, message }];
  }
}

function count(tally: PolicyExplain, verdicts: readonly Verdict[]): void {
  if (verdicts.some((v) => v.outcome === "fail")) tally.failed++;
  else if (verdicts.some((v) => v.outcome === "error")) tally.errors++;
  else if (verdicts.some((v) => v.outcome === "not-evaluated")) tally.notEvaluated++;
  else if (verdicts.every((v) => v.outcome === "skip")) tally.skipped++;
  else tally.passed++;
}

export function ruleId(policy: LoadedPolicy, v: Verdict): string {
  return v.part ? `policy/${policy.name}/${v.part}` : `policy/${policy.name}`;
}

function violation(policy: LoadedPolicy, v: Verdict, a: Admission): Finding {
  const t = a.target;
  const pointer = v.pointer ?? "";
  const at = t.locate?.(pointer) ?? (pointer ? t.locate?.("") : undefined);
  const by = v.binding ? `, binding ${v.binding}` : "";
  return {
    rule: ruleId(policy, v),
    severity: v.severity,
    message: `${v.message ?? "denied"} (${policy.kind} ${policy.name}${by}${t.source ? `; ${t.source}` : ""})`,
    ...(at ? { file: at.file, line: at.line, column: at.column } : {}),
    apiVersion: String(a.object.apiVersion ?? ""),
    kind: a.kind,
    name: writtenName(a.object),
    ...(pointer ? { path: pointerToFieldPath(pointer) } : {}),
  };
}

function describe(a: Admission): string {
  const ns = a.namespace ? `${a.namespace}/` : "";
  return `${a.kind} ${ns}${writtenName(a.object)}${a.target.source ? ` (${a.target.source})` : ""}`;
}
