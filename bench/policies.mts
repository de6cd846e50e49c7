/**
 * Policy benchmark: the Crossplane e2e corpus replicated 40 times with 100 admission policies
 * (ValidatingAdmissionPolicies with bindings and Kyverno ClusterPolicies, each guarding one kind of
 * ten, as real policy sets do). `check` runs as CI runs it (`node dist/cli.js check`, a fresh
 * process, the validator cache warm), with the policies ignored and with them, interleaved in this
 * same run; the ratio is what policy evaluation (repository objects and rendered ones) adds to
 * `check` (target: at most 1.25x). The in-process validation alone, with and without policies, is
 * printed too (policies' share of the validation, for reference).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { emptyConfig } from "../src/config/config.js";
import { validateRepo } from "../src/run/validate.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = path.resolve(here, "../../shared");
const corpus = path.join(shared, "corpus/crossplane-e2e");
if (!fs.existsSync(corpus)) {
  console.log(`bench skipped: ${corpus} is absent`);
  process.exit(0);
}

const COPIES = Number(process.env.BENCH_COPIES ?? 40);
const POLICIES = 100;
const ROUNDS = 3;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-policies-"));
const repo = path.join(work, "repo");
for (let i = 0; i < COPIES; i++) fs.cpSync(corpus, path.join(repo, `copy-${i}`), { recursive: true });
const policyDir = path.join(repo, "zz-policies");
fs.mkdirSync(policyDir);

/** The kinds the policies match, one each in turn: real policy sets guard particular kinds. */
const KINDS = [
  { group: "apiextensions.crossplane.io", resource: "compositions", kind: "Composition" },
  { group: "pkg.crossplane.io", resource: "functions", kind: "Function" },
  { group: "pkg.crossplane.io", resource: "providers", kind: "Provider" },
  { group: "pkg.crossplane.io", resource: "configurations", kind: "Configuration" },
  { group: "apiextensions.crossplane.io", resource: "compositeresourcedefinitions", kind: "CompositeResourceDefinition" },
  { group: "", resource: "configmaps", kind: "ConfigMap" },
  { group: "", resource: "secrets", kind: "Secret" },
  { group: "apps", resource: "deployments", kind: "Deployment" },
  { group: "nop.crossplane.io", resource: "nopresources", kind: "NopResource" },
  { group: "apiextensions.crossplane.io", resource: "environmentconfigs", kind: "EnvironmentConfig" },
];

function vap(i: number): string {
  const k = KINDS[i % KINDS.length]!;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: vap-${i}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["${k.group}"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: ["${k.resource}"]}]
  validations:
    - expression: "object.metadata.?labels.orValue({}).size() < ${50 + i} && !object.metadata.name.startsWith('forbidden-${i}')"
      message: too many labels
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: vap-${i}}
spec: {policyName: vap-${i}, validationActions: [Warn]}
`;
}

function kyverno(i: number): string {
  const k = KINDS[i % KINDS.length]!;
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: kyverno-${i}}
spec:
  validationFailureAction: Audit
  rules:
    - name: named
      match: {any: [{resources: {kinds: ["${k.kind}"]}}]}
      validate:
        message: a name that is not forbidden-${i}
        pattern: {metadata: {name: "!forbidden-${i}"}}
`;
}

for (let i = 0; i < POLICIES; i++) fs.writeFileSync(path.join(policyDir, `p${i}.yaml`), i % 2 ? vap(i) : kyverno(i));

async function best(ignore: string[]): Promise<{ ms: number; findings: number }> {
  let out = { ms: Infinity, findings: 0 };
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    const result = await validateRepo({ root: repo, paths: ["."], config: { ...emptyConfig(), ignore }, cacheDir: path.join(work, "cache") });
    const ms = performance.now() - start;
    if (ms < out.ms) out = { ms, findings: result.findings.length };
  }
  return out;
}

const cli = path.resolve(here, "../dist/cli.js");
const env = { ...process.env, COMPOSITION_CI_OFFLINE: "1", XDG_CACHE_HOME: path.join(work, "xdg") };
const noPolicies = path.join(work, "no-policies.yaml");
fs.writeFileSync(noPolicies, 'ignore: ["zz-policies/**"]\n');

function checkOnce(args: string[]): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, [cli, "check", ".", "--format", "json", ...args], { cwd: repo, env, encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status === null || r.status > 1) throw new Error(`check failed: ${r.stderr}`);
  return performance.now() - start;
}

checkOnce([]); // fills the validator cache
const check = { without: Infinity, with: Infinity };
for (let r = 0; r < ROUNDS; r++) {
  check.without = Math.min(check.without, checkOnce(["--config", noPolicies]));
  check.with = Math.min(check.with, checkOnce([]));
}

await best(["zz-policies/**"]); // fills the validator cache
const without = await best(["zz-policies/**"]);
const withPolicies = await best([]);
console.log(`policies: ${COPIES}x e2e corpus, ${POLICIES} policies, best of ${ROUNDS}, validator cache warm`);
console.log(
  `  check (dist/cli.js, fresh process): without policies ${check.without.toFixed(0)} ms, with ${check.with.toFixed(0)} ms: ${(check.with / check.without).toFixed(2)}x (target <= 1.25x)`,
);
console.log(
  `  validation alone (in process):      without policies ${without.ms.toFixed(0)} ms, with ${withPolicies.ms.toFixed(0)} ms: ${(withPolicies.ms / without.ms).toFixed(2)}x`,
);
fs.rmSync(work, { recursive: true, force: true });
