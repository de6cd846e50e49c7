import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { appRepo, COMPOSITION } from "./fixture.js";

/**
 * Crossplane's CompositionTest (test.crossplane.io/v1alpha1, design-doc-developer-experience-tooling):
 * spec.tests[] with patches, inputs and chainsaw assertions, one result per case.
 */

const TEST = (cases: string) => `apiVersion: test.crossplane.io/v1alpha1
kind: CompositionTest
metadata:
  name: app
spec:
  tests:
${cases}`;

const CASE = (name: string, assertions: string, patches = "") => `    - name: "${name}"
${patches}      inputs:
        xr: {path: examples/app.yaml}
        composition: {path: apis/composition.yaml}
        functions: {path: apis/functions.yaml}
      assertions:
        - type: chainsaw
          chainsaw:
            resources:
${assertions}`;

const DEPLOYMENT = (replicas: number) => `              - apiVersion: apps/v1
                kind: Deployment
                metadata:
                  annotations: {crossplane.io/composition-resource-name: deployment}
                spec: {replicas: ${replicas}}
`;

async function run(files: Record<string, string>) {
  const r = await runCli(["test", "--format", "json", "--no-cache"], appRepo(files));
  return {
    code: r.code,
    stderr: r.stderr,
    json: JSON.parse(r.stdout || "{}") as {
      tests: {
        name: string;
        status: string;
        note?: string;
        failures: { object?: string; message?: string; line?: number; differences?: { path: string }[] }[];
      }[];
      unreadable: { line: number; message: string }[];
    },
  };
}

describe("test.crossplane.io CompositionTest", () => {
  it("each case renders its XR with the listed Functions and passes when every chainsaw resource matches a rendered one", async () => {
    const { code, json } = await run({ "tests/app.yaml": TEST(CASE("three replicas", DEPLOYMENT(3))) });
    expect(json.tests.map((t) => [t.name, t.status])).toEqual([["app/three replicas", "passed"]]);
    expect(code).toBe(0);
  });

  it("patches: addFields sets a field of the XR (as a string), removeFields takes one away; a mismatch fails at the assertion's line", async () => {
    const removed = CASE("defaults apply", DEPLOYMENT(2), "      patches:\n        xrd: {path: apis/xrd.yaml}\n        removeFields: [spec.replicas]\n");
    const added = CASE(
      "a size from the patch",
      "              - apiVersion: v1\n                kind: ConfigMap\n                data: {size: tiny}\n",
      "      patches:\n        addFields: {spec.size: tiny}\n",
    );
    const wrong = CASE("wrong count", DEPLOYMENT(5));
    const { code, json } = await run({ "tests/app.yaml": TEST(removed + added + wrong) });
    expect(json.tests.map((t) => [t.name, t.status])).toEqual([
      ["app/defaults apply", "passed"],
      ["app/a size from the patch", "passed"],
      ["app/wrong count", "failed"],
    ]);
    const failure = json.tests[2]!.failures[0]!;
    expect(failure.differences!.map((d) => d.path)).toEqual(["spec.replicas"]);
    expect(failure.line).toBeGreaterThan(20);
    expect(code).toBe(1);
  });

  it("what composition-ci cannot evaluate is said, not passed or failed: chainsaw expressions, other assertion types", async () => {
    const expression = "              - apiVersion: apps/v1\n                kind: Deployment\n                (spec.replicas > `1`): true\n";
    const { code, json } = await run({ "tests/app.yaml": TEST(CASE("expression", expression)) });
    expect(json.tests[0]).toMatchObject({ status: "skipped", note: expect.stringContaining("chainsaw's expression (spec.replicas > `1`)") });
    expect(code).toBe(0);
  });

  it("a case without its inputs, or with both raw and path, is unreadable at its line (exit 2)", async () => {
    const bad = TEST(
      "    - name: no inputs\n    - name: both\n      inputs:\n        xr: {path: examples/app.yaml, raw: {kind: App}}\n        composition: {path: apis/composition.yaml}\n        functions: {path: apis/functions.yaml}\n",
    );
    const { code, json } = await run({ "tests/app.yaml": bad });
    expect(json.unreadable).toEqual([
      { file: "tests/app.yaml", line: 7, message: "CompositionTest app: spec.tests[0].inputs is required (xr, composition, functions)" },
    ]);
    expect(code).toBe(2);
  });

  it("a Function that exists nowhere (not listed, not a built-in) is a test error naming inputs.functions", async () => {
    const acme = COMPOSITION.replace("name: apps.example.org\nspec", "name: acme\nspec").replace(
      "  - step: ready\n    functionRef: {name: function-auto-ready}\n",
      "  - step: acme\n    functionRef: {name: function-acme}\n",
    );
    expect(acme).toContain("function-acme");
    const { code, json } = await run({
      "apis/acme-composition.yaml": acme,
      "tests/app.yaml": TEST(
        CASE("unknown function", DEPLOYMENT(3)).replace("composition: {path: apis/composition.yaml}", "composition: {path: apis/acme-composition.yaml}"),
      ),
    });
    expect(json.tests[0]!.status).toBe("error");
    expect(json.tests[0]!.failures[0]!.message).toContain("inputs.functions lists the Functions a case runs");
    expect(code).toBe(1);
  });
});
