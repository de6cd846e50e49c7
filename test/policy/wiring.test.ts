import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runDiff } from "../../src/run/diff.js";
import { editFile, gitRepo, REPO, runCli, tempRepo } from "../helpers.js";
import { triples } from "../fixtures/triples.js";

/** The repository's policies on every manifest and every rendered object (issue 34): check, validate, diff. */

const VAP = (actions = "Deny") => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team-label}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  validations:
    - expression: "object.metadata.?labels.orValue({}).exists(k, k == 'team')"
      message: every ConfigMap carries a team label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team-label}
spec:
  policyName: require-team-label
  validationActions: [${actions}]
`;

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {team: {type: string}}}}}}}]
`;

const COMPOSITION = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: cm
            base:
              apiVersion: v1
              kind: ConfigMap
              metadata: {labels: {app: web}}
            patches:
              - {fromFieldPath: spec.team, toFieldPath: "metadata.labels[team]"}
`;

const XR = (team?: string) => `apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: shop, namespace: default}\nspec: {${team ? `team: ${team}` : ""}}\n`;

type Finding = { rule: string; severity: string; file?: string; line?: number; message: string };

async function check(dir: string, ...flags: string[]) {
  const { stdout, stderr, code } = await runCli(["check", ".", "--format", "json", ...flags], dir);
  const report = JSON.parse(stdout) as { findings: Finding[]; policies?: { policy: string; matched: number; passed: number; failed: number }[] };
  return { code, stderr, report, policy: report.findings.filter((f) => f.rule.startsWith("policy/")) };
}

describe("policies on what the repository holds and renders", () => {
  it("a rendered object that breaks a policy is an error at the template that made it, naming the XR", async () => {
    const { policy } = await check(tempRepo({ "policies/vap.yaml": VAP(), "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR() }));
    expect(policy).toMatchObject([{ rule: "policy/require-team-label", severity: "error", file: "composition.yaml", line: 15 }]); // the base of resource cm
    expect(policy[0]!.message).toContain("every ConfigMap carries a team label");
    expect(policy[0]!.message).toContain("rendered ConfigMap");
    expect(policy[0]!.message).toContain("from XApp shop (xr.yaml)");
  });

  it("the same render with the field patched in passes; the explanation counts it", async () => {
    const { policy, report } = await check(
      tempRepo({ "policies/vap.yaml": VAP(), "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR("payments") }),
    );
    expect(policy).toEqual([]);
    expect(report.policies).toEqual([expect.objectContaining({ policy: "require-team-label", matched: 1, passed: 1, failed: 0 })]);
  });

  it("a repository manifest that breaks a policy is an error at its own line; Warn is a warning", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: b}\n";
    const deny = await check(tempRepo({ "policies/vap.yaml": VAP(), "cm.yaml": cm }));
    expect(deny.policy).toMatchObject([{ rule: "policy/require-team-label", severity: "error", file: "cm.yaml", line: 1 }]);
    const warn = await check(tempRepo({ "policies/vap.yaml": VAP("Warn"), "cm.yaml": cm }));
    expect(warn.policy.map((f) => f.severity)).toEqual(["warning"]);
  });

  it("policies outside the scanned paths come from the config's policies: and --policies; the config's levels apply", async () => {
    const dir = tempRepo({ "platform/policies/vap.yaml": VAP(), "apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n" });
    const none = await runCli(["check", "apps", "--format", "json"], dir);
    expect(JSON.parse(none.stdout).findings.filter((f: Finding) => f.rule.startsWith("policy/"))).toEqual([]);
    const flag = await runCli(["check", "apps", "--format", "json", "--policies", "platform/policies"], dir);
    expect(
      JSON.parse(flag.stdout)
        .findings.filter((f: Finding) => f.rule.startsWith("policy/"))
        .map((f: Finding) => f.file),
    ).toEqual(["apps/cm.yaml"]);
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), 'policies: [platform/policies]\nrules:\n  "policy/*": warning\n');
    const configured = await runCli(["check", "apps", "--format", "json"], dir);
    expect(
      JSON.parse(configured.stdout)
        .findings.filter((f: Finding) => f.rule.startsWith("policy/"))
        .map((f: Finding) => f.severity),
    ).toEqual(["warning"]);
  });

  it("rendered objects are created by Crossplane's service account; crossplaneServiceAccount names another", async () => {
    const bySa = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: only-crossplane}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
    - expression: "request.userInfo.username == 'system:serviceaccount:crossplane-system:crossplane' && 'system:serviceaccounts:crossplane-system' in request.userInfo.groups"
      message: made by the default service account
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: only-crossplane}
spec: {policyName: only-crossplane, validationActions: [Deny]}
`;
    const files = { "policies/vap.yaml": bySa, "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR("a") };
    expect((await check(tempRepo(files))).policy).toEqual([]);
    const other = await check(tempRepo({ ...files, ".composition-ci.yaml": "crossplaneServiceAccount: upbound-system/crossplane\n" }));
    expect(other.policy.map((f) => f.rule)).toEqual(["policy/only-crossplane"]);
    const bad = await runCli(["check", "."], tempRepo({ ...files, ".composition-ci.yaml": "crossplaneServiceAccount: crossplane\n" }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("crossplaneServiceAccount: must be <namespace>/<name>");
  });

  it("an object with only a generateName is admitted named as the API server names it; the finding shows the generateName", async () => {
    const named = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: named}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
    - expression: "object.metadata.name.matches('^shop-[bcdfghjklmnpqrstvwxz2456789]{5}$') || object.metadata.name.matches('^shop-[0-9a-f]{12}$')"
      message: generated from the XR's name
    - expression: "!object.metadata.name.startsWith('shop-')"
      message: never a shop name
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: named}
spec: {policyName: named, validationActions: [Deny]}
`;
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: shop-, namespace: default}\ndata: {a: b}\n";
    const { policy } = await check(tempRepo({ "policies/vap.yaml": named, "cm.yaml": cm }));
    expect(policy.map((f) => f.message.split(" (")[0])).toEqual(["never a shop name"]);
    expect((policy[0] as Finding & { name?: string }).name).toBe("shop-");
    // A composed resource is named by the reconciler before it is created (v2.3+: its generateName and a hash).
    const rendered = await check(
      tempRepo({ "policies/vap.yaml": named.replace("{5}$", "{12}$"), "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR("a") }),
    );
    expect(rendered.policy.map((f) => f.message.split(" (")[0])).toEqual(["never a shop name"]);
  });

  it("--explain-policies lists every policy with its counts, so none is silently skipped", async () => {
    const { stderr } = await runCli(
      ["check", ".", "--explain-policies"],
      tempRepo({ "policies/vap.yaml": VAP(), "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR("a") }),
    );
    expect(stderr).toContain("ValidatingAdmissionPolicy require-team-label (policies/vap.yaml:1): matched 1: 1 passed, 0 failed, 0 not evaluated");
  });

  it("a Kyverno policy kind needs no schema: the policy room reads it", async () => {
    const kyverno =
      "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  rules:\n    - name: r\n      match: {any: [{resources: {kinds: [ConfigMap]}}]}\n      validate: {message: m, pattern: {metadata: {name: '?*'}}}\n";
    const { report } = await check(tempRepo({ "kyverno.yaml": kyverno }));
    expect(report.findings.filter((f) => f.rule === "schema/missing")).toEqual([]);
  });

  it("the examples' policies pass, and fire when an XR asks for more replicas than the limit", async () => {
    const dir = tempRepo({});
    fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
    const clean = await runCli(["check", "."], dir);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("policies: 2 admission policies matched 2 objects: 2 passed, 0 failed");
    fs.writeFileSync(path.join(dir, "crossplane/xr.yaml"), fs.readFileSync(path.join(dir, "crossplane/xr.yaml"), "utf8").replace("replicas: 3", "replicas: 8"));
    const { policy } = await check(dir);
    expect(policy.map((f) => `${f.rule} ${f.file}`)).toEqual(["policy/replica-limit crossplane/composition.yaml"]);
    expect(policy[0]!.message).toContain("a Deployment runs at most 5 replicas, not 8");
  });
});

describe("policies in a pull request", () => {
  it("the head is checked against the base's policies; its change to a policy is said, not applied", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n";
    const { dir } = gitRepo({ "policies/vap.yaml": VAP(), "cm.yaml": cm.replace("{name: plain}", "{name: plain, labels: {team: a}}") });
    fs.writeFileSync(path.join(dir, "policies/vap.yaml"), VAP("Audit"));
    fs.writeFileSync(path.join(dir, "cm.yaml"), cm);
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD", trustBaseConfig: true });
    const rules = report.findings.new.map((f) => `${f.severity} ${f.rule}`);
    expect(rules).toContain("error policy/require-team-label");
    expect(rules).toContain("info policy/changed");
    expect(report.verdict.failed).toBe(true);
  });

  it("a pull request that removes a policy, checked with its own policies, does not fix what the policy found: it is no longer checked", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: b}\n";
    const { dir } = gitRepo({ "policies/vap.yaml": VAP(), "cm.yaml": cm });
    fs.rmSync(path.join(dir, "policies/vap.yaml"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(report.findings.fixed.map((f) => f.rule)).not.toContain("policy/require-team-label");
    expect(report.findings.unknown?.map((f) => f.rule)).toEqual(["policy/require-team-label"]);
    expect(report.findings.new.map((f) => `${f.severity} ${f.rule} ${f.message.split(":")[0]}`)).toContainEqual(
      "warning policy/changed this pull request removes ValidatingAdmissionPolicy require-team-label (policies/vap.yaml at base)",
    );
  });

  it("a violation whose message quotes the value the change moved is new, and the old one is not listed as fixed", async () => {
    const limit = VAP()
      .replace("resources: [configmaps]", "resources: [deployments]")
      .replace('apiGroups: [""]', "apiGroups: [apps]")
      .replace(`"object.metadata.?labels.orValue({}).exists(k, k == 'team')"`, '"object.spec.replicas <= 5"')
      .replace("message: every ConfigMap carries a team label", "messageExpression: \"'at most 5 replicas, not ' + string(object.spec.replicas)\"");
    const deployment = (n: number) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: ${n}, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}\n`;
    const { dir } = gitRepo({ "policies/vap.yaml": limit, "deploy.yaml": deployment(8) });
    fs.writeFileSync(path.join(dir, "deploy.yaml"), deployment(9));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(report.findings.new.map((f) => f.message.split(" (")[0])).toEqual(["at most 5 replicas, not 9"]);
    expect(report.findings.fixed).toEqual([]);
  });

  it("a pull request changing a policy's parameter object is told so, and checked with the base's", async () => {
    const limited = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
    - expression: "object.spec.replicas <= int(params.data.max)"
      message: too many replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: replica-limits, namespace: default, parameterNotFoundAction: Deny}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limits, namespace: default}
data: {max: "5"}
`;
    const deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 8, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}\n";
    const { dir } = gitRepo({ "policies/vap.yaml": limited, "deploy.yaml": deployment });
    editFile(dir, "policies/vap.yaml", 'max: "5"', 'max: "10"');
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD", trustBaseConfig: true });
    const said = [...report.findings.new, ...report.findings.unchanged].map((f) => `${f.rule} ${f.message}`);
    expect(said).toContainEqual(
      expect.stringMatching(
        /^policy\/changed this pull request changes ConfigMap replica-limits, a parameter object of ValidatingAdmissionPolicy replica-limit/,
      ),
    );
    expect(said).toContainEqual(expect.stringMatching(/^policy\/replica-limit too many replicas/));
  });

  it("an object at base and head is an UPDATE with its base as oldObject", async () => {
    const transition = immutableConfigMapField("region");
    const cm = (region: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {region: ${region}}\n`;
    const { dir } = gitRepo({ "policies/vap.yaml": transition, "cm.yaml": cm("eu") });
    expect((await runDiff({ root: dir, paths: ["."], base: "HEAD" })).report.findings.new).toEqual([]);
    fs.writeFileSync(path.join(dir, "cm.yaml"), cm("us"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(report.findings.new.map((f) => `${f.rule} ${f.file}`)).toEqual(["policy/immutable-region cm.yaml"]);
  });
});

/** A policy that denies an UPDATE of a ConfigMap changing `data.<field>`. */
function immutableConfigMapField(field: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: immutable-${field}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [configmaps]}]
  validations:
    - expression: "oldObject.data.${field} == object.data.${field}"
      message: the ${field} of a ConfigMap never changes
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: immutable-${field}}
spec: {policyName: immutable-${field}, validationActions: [Deny]}
`;
}

describe("the XR a claim's controller creates", () => {
  const xrd = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xdbs.example.org}
spec:
  group: example.org
  names: {kind: XDb, plural: xdbs}
  claimNames: {kind: Db, plural: dbs}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: string, default: small}}}}}}
`;
  const composition = COMPOSITION.replace("{name: xapps}", "{name: xdbs}")
    .replace("kind: XApp}", "kind: XDb}")
    .replace('{fromFieldPath: spec.team, toFieldPath: "metadata.labels[team]"}', "{fromFieldPath: spec.size, toFieldPath: data.size}");
  const policy = (resources: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: db-size}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [example.org], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [${resources}]}]
  validations:
    - expression: "object.spec.size != 'small'"
      message: no small databases in production
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: db-size}
spec:
  policyName: db-size
  validationActions: [Deny]
  matchResources: {namespaceSelector: {matchLabels: {environment: production}}}
`;
  const claim = "apiVersion: example.org/v1\nkind: Db\nmetadata: {name: orders, namespace: default}\nspec: {}\n";

  it("is admitted as Crossplane creates it: cluster-scoped, no namespaceSelector skips it, the XRD's defaults applied", async () => {
    const { policy: found } = await check(
      tempRepo({ "xrd.yaml": xrd, "composition.yaml": composition, "claim.yaml": claim, "policies/vap.yaml": policy("xdbs") }),
    );
    expect(found.map((f) => `${f.severity} ${f.rule} ${f.file}`)).toEqual(["error policy/db-size claim.yaml"]);
    expect(found[0]!.message).toContain("XDb created for Db orders (claim.yaml)");
  });

  it("is not admitted when the claim itself is certainly denied: it is never created", async () => {
    const bound = policy("dbs, xdbs").replace("  matchResources: {namespaceSelector: {matchLabels: {environment: production}}}\n", "");
    const { policy: found } = await check(tempRepo({ "xrd.yaml": xrd, "composition.yaml": composition, "claim.yaml": claim, "policies/vap.yaml": bound }));
    expect(found.map((f) => `${f.severity} ${f.rule} ${f.file}`)).toEqual(["error policy/db-size claim.yaml"]);
    expect(found[0]!.message).not.toContain("created for");
  });
});

describe("rendered objects as UPDATEs", () => {
  it("a source whose name another file copies at head is still an UPDATE of what it rendered at base", async () => {
    const { dir } = gitRepo({ ...triples(1), "policies/vap.yaml": immutableConfigMapField("size") });
    // The copy makes the name repeat at head only: each copy is then known by its file.
    fs.copyFileSync(path.join(dir, "t0/xr.yaml"), path.join(dir, "t0/copy.yaml"));
    editFile(dir, "t0/xr.yaml", "size: large", "size: medium");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(report.findings.new.filter((f) => f.rule === "policy/immutable-size").map((f) => f.file)).toEqual(["t0/composition.yaml"]);
  });
});

describe("policies in the report", () => {
  it("the PR comment lists new policy violations first, and SARIF has one rule per policy", async () => {
    const { dir } = gitRepo({ "policies/vap.yaml": VAP(), "xrd.yaml": XRD, "composition.yaml": COMPOSITION, "xr.yaml": XR("a") });
    fs.writeFileSync(path.join(dir, "xr.yaml"), XR());
    fs.writeFileSync(path.join(dir, "bad.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {team: a}}\nspec: {replicas: many}\n");
    const { stdout } = await runCli(["diff", "--base", "HEAD"], dir);
    const policyAt = stdout.indexOf("**Policy violations new in this change**");
    expect(policyAt).toBeGreaterThan(0);
    expect(stdout.indexOf("**Other new findings**")).toBeGreaterThan(policyAt);
    expect(stdout.slice(policyAt)).toMatch(/policy\/require-team-label/);
    const sarif = JSON.parse((await runCli(["check", ".", "--format", "sarif"], dir)).stdout);
    const rule = sarif.runs[0].tool.driver.rules.find((r: { id: string }) => r.id === "policy/require-team-label");
    expect(rule).toMatchObject({
      shortDescription: { text: "the repository's admission policy require-team-label" },
      helpUri: expect.stringMatching(/docs\/policies\.md$/),
    });
  });
});

describe("CRD rules with optional syntax", () => {
  it("a CRD's x-kubernetes-validations rule written with .? and orValue is evaluated (on the policies' CEL), not refused", async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.example.org}
spec:
  group: example.org
  names: {kind: Pool, plural: pools}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.?replicas.orValue(1) <= 5"
                  message: at most five replicas
              properties:
                replicas: {type: integer}
`;
    const pool = (n: number) => `apiVersion: example.org/v1\nkind: Pool\nmetadata: {name: p${n}, namespace: default}\nspec: {replicas: ${n}}\n`;
    const { report } = await check(tempRepo({ "crd.yaml": crd, "a.yaml": pool(3), "b.yaml": pool(8) }));
    expect(report.findings.filter((f) => f.rule === "schema/cel").map((f) => `${f.severity} ${f.file} ${f.message}`)).toEqual([
      "error b.yaml at most five replicas",
    ]);
  });
});
