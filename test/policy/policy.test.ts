import { describe, expect, it } from "vitest";
import { loadFile } from "../../src/manifest/load.js";
import { crdResources, evaluatePolicies, loadPolicies, type PolicyTarget } from "../../src/policy/index.js";

/** Policies and objects written as YAML files, loaded as the repository's are. */
function load(policies: string, objects = "") {
  const policyManifests = loadFile("policies.yaml", Buffer.from(policies)).manifests;
  const objectManifests = objects ? loadFile("objects.yaml", Buffer.from(objects)).manifests : [];
  const { policies: set, findings } = loadPolicies([...policyManifests, ...objectManifests]);
  const targets: PolicyTarget[] = objectManifests.map((m) => ({ object: m.object, locate: (p) => ({ file: m.file, ...m.locate(p) }) }));
  return { set, findings, targets, objectManifests };
}

const VAP = (name: string, spec: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
${spec.replace(/^/gm, "  ")}
`;

const BINDING = (policy: string, spec = "validationActions: [Deny]") => `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${policy}-binding
spec:
  policyName: ${policy}
${spec.replace(/^/gm, "  ")}
`;

const BUCKETS = `apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: public
  labels:
    team: a
spec:
  forProvider:
    region: us-east-1
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: private
spec:
  forProvider:
    region: eu-west-1
`;

const REGION_RULES = `matchConstraints:
  resourceRules:
  - apiGroups: [s3.aws.upbound.io]
    apiVersions: ["*"]
    operations: [CREATE, UPDATE]
    resources: [buckets]
validations:
- expression: object.spec.forProvider.region.startsWith('eu-')
  message: buckets live in the EU
  fieldPath: .spec.forProvider.region`;

const bucketsResource = (apiVersion: string, kind: string) =>
  kind === "Bucket" && apiVersion.startsWith("s3.aws.upbound.io/") ? { resource: "buckets", namespaced: false } : undefined;

describe("ValidatingAdmissionPolicy matching", () => {
  it("matches resourceRules by the plural resourceFor gives, and reports at the validation's fieldPath", () => {
    const { set, findings, targets } = load(VAP("eu-only", REGION_RULES) + BINDING("eu-only"), BUCKETS);
    expect(findings).toEqual([]);
    const out = evaluatePolicies(set, targets, { resourceFor: bucketsResource });
    expect(out.findings).toHaveLength(1);
    expect(out.findings[0]).toMatchObject({
      rule: "policy/eu-only",
      severity: "error",
      file: "objects.yaml",
      line: 9,
      name: "public",
      kind: "Bucket",
      path: "spec.forProvider.region",
    });
    expect(out.findings[0]!.message).toContain("buckets live in the EU");
    expect(out.explain).toEqual([expect.objectContaining({ policy: "eu-only", matched: 2, passed: 1, failed: 1 })]);
  });

  it("falls back to Kubernetes' plural guess, and a wrong plural matches nothing", () => {
    const wrong = REGION_RULES.replace("resources: [buckets]", "resources: [bucketz]");
    const guessed = evaluatePolicies(load(VAP("eu-only", REGION_RULES) + BINDING("eu-only"), BUCKETS).set, load("", BUCKETS).targets);
    expect(guessed.findings.map((f) => f.name)).toEqual(["public"]);
    const { set, targets } = load(VAP("eu-only", wrong) + BINDING("eu-only"), BUCKETS);
    expect(evaluatePolicies(set, targets).explain[0]!.matched).toBe(0);
  });

  it("takes plurals and scope from the repository's CRDs", () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Database, plural: databases}
`;
    const policy =
      VAP(
        "ns-only",
        `matchConstraints:
  resourceRules:
  - {apiGroups: [example.org], apiVersions: ["*"], operations: ["*"], resources: [databases], scope: Namespaced}
validations:
- expression: "false"`,
      ) + BINDING("ns-only");
    const { set, targets } = load(policy, "apiVersion: example.org/v1\nkind: Database\nmetadata: {name: db}\n");
    const resourceFor = crdResources([loadFile("crd.yaml", Buffer.from(crd)).manifests[0]!.object]);
    expect(evaluatePolicies(set, targets, { resourceFor }).findings).toHaveLength(1);
    // Cluster-scoped by the guess (no namespace, no CRD): the Namespaced rule does not match.
    expect(evaluatePolicies(set, targets).findings).toHaveLength(0);
  });

  it("honours excludeResourceRules, resourceNames, operations and subresources", () => {
    const spec = (extra: string, exclude = "") => `matchConstraints:
  resourceRules:
  - {apiGroups: [s3.aws.upbound.io], apiVersions: ["*"], operations: [CREATE], resources: ["buckets"]${extra}}
${exclude}
validations:
- expression: "false"`;
    const run = (policySpec: string, target?: Partial<PolicyTarget>) => {
      const { set, targets } = load(VAP("p", policySpec) + BINDING("p"), BUCKETS);
      return evaluatePolicies(
        set,
        targets.map((t) => ({ ...t, ...target })),
        { resourceFor: bucketsResource },
      ).findings.map((f) => f.name);
    };
    expect(run(spec(""))).toEqual(["public", "private"]);
    expect(run(spec(", resourceNames: [private]"))).toEqual(["private"]);
    expect(run(spec(""), { operation: "DELETE" })).toEqual([]);
    expect(run(spec(""), { subResource: "status" })).toEqual([]);
    expect(
      run(spec("", `  excludeResourceRules:\n  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"], resourceNames: [public]}`)),
    ).toEqual(["private"]);
  });

  it("selects by objectSelector, and by namespaceSelector on the Namespace objects given", () => {
    const spec = (selector: string) => `matchConstraints:
  resourceRules:
  - {apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}
${selector}
validations:
- expression: "false"
  message: denied`;
    const objects = `apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {env: prod}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: prod, labels: {app: x}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: dev}
`;
    const names = (selector: string) => {
      const { set, targets } = load(VAP("p", spec(selector)) + BINDING("p"), objects);
      return evaluatePolicies(set, targets);
    };
    expect(names("  objectSelector: {matchLabels: {app: x}}").findings.map((f) => f.name)).toEqual(["a"]);
    const byNamespace = names("  namespaceSelector: {matchLabels: {env: prod}}");
    expect(byNamespace.findings.filter((f) => f.severity === "error").map((f) => f.name)).toEqual(["a"]);
    // No Namespace object for "dev": not evaluated, said once at the policy's line.
    const info = byNamespace.findings.filter((f) => f.severity === "info");
    expect(info).toEqual([expect.objectContaining({ file: "policies.yaml", line: 1, rule: "policy/p" })]);
    expect(info[0]!.message).toMatch(/not evaluated: needs the cluster.*namespace "dev"/);
    // The API server's name label needs no Namespace object.
    expect(
      names("  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [prod]}]}").findings.map((f) => f.name),
    ).toEqual(["b"]);
  });
});

describe("params, bindings and actions", () => {
  const policy = VAP(
    "max-replicas",
    `paramKind: {apiVersion: v1, kind: ConfigMap}
matchConstraints:
  resourceRules:
  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
validations:
- expression: object.spec.replicas <= int(params.data.max)
  messageExpression: "'replicas ' + string(object.spec.replicas) + ' over ' + params.data.max"`,
  );
  const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec: {replicas: ${replicas}}
`;
  const params = `apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: team, labels: {limits: "yes"}}
data: {max: "3"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: strict, namespace: team, labels: {limits: "yes"}}
data: {max: "1"}
`;
  const run = (binding: string, replicas = 2) => {
    const { set, findings } = load(policy + binding + "---\n" + params);
    const object = loadFile("d.yaml", Buffer.from(deployment(replicas))).manifests[0]!.object;
    return { findings, out: evaluatePolicies(set, [{ object }]) };
  };

  it("reads the param a paramRef names, with messageExpression", () => {
    const { out } = run(BINDING("max-replicas", "validationActions: [Deny]\nparamRef: {name: limits, parameterNotFoundAction: Deny}"), 5);
    expect(out.findings.map((f) => f.message)).toEqual([expect.stringContaining("replicas 5 over 3")]);
  });

  it("evaluates every param a selector finds", () => {
    const { out } = run(BINDING("max-replicas", "validationActions: [Deny]\nparamRef: {selector: {matchLabels: {limits: 'yes'}}}"), 2);
    expect(out.findings.map((f) => f.message)).toEqual([expect.stringContaining("replicas 2 over 1")]);
  });

  it("denies or skips when the param is not there, as parameterNotFoundAction says", () => {
    const deny = run(BINDING("max-replicas", "validationActions: [Deny]\nparamRef: {name: nope, parameterNotFoundAction: Deny}"));
    expect(deny.findings).toEqual([
      expect.objectContaining({ severity: "warning", file: "policies.yaml", message: expect.stringContaining("not among the input") }),
    ]);
    expect(deny.out.findings.map((f) => f.message)).toEqual([expect.stringContaining("no params found")]);
    const allow = run(BINDING("max-replicas", "validationActions: [Deny]\nparamRef: {name: nope, parameterNotFoundAction: Allow}"));
    expect(allow.out.findings).toEqual([]);
    expect(allow.out.explain[0]).toMatchObject({ matched: 1, skipped: 1 });
  });

  it("maps Deny, Warn and Audit to error, warning and info", () => {
    const severities = ["Deny", "Warn", "Audit"].map(
      (action) => run(BINDING("max-replicas", `validationActions: [${action}]\nparamRef: {name: limits}`), 9).out.findings[0]!.severity,
    );
    expect(severities).toEqual(["error", "warning", "info"]);
  });
});

describe("requests", () => {
  const immutable =
    VAP(
      "immutable-region",
      `matchConstraints:
  resourceRules:
  - {apiGroups: [s3.aws.upbound.io], apiVersions: ["*"], operations: [UPDATE], resources: [buckets]}
validations:
- expression: object.spec.forProvider.region == oldObject.spec.forProvider.region
  message: region is immutable
  reason: Forbidden`,
    ) + BINDING("immutable-region");

  it("checks an UPDATE against its oldObject", () => {
    const { set, targets } = load(immutable, BUCKETS);
    const [head, base] = [targets[0]!, targets[1]!];
    const moved = evaluatePolicies(set, [{ ...head, oldObject: base.object }], { resourceFor: bucketsResource });
    expect(moved.findings.map((f) => f.message)).toEqual([expect.stringContaining("region is immutable")]);
    expect(evaluatePolicies(set, [{ ...head, oldObject: head.object }], { resourceFor: bucketsResource }).findings).toEqual([]);
    expect(evaluatePolicies(set, [head], { resourceFor: bucketsResource }).explain[0]!.matched).toBe(0);
  });

  it("names what rendered an object and places it where its locate says", () => {
    const { set } = load(VAP("eu-only", REGION_RULES) + BINDING("eu-only"));
    const object = loadFile("x.yaml", Buffer.from(BUCKETS)).manifests[0]!.object;
    const out = evaluatePolicies(
      set,
      [{ object, source: "rendered from XR default/my-bucket", locate: () => ({ file: "apis/composition.yaml", line: 42, column: 7 }) }],
      { resourceFor: bucketsResource },
    );
    expect(out.findings[0]).toMatchObject({ file: "apis/composition.yaml", line: 42, column: 7 });
    expect(out.findings[0]!.message).toContain("rendered from XR default/my-bucket");
  });

  it("gives several validations their index in the rule id", () => {
    const two = REGION_RULES + "\n- expression: has(object.metadata.labels)\n  message: labels";
    const { set, targets } = load(VAP("two", two) + BINDING("two"), BUCKETS);
    expect(
      evaluatePolicies(set, targets, { resourceFor: bucketsResource })
        .findings.map((f) => `${f.rule} ${f.name}`)
        .sort(),
    ).toEqual(["policy/two/0 public", "policy/two/1 private"]);
  });
});

describe("bad policies are findings at their own line, and the run goes on", () => {
  it("reports CEL that does not compile, and a binding to a policy that is not there", () => {
    const { findings, set, targets } = load(
      VAP("broken", REGION_RULES.replace("object.spec.forProvider.region.startsWith('eu-')", "object.spec.(")) + BINDING("missing"),
      BUCKETS,
    );
    expect(findings.map((f) => [f.rule, f.line, f.severity])).toEqual([
      ["policy/broken", 13, "error"],
      ["policy/missing", 22, "error"],
    ]);
    expect(findings[0]!.message).toMatch(/does not compile/);
    expect(() => evaluatePolicies(set, targets, { resourceFor: bucketsResource })).not.toThrow();
  });

  it("reports an expression that throws, under failurePolicy Fail, at the policy", () => {
    const { set, targets } = load(
      VAP("throws", REGION_RULES.replace("object.spec.forProvider.region.startsWith('eu-')", "object.spec.nope == 1")) + BINDING("throws"),
      BUCKETS,
    );
    const out = evaluatePolicies(set, targets, { resourceFor: bucketsResource });
    expect(out.findings).toEqual([
      expect.objectContaining({
        file: "policies.yaml",
        line: 13,
        severity: "error",
        message: expect.stringMatching(/resulted in error: no such key: nope.*and 1 more/),
      }),
    ]);
    expect(out.explain[0]).toMatchObject({ errors: 2 });
  });

  it("does not run an expression over its cost budget", () => {
    const policy =
      VAP(
        "costly",
        `matchConstraints:
  resourceRules:
  - {apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}
validations:
- expression: object.data.items.all(a, object.data.items.all(b, object.data.items.all(c, a + b + c != '')))`,
      ) + BINDING("costly");
    const items = Array.from({ length: 200 }, (_, i) => `x${i}`);
    const { set } = load(policy);
    const out = evaluatePolicies(set, [{ object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data: { items } } }]);
    expect(out.findings).toEqual([expect.objectContaining({ line: 10, severity: "warning", message: expect.stringContaining("over the cost budget") })]);
  });

  it("says what needs the cluster (the authorizer) instead of passing or failing", () => {
    const policy =
      VAP(
        "authz",
        `matchConstraints:
  resourceRules:
  - {apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}
validations:
- expression: authorizer.group('').resource('secrets').check('get').allowed()`,
      ) + BINDING("authz");
    const { set } = load(policy);
    const out = evaluatePolicies(set, [{ object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } }]);
    expect(out.findings).toEqual([expect.objectContaining({ severity: "info", message: expect.stringContaining("authorizer needs the cluster") })]);
    expect(out.explain[0]).toMatchObject({ notEvaluated: 1, failed: 0, passed: 0 });
  });

  it("reports a Kyverno condition operator it does not know", () => {
    const { findings } = load(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: odd}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    validate:
      deny:
        conditions:
          any:
          - {key: "{{ request.object.metadata.name }}", operator: Like, value: x}
`);
    expect(findings).toEqual([expect.objectContaining({ rule: "policy/odd", line: 10, message: expect.stringContaining('"Like"') })]);
  });
});

describe("Kyverno", () => {
  const labels = (action: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: ${action}
  rules:
  - name: team-label
    match:
      any:
      - resources: {kinds: ["s3.aws.upbound.io/*/Bucket"]}
    validate:
      message: "{{ request.object.metadata.name }} needs a team label"
      pattern:
        metadata:
          labels:
            team: "?*"
`;

  it("checks a pattern and maps Enforce and Audit to error and warning", () => {
    for (const [action, severity] of [
      ["Enforce", "error"],
      ["Audit", "warning"],
    ]) {
      const { set, targets } = load(labels(action), BUCKETS);
      const out = evaluatePolicies(set, targets);
      expect(out.findings).toEqual([
        expect.objectContaining({ rule: "policy/require-team/team-label", severity, name: "private", file: "objects.yaml", line: 13 }),
      ]);
      expect(out.findings[0]!.message).toContain("private needs a team label");
    }
  });

  it("says a context entry that calls the API server needs the cluster", () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: lookup}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Bucket]}}]}
    context:
    - name: quota
      apiCall: {urlPath: /api/v1/namespaces}
    validate:
      deny:
        conditions:
          any: [{key: "{{ quota }}", operator: Equals, value: x}]
`;
    const { set, targets } = load(policy, BUCKETS);
    const out = evaluatePolicies(set, targets);
    expect(out.findings).toEqual([
      expect.objectContaining({
        severity: "info",
        file: "policies.yaml",
        message: expect.stringMatching(/not evaluated: context entry "quota" \(apiCall\) needs the cluster \(for Bucket public and 1 more\)/),
      }),
    ]);
  });

  it("runs a Kyverno ValidatingPolicy with its own validationActions", () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: eu}
spec:
  validationActions: [Warn]
  matchConstraints:
    resourceRules:
    - {apiGroups: [s3.aws.upbound.io], apiVersions: ["*"], operations: [CREATE], resources: [buckets]}
  validations:
  - expression: object.spec.forProvider.?region.orValue('') .startsWith('eu-')
    message: EU only
`;
    const { set, targets } = load(policy, BUCKETS);
    expect(evaluatePolicies(set, targets).findings).toEqual([expect.objectContaining({ rule: "policy/eu", severity: "warning", name: "public" })]);
  });
});

describe("Gatekeeper", () => {
  const template = `apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8srequiredlabels}
spec:
  crd:
    spec:
      names: {kind: K8sRequiredLabels}
  targets:
  - target: admission.k8s.gatekeeper.sh
    code:
    - engine: K8sNativeValidation
      source:
        variables:
        - name: missing
          expression: variables.params.labels.filter(l, !(l in variables.anyObject.metadata.?labels.orValue({})))
        validations:
        - expression: size(variables.missing) == 0
          messageExpression: "'missing labels: ' + variables.missing.join(', ')"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sRequiredLabels
metadata: {name: buckets-need-team}
spec:
  enforcementAction: warn
  match:
    kinds: [{apiGroups: [s3.aws.upbound.io], kinds: [Bucket]}]
  parameters: {labels: [team]}
`;

  it("runs a K8sNativeValidation template through its Constraints, with params", () => {
    const { set, findings, targets } = load(template, BUCKETS);
    expect(findings).toEqual([]);
    const out = evaluatePolicies(set, targets);
    expect(out.findings).toEqual([
      expect.objectContaining({
        rule: "policy/buckets-need-team",
        severity: "warning",
        name: "private",
        message: expect.stringContaining("missing labels: team"),
      }),
    ]);
  });

  it("says a Constraint without its template, and a Rego-only template, instead of passing", () => {
    const orphan = load(template.slice(template.indexOf("---") + 4));
    expect(orphan.findings).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringContaining("no ConstraintTemplate") })]);
    const rego = template.replace(/ {4}code:[\s\S]*?---/, "    rego: 'package x'\n---");
    const { set, targets } = load(rego, BUCKETS);
    const out = evaluatePolicies(set, targets);
    expect(out.findings).toEqual([]);
    expect(out.explain[0]!.note).toMatch(/Rego only/);
  });
});
