import fs from "node:fs";
import path from "node:path";
import { setPath } from "../../src/policy/kyverno/variables.js";
import {
  builtinResource,
  crdResources,
  evaluatePolicies,
  loadPolicies,
  type PolicyManifest,
  type PolicyResult,
  type PolicyTarget,
} from "../../src/policy/index.js";
import { fileURLToPath } from "node:url";

/** Runs the upstream tables of ../shared/conformance/policies (see its README) through the policy room. */

export const CONFORMANCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance/policies");
export const HAS_CONFORMANCE = fs.existsSync(path.join(CONFORMANCE, "README.md"));

type Json = Record<string, any>;

export function readTable(table: string): Json[] {
  return JSON.parse(fs.readFileSync(path.join(CONFORMANCE, table, "cases.json"), "utf8")) as Json[];
}

/** A manifest made in memory: every field is at line 1. */
export function memoryManifest(object: Json, file = "policy.yaml"): PolicyManifest {
  return { object: object as PolicyManifest["object"], file, locate: () => ({ line: 1, column: 1 }) };
}

const now = () => new Date("2026-03-01T00:00:00Z");

export interface CaseOutcome {
  ok: boolean;
  /** What disagreed, one line each. */
  problems: string[];
  /** Rows that upstream never really checked (rule 5 of the README) and that disagree. */
  unverified: number;
  /** Rows expecting pass or fail to which no rule of the policy applied here (passed by rule 5). */
  unmatched: string[];
  rows: number;
}

// --- Kyverno CLI tables (kyverno-*, vap) ---

const CLEARED = ["labels", "annotations"];

/** The resource as the Kyverno CLI hands it to the engine: namespace defaulted, null maps made empty. */
function asCliResource(r: Json): Json {
  const o = structuredClone(r);
  o.metadata ??= {};
  for (const k of CLEARED) if (o.metadata[k] === null) o.metadata[k] = {};
  const known = builtinResource(String(o.apiVersion ?? ""), String(o.kind ?? ""));
  if (!o.metadata.namespace && (known ? known.namespaced : true)) o.metadata.namespace = "default";
  return o;
}

function identity(o: Json): string {
  const group = String(o.apiVersion ?? "").includes("/") ? String(o.apiVersion).split("/")[0] : "";
  return `${group}|${o.kind}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`;
}

export function runKyvernoCase(c: Json): CaseOutcome {
  const values = { ...(c.values ?? {}), ...(c.inlineValues ?? {}) } as Json;
  const seen = new Set<string>();
  const resources = (c.resources as Json[])
    .filter((r) => r && typeof r === "object" && r.kind)
    .map(asCliResource)
    .filter((r) => {
      const key = identity(r);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const namespaces: Json[] = (values.namespaces ?? []).map((n: Json) => ({ ...n, kind: "Namespace" }));
  for (const ns of values.namespaceSelector ?? [])
    namespaces.push({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns.name, labels: ns.labels ?? {} } });
  const cluster = [...(c.context?.spec?.resources ?? []), ...(c.clusterResources ?? []).flatMap((r: Json) => r.resources ?? [])];
  const manifests = [
    ...(c.policies as Json[]),
    ...(c.paramResources ?? []),
    ...(c.exceptions ?? []),
    ...namespaces,
    ...cluster,
    ...resources.filter((r) => r.kind === "Namespace"),
  ].map((o) => memoryManifest(o));
  const { policies, findings } = loadPolicies(manifests);
  const info = c.userInfo?.requestInfo ?? c.userInfo;
  const userInfo = info
    ? { ...(info.userInfo ?? {}), ...(info.roles ? { roles: info.roles } : {}), ...(info.clusterRoles ? { clusterRoles: info.clusterRoles } : {}) }
    : undefined;
  const targetsFor = (operation?: string): PolicyTarget[] =>
    resources.map((resource) => {
      const v = valuesFor(values, resource);
      // Values that set fields of request.object change the resource the CLI evaluates.
      const object = structuredClone(resource);
      for (const [k, x] of Object.entries(v)) if (k.startsWith("request.object.")) setPath(object, k.slice("request.object.".length), x);
      const op = operation ?? v["request.operation"] ?? "CREATE";
      return {
        object,
        operation: op,
        ...(op === "UPDATE" ? { oldObject: object } : {}),
        ...(op === "DELETE" ? { oldObject: object } : {}),
        ...(userInfo ? { userInfo } : {}),
        values: v,
      } as PolicyTarget;
    });
  const runs = new Map<string, PolicyResult[]>();
  const resultsFor = (operation?: string) => {
    const key = operation ?? "";
    if (!runs.has(key)) runs.set(key, evaluatePolicies(policies, targetsFor(operation), { now, results: true }).results);
    return runs.get(key)!;
  };
  const problems: string[] = findings.filter((f) => /does not compile|could not be read/.test(f.message)).map((f) => `load: ${f.message}`);
  let unverified = 0;
  const unmatched: string[] = [];
  const loaded = new Set(policies.policies.map((p) => p.name));
  for (const original of c.expected as Json[]) {
    // A namespaced Policy is named `namespace/name` in rows.
    const row = loaded.has(original.policy) ? original : { ...original, policy: String(original.policy).replace(/^[^/]*\//, "") };
    if (!loaded.has(row.policy)) {
      problems.push(`policy ${row.policy} was not loaded`);
      continue;
    }
    const results = resultsFor(row.operation);
    const matching = resources
      .map((r, i) => [r, i] as const)
      .filter(
        ([r]) =>
          r.metadata?.name === row.resource.name &&
          (!row.resource.namespace || (r.metadata?.namespace ?? "") === row.resource.namespace || !r.metadata?.namespace),
      );
    if (matching.length === 0) {
      problems.push(`row ${row.policy}/${row.rule ?? ""} ${row.resource.name}: no such resource`);
      continue;
    }
    for (const [, i] of matching) {
      const mine = results.filter(
        (r) =>
          r.policy === row.policy &&
          r.target === i &&
          (!row.rule ||
            !["ClusterPolicy", "Policy"].includes(r.policyKind) ||
            [row.rule, `autogen-${row.rule}`, `autogen-cronjob-${row.rule}`].includes(r.rule ?? "")),
      );
      if (mine.length === 0) {
        // No rule applied: the CLI counts the row as passed whatever it says (README rule 5).
        if (row.result !== "skip") unmatched.push(`${row.policy}/${row.rule ?? "*"} on ${row.resource.kind} ${row.resource.name} (expected ${row.result})`);
        continue;
      }
      let got = combine(mine);
      // The CLI reports a failure of a policy annotated `policies.kyverno.io/scored: "false"` as warn.
      const unscored = (c.policies as Json[]).some(
        (p) => p.metadata?.name === row.policy && p.metadata?.annotations?.["policies.kyverno.io/scored"] === "false",
      );
      if (got === "fail" && unscored) got = "warn";
      if (got !== row.result) {
        const unmatched = row.result === "skip";
        if (unmatched) unverified++;
        problems.push(
          `${row.policy}/${row.rule ?? "*"} on ${row.resource.kind} ${row.resource.name}: expected ${row.result}, got ${got}${mine.find((m) => m.message) ? `: ${mine.find((m) => m.message)!.message}` : ""}`,
        );
      }
    }
  }
  return { ok: problems.length === 0, problems, unverified, unmatched, rows: (c.expected as Json[]).length };
}

function valuesFor(values: Json, object: Json): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(values.globalValues ?? {}) };
  for (const p of values.policies ?? []) {
    for (const r of p.rules ?? []) Object.assign(out, r.values ?? {});
    for (const r of p.resources ?? []) if (r.name === object.metadata?.name) Object.assign(out, r.values ?? {});
  }
  return out;
}

/** The CLI's one result per row: a failure anywhere fails, an error errs, all skipped skips. */
function combine(results: PolicyResult[]): string {
  if (results.some((r) => r.outcome === "fail")) return "fail";
  if (results.some((r) => r.outcome === "error")) return "error";
  if (results.some((r) => r.outcome === "not-evaluated")) return "not-evaluated";
  if (results.every((r) => r.outcome === "skip")) return "skip";
  return "pass";
}

// --- vap-k8s ---

export function runKubernetesCase(c: Json): CaseOutcome {
  const manifests = [...c.policies, ...(c.params ?? []), ...(c.namespaces ?? []), ...(c.crds ?? [])].map((o: Json) => memoryManifest(o));
  const { policies, findings } = loadPolicies(manifests);
  const resourceFor = crdResources([...(c.crds ?? [])]);
  const problems: string[] = findings.filter((f) => f.severity === "error").map((f) => `load: ${f.message}`);
  for (const req of c.requests as Json[]) {
    const object = structuredClone(req.object);
    if (req.namespace && !object.metadata?.namespace) object.metadata = { ...object.metadata, namespace: req.namespace };
    const target: PolicyTarget = { object, operation: req.operation, ...(req.oldObject ? { oldObject: req.oldObject } : {}) };
    const { results } = evaluatePolicies(policies, [target], { resourceFor, now, results: true });
    const denials = results.filter((r) => (r.outcome === "fail" || r.outcome === "error") && r.severity === "error");
    const warnings = results
      .filter((r) => r.outcome === "fail" && r.severity === "warning")
      .map((r) => `Validation failed for ValidatingAdmissionPolicy '${r.policy}' with binding '${r.binding}': ${r.message}`);
    const errors = denials.map(
      (r) =>
        `${req.resource.resource} ${JSON.stringify(req.name)} is forbidden: ValidatingAdmissionPolicy '${r.policy}' with binding '${r.binding}' denied request: ${r.message}`,
    );
    const e = req.expect;
    const what = `${req.operation} ${req.kind.kind} ${req.name}`;
    if (e.allowed !== (denials.length === 0))
      problems.push(`${what}: expected ${e.allowed ? "allowed" : "denied"}, got ${denials.length === 0 ? "allowed" : `denied: ${errors.join("; ")}`}`);
    if (e.error && !errors.includes(e.error)) problems.push(`${what}: expected error ${JSON.stringify(e.error)}, got ${JSON.stringify(errors)}`);
    if (e.errorContains && !errors.some((x) => x.includes(e.errorContains)))
      problems.push(`${what}: expected an error containing ${JSON.stringify(e.errorContains)}, got ${JSON.stringify(errors)}`);
    if (e.errorNotContains && errors.some((x) => x.includes(e.errorNotContains)))
      problems.push(`${what}: error contains ${JSON.stringify(e.errorNotContains)}`);
    const reason = denials[0]?.reason ?? "Invalid";
    if (e.reason && denials.length > 0 && reason !== e.reason) problems.push(`${what}: expected reason ${e.reason}, got ${reason}`);
    if (e.warnings && JSON.stringify([...e.warnings].sort()) !== JSON.stringify([...warnings].sort()))
      problems.push(`${what}: expected warnings ${JSON.stringify(e.warnings)}, got ${JSON.stringify(warnings)}`);
  }
  return { ok: problems.length === 0, problems, unverified: 0, unmatched: [], rows: (c.requests as Json[]).length };
}
