import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { appRepo, compositionTest } from "./fixture.js";

/** `composition-ci test` on CompositionTest objects (Upbound's meta.dev.upbound.io/v1alpha1). */

async function runJson(dir: string, ...args: string[]) {
  const r = await runCli(["test", "--format", "json", "--no-cache", ...args], dir);
  return { code: r.code, stderr: r.stderr, json: r.stdout ? JSON.parse(r.stdout) : undefined };
}

const DEPLOYMENT_OK = `  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      annotations: {crossplane.io/composition-resource-name: deployment}
    spec:
      replicas: 3
      template:
        spec:
          containers:
          - image: ghcr.io/example/shop:1.0
`;

describe("CompositionTest", () => {
  it("passes when every asserted object is rendered with what it asserts", async () => {
    const dir = appRepo({ "tests/app-test.yaml": compositionTest("deployment", DEPLOYMENT_OK) });
    const { code, json } = await runJson(dir);
    expect(json.tests).toHaveLength(1);
    expect(json.tests[0]).toMatchObject({ kind: "CompositionTest", name: "deployment", file: "tests/app-test.yaml", status: "passed", failures: [] });
    expect(json.summary).toMatchObject({ tests: 1, passed: 1, failed: 0 });
    expect(code).toBe(0);
    const text = await runCli(["test", "--no-cache"], dir);
    expect(text.stdout).toContain("ok    CompositionTest deployment  tests/app-test.yaml:1");
    expect(text.stdout).toContain("1 test: 1 passed");
  });

  it("fails on a field, naming the object, the field path, want and got, at the assertion's line", async () => {
    const assertion = DEPLOYMENT_OK.replace("replicas: 3", "replicas: 5");
    const dir = appRepo({ "tests/app-test.yaml": compositionTest("replicas", assertion) });
    const { code, json } = await runJson(dir);
    expect(code).toBe(1);
    const [test] = json.tests;
    expect(test.status).toBe("failed");
    expect(test.failures).toEqual([
      {
        object: "apps/v1 Deployment shop-* (composition resource deployment)",
        differences: [{ pointer: "/spec/replicas", path: "spec.replicas", want: 5, got: 3 }],
        file: "tests/app-test.yaml",
        line: 15, // `replicas: 5` in the test file
      },
    ]);
    const text = await runCli(["test", "--no-cache"], dir);
    expect(text.stdout).toContain("FAIL  CompositionTest replicas");
    expect(text.stdout).toContain("apps/v1 Deployment shop-* (composition resource deployment) (tests/app-test.yaml:15)\n        spec.replicas: want 5, got 3");
  });

  it("fails on an asserted object nothing renders, and says what was rendered of its kind", async () => {
    const dir = appRepo({
      "tests/app-test.yaml": compositionTest(
        "missing",
        `  - apiVersion: v1
    kind: Secret
    metadata: {name: credentials}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
`,
      ),
    });
    const { code, json } = await runJson(dir);
    expect(code).toBe(1);
    const messages = json.tests[0].failures.map((f: { message: string }) => f.message);
    expect(messages).toEqual([
      'missing: no rendered v1 Secret named "credentials"; nothing of this kind was rendered',
      'missing: no rendered v1 ConfigMap named "settings"; rendered of this kind: v1 ConfigMap shop-* (composition resource config)',
    ]);
    expect(json.tests[0].failures.map((f: { line: number }) => f.line)).toEqual([10, 13]);
  });

  it("allows extra rendered objects and extra fields: an assertion is a subset", async () => {
    const dir = appRepo({
      "tests/app-test.yaml": compositionTest(
        "subset",
        `  - apiVersion: v1
    kind: ConfigMap
    data: {size: large}
`,
      ),
    });
    const { code, json } = await runJson(dir);
    expect(json.tests[0].failures).toEqual([]);
    expect(code).toBe(0);
  });

  it("compares lists item by item, as up test does: a list of another length fails", async () => {
    const dir = appRepo({
      "tests/app-test.yaml": compositionTest(
        "lists",
        `  - apiVersion: apps/v1
    kind: Deployment
    spec:
      template:
        spec:
          containers:
          - name: web
          - name: sidecar
`,
      ),
    });
    const { code, json } = await runJson(dir);
    expect(code).toBe(1);
    expect(json.tests[0].failures[0].differences[0]).toMatchObject({
      path: "spec.template.spec.containers",
      message: "the list has 1 item, the assertion 2 (lists compare item by item, in order)",
    });
  });

  it("feeds observedResources to the pipeline: an observed composed resource keeps its name and its status reaches the XR", async () => {
    const observed = `  observedResources:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: shop-7xk2p
      namespace: default
      annotations: {crossplane.io/composition-resource-name: deployment}
    status: {readyReplicas: 3}
`;
    const assertions = `  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: shop-7xk2p}
  - apiVersion: example.org/v1
    kind: App
    metadata: {name: shop}
    status: {readyReplicas: 3}
`;
    const withObserved = appRepo({ "tests/app-test.yaml": compositionTest("observed", assertions, observed) });
    expect((await runJson(withObserved)).json.tests[0]).toMatchObject({ status: "passed" });
    // Without them, neither holds: the Deployment has only a generateName, the XR no readyReplicas.
    const without = appRepo({ "tests/app-test.yaml": compositionTest("observed", assertions) });
    const { code, json } = await runJson(without);
    expect(code).toBe(1);
    expect(
      json.tests[0].failures.map((f: { message?: string; differences?: { path: string }[] }) => f.message ?? f.differences!.map((d) => d.path).join()),
    ).toEqual([
      'missing: no rendered apps/v1 Deployment named "shop-7xk2p"; rendered of this kind: apps/v1 Deployment shop-* (composition resource deployment)',
      "status.readyReplicas",
    ]);
  });

  it("takes the XR, the Composition and extra resources inline, and passes context to the functions", async () => {
    const test = `apiVersion: meta.dev.upbound.io/v1alpha1
kind: CompositionTest
metadata: {name: inline}
spec:
  xr:
    apiVersion: example.org/v1
    kind: App
    metadata: {name: inline, namespace: default}
    spec: {image: nginx:2}
  composition:
    apiVersion: apiextensions.crossplane.io/v1
    kind: Composition
    metadata: {name: from-context}
    spec:
      compositeTypeRef: {apiVersion: example.org/v1, kind: App}
      mode: Pipeline
      pipeline:
      - step: resources
        functionRef: {name: function-patch-and-transform}
        input:
          apiVersion: pt.fn.crossplane.io/v1beta1
          kind: Resources
          environment:
            patches:
            - {type: FromCompositeFieldPath, fromFieldPath: spec.image, toFieldPath: image}
          resources:
          - name: config
            base: {apiVersion: v1, kind: ConfigMap}
            patches:
            - {type: FromEnvironmentFieldPath, fromFieldPath: region, toFieldPath: data.region}
            - {type: FromEnvironmentFieldPath, fromFieldPath: image, toFieldPath: data.image}
  context:
    apiextensions.crossplane.io/environment: {region: eu-west-1}
  assertResources:
  - apiVersion: v1
    kind: ConfigMap
    data: {region: eu-west-1, image: "nginx:2"}
  - apiVersion: render.crossplane.io/v1beta1
    kind: Context
    fields:
      apiextensions.crossplane.io/environment: {region: eu-west-1, image: "nginx:2"}
`;
    const { code, json } = await runJson(appRepo({ "tests/inline.yaml": test }));
    expect(json.tests[0].failures).toEqual([]);
    expect(json.tests[0].source).toBe("App inline (inline) via Composition from-context (tests/inline.yaml)");
    expect(code).toBe(0);
  });

  it("validate: true checks the rendered objects against their schemas", async () => {
    const composition = (validate: boolean) => `apiVersion: meta.dev.upbound.io/v1alpha1
kind: CompositionTest
metadata: {name: schema}
spec:
  xrPath: examples/app.yaml
  validate: ${validate}
  composition:
    apiVersion: apiextensions.crossplane.io/v1
    kind: Composition
    metadata: {name: bad-replicas}
    spec:
      compositeTypeRef: {apiVersion: example.org/v1, kind: App}
      mode: Pipeline
      pipeline:
      - step: resources
        functionRef: {name: function-patch-and-transform}
        input:
          apiVersion: pt.fn.crossplane.io/v1beta1
          kind: Resources
          resources:
          - name: deployment
            base:
              apiVersion: apps/v1
              kind: Deployment
              spec:
                selector: {matchLabels: {app: web}}
                template:
                  metadata: {labels: {app: web}}
                  spec: {containers: [{name: web, image: nginx}]}
            patches:
            - {type: FromCompositeFieldPath, fromFieldPath: spec.size, toFieldPath: spec.replicas}
  assertResources:
  - apiVersion: apps/v1
    kind: Deployment
    spec: {replicas: large}
`;
    expect((await runJson(appRepo({ "tests/schema.yaml": composition(false) }))).json.tests[0].status).toBe("passed");
    const { code, json } = await runJson(appRepo({ "tests/schema.yaml": composition(true) }));
    expect(code).toBe(1);
    expect(json.tests[0].failures).toHaveLength(1);
    expect(json.tests[0].failures[0]).toMatchObject({
      object: "apps/v1 Deployment shop-* (composition resource deployment)",
      file: "tests/schema.yaml",
      line: 6,
    });
    expect(json.tests[0].failures[0].message).toMatch(/^schema: at spec\.replicas: .*integer/);
  });

  it("a test that cannot run (a path that does not exist) errs; a test file that cannot be read exits 2 with its line", async () => {
    const missing = compositionTest("missing-xr", DEPLOYMENT_OK).replace("xrPath: examples/app.yaml", "xrPath: examples/nope.yaml");
    const errs = await runJson(appRepo({ "tests/app-test.yaml": missing }));
    expect(errs.code).toBe(1);
    expect(errs.json.tests[0]).toMatchObject({
      status: "error",
      failures: [{ message: expect.stringContaining("examples/nope.yaml: no such file or directory") }],
    });

    const broken = `apiVersion: meta.dev.upbound.io/v1alpha1\nkind: CompositionTest\nmetadata:\n  name: broken\nspec:\n  xrPath: [examples/app.yaml\n`;
    const unreadable = await runCli(["test", "--no-cache"], appRepo({ "tests/broken.yaml": broken }));
    expect(unreadable.code).toBe(2);
    expect(unreadable.stdout).toMatch(/UNREADABLE tests\/broken\.yaml:\d+: cannot read the test file: /);

    const both = compositionTest("both", DEPLOYMENT_OK, "  xr: {apiVersion: example.org/v1, kind: App, metadata: {name: x}}\n");
    const malformed = await runJson(appRepo({ "tests/both.yaml": both }));
    expect(malformed.code).toBe(2);
    expect(malformed.json.unreadable).toEqual([
      { file: "tests/both.yaml", line: 6, message: "CompositionTest both: only one of 'xr' or 'xrPath' may be specified" },
    ]);

    const typo = compositionTest("typo", DEPLOYMENT_OK).replace("assertResources:", "assertResource:");
    expect((await runJson(appRepo({ "tests/typo.yaml": typo }))).json.unreadable[0].message).toContain("unknown field spec.assertResource");
  });

  it("a test whose function composition-ci may not run here is skipped with the fix, never failed", async () => {
    const test = compositionTest("docker-only", "  - {apiVersion: v1, kind: ConfigMap}\n").replace(
      "  compositionPath: apis/composition.yaml\n",
      `  composition:
    apiVersion: apiextensions.crossplane.io/v1
    kind: Composition
    metadata: {name: custom}
    spec:
      compositeTypeRef: {apiVersion: example.org/v1, kind: App}
      mode: Pipeline
      pipeline:
      - {step: custom, functionRef: {name: function-custom}}
`,
    );
    const fn = "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-custom}\nspec: {package: ghcr.io/acme/function-custom:v1}\n";
    const dir = appRepo({ "tests/app-test.yaml": test, "apis/custom-function.yaml": fn });
    const { code, json } = await runJson(dir);
    expect(json.tests[0]).toMatchObject({
      status: "skipped",
      note: expect.stringMatching(/^not rendered: step "custom": function function-custom .*To render it: /),
    });
    expect(code).toBe(0);
    const check = await runCli(["check", "--format", "json", "--no-cache"], dir);
    expect(JSON.parse(check.stdout).findings.filter((f: { rule: string }) => f.rule.startsWith("test/"))).toEqual([]);
  });

  it("reads CompositionTests written as JSON", async () => {
    const test = {
      apiVersion: "meta.dev.upbound.io/v1alpha1",
      kind: "CompositionTest",
      metadata: { name: "json" },
      spec: { xrPath: "examples/app.yaml", assertResources: [{ apiVersion: "v1", kind: "ConfigMap", data: { tier: "web", size: "large" } }] },
    };
    const { code, json } = await runJson(appRepo({ "tests/app-test.json": JSON.stringify(test, null, 2) }));
    expect(json.tests[0]).toMatchObject({ name: "json", status: "passed" });
    expect(code).toBe(0);
  });
});
