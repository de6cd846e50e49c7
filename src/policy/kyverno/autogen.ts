import type { JsonObject } from "../../core/json.js";

/**
 * Kyverno's auto-generated rules for Pod controllers (autogen v1): a rule written for Pods also
 * checks DaemonSets, Deployments, Jobs, StatefulSets, ReplicaSets and ReplicationControllers
 * (`autogen-<rule>`, the pattern under `spec.template`) and CronJobs (`autogen-cronjob-<rule>`,
 * under `spec.jobTemplate.spec.template`), unless the policy's annotation
 * `pod-policies.kyverno.io/autogen-controllers` says otherwise.
 */

const CONTROLLERS = ["DaemonSet", "Deployment", "Job", "StatefulSet", "ReplicaSet", "ReplicationController"];
const GVK: Record<string, string> = {
  DaemonSet: "apps/v1/DaemonSet",
  Deployment: "apps/v1/Deployment",
  Job: "batch/v1/Job",
  StatefulSet: "apps/v1/StatefulSet",
  ReplicaSet: "apps/v1/ReplicaSet",
  ReplicationController: "v1/ReplicationController",
  CronJob: "batch/v1/CronJob",
};

type Rule = JsonObject;
type Filter = { resources?: { kinds?: string[]; name?: string; names?: string[]; selector?: unknown; annotations?: unknown } };

function kindsOf(f: Filter | undefined): string[] {
  return f?.resources?.kinds ?? [];
}

const isPod = (k: string) => k === "Pod" || /^(v1|\*)\/Pod$/.test(k) || k === "*/*/Pod";

function filtersOf(m: JsonObject | undefined): Filter[] {
  if (!m) return [];
  return [m as Filter, ...((m.any as Filter[] | undefined) ?? []), ...((m.all as Filter[] | undefined) ?? [])];
}

/** Kyverno's CanAutoGen over every rule of the policy. */
function canAutogen(rules: Rule[]): boolean {
  let needed = false;
  for (const rule of rules) {
    if (rule.generate) return false;
    for (const f of [...filtersOf(rule.match as JsonObject), ...filtersOf(rule.exclude as JsonObject)]) {
      const r = f.resources ?? {};
      const kinds = kindsOf(f);
      if (r.name || r.names?.length || r.selector || r.annotations || (kinds.length > 1 && kinds.some(isPod))) return false;
      if (kinds.some((k) => isPod(k) || CONTROLLERS.includes(k) || k === "CronJob")) needed = true;
    }
  }
  return needed;
}

function matchKinds(m: JsonObject | undefined): string[] {
  return filtersOf(m).flatMap(kindsOf);
}

function replaceKinds(m: JsonObject, kinds: string[], all: boolean): JsonObject {
  const out = structuredClone(m);
  const retarget = (f: Filter) => {
    if (f.resources && (all || kindsOf(f).some(isPod))) f.resources.kinds = kinds.map((k) => GVK[k] ?? k);
  };
  if ((out.any as Filter[] | undefined)?.length) (out.any as Filter[]).forEach(retarget);
  else if ((out.all as Filter[] | undefined)?.length) (out.all as Filter[]).forEach(retarget);
  else if ((out as Filter).resources) (out as Filter).resources!.kinds = kinds.map((k) => GVK[k] ?? k);
  return out;
}

function wrap(pattern: unknown, key: string): unknown {
  return { spec: { [key]: pattern } };
}

function rewrite(rule: Rule, to: string, cel: boolean): Rule {
  const text = JSON.stringify(rule);
  const pairs: [string, string][] = cel
    ? [
        ["object.spec", `object.${to}.spec`],
        ["oldObject.spec", `oldObject.${to}.spec`],
        ["object.metadata", `object.${to}.metadata`],
        ["oldObject.metadata", `oldObject.${to}.metadata`],
      ]
    : [
        ["request.object.spec", `request.object.${to}.spec`],
        ["request.oldObject.spec", `request.oldObject.${to}.spec`],
        ["request.object.metadata", `request.object.${to}.metadata`],
        ["request.oldObject.metadata", `request.oldObject.${to}.metadata`],
      ];
  return JSON.parse(pairs.reduce((t, [a, b]) => t.split(a).join(b), text)) as Rule;
}

function generate(rule: Rule, name: string, key: string, kinds: string[], all: boolean): Rule | undefined {
  const validate = rule.validate as JsonObject | undefined;
  if (!validate) return undefined;
  const out: Rule = { ...structuredClone(rule), name: name.slice(0, 63) };
  out.match = replaceKinds(rule.match as JsonObject, kinds, all);
  const exclude = rule.exclude as JsonObject | undefined;
  if (exclude && matchKinds(exclude).length) out.exclude = replaceKinds(exclude, kinds, all);
  const keep = ["message", "failureAction", "failureActionOverrides", "allowExistingViolations"];
  const base = Object.fromEntries(Object.entries(validate).filter(([k]) => keep.includes(k)));
  if (validate.pattern !== undefined) out.validate = { ...base, pattern: wrap(validate.pattern, key) };
  else if (validate.deny !== undefined) out.validate = { ...base, deny: validate.deny };
  else if (validate.anyPattern !== undefined) out.validate = { ...base, anyPattern: (validate.anyPattern as unknown[]).map((p) => wrap(p, key)) };
  else if (validate.foreach !== undefined) out.validate = { ...base, foreach: validate.foreach };
  else if (validate.cel !== undefined || validate.podSecurity !== undefined) out.validate = structuredClone(validate);
  else return undefined;
  return out;
}

/** The policy's rules followed by the rules Kyverno generates for Pod controllers. */
export function withAutogenRules(rules: Rule[], annotations: Record<string, unknown>): Rule[] {
  if (!canAutogen(rules)) return rules;
  const annotation = annotations["pod-policies.kyverno.io/autogen-controllers"];
  const wanted = typeof annotation === "string" ? annotation.split(",").map((s) => s.trim()) : [...CONTROLLERS, "CronJob"];
  if (wanted.includes("none")) return rules;
  const controllers = wanted.includes("all") ? CONTROLLERS : CONTROLLERS.filter((c) => wanted.includes(c));
  const cronjob = wanted.includes("CronJob") || wanted.includes("all");
  const out = [...rules];
  for (const rule of rules) {
    const name = String(rule.name ?? "");
    if (name.startsWith("autogen-")) continue;
    const excludeKinds = matchKinds(rule.exclude as JsonObject | undefined);
    if (!matchKinds(rule.match as JsonObject).some(isPod) || (excludeKinds.length > 0 && !excludeKinds.some(isPod))) continue;
    const cel = !!(rule.validate as JsonObject | undefined)?.cel;
    const template = controllers.length ? generate(rule, `autogen-${name}`, "template", [...controllers].sort(), false) : undefined;
    if (template) out.push(rewrite(template, "spec.template", cel));
    if (cronjob) {
      const base = generate(rule, `autogen-${name}`, "template", [...CONTROLLERS].sort(), false);
      const cron = base && generate(base, `autogen-cronjob-${name}`, "jobTemplate", ["CronJob"], true);
      if (cron) out.push(rewrite(cron, "spec.jobTemplate.spec.template", cel));
    }
  }
  return out;
}
