import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { main } from "../../src/main.js";
import { findingsFromKubeconform, findOnPath } from "../../src/validate/kubeconform.js";
import { loadFile } from "../../src/manifest/load.js";
import { REPO, tempRepo } from "../helpers.js";

async function cli(args: string[], cwd: string) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { cwd, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

const BAD = {
  "bad.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: f\nspec:\n  pakage: x\n",
  "warn.yaml": "apiVersion: a.example.org/v1\nkind: Thing\n",
};

describe("the validate command", () => {
  it("prints a clean report for examples/ and exits 0", async () => {
    const r = await cli(["check", "examples", "--no-cache"], REPO);
    expect(r.stdout).toContain("clean");
    expect(r.code).toBe(0);
  });

  it("exits 1 at the --fail-on threshold and 0 below it", async () => {
    const dir = tempRepo(BAD);
    expect((await cli(["validate", "--no-cache"], dir)).code).toBe(1);
    expect((await cli(["validate", "warn.yaml", "--no-cache"], dir)).code).toBe(0);
    expect((await cli(["validate", "warn.yaml", "--fail-on", "warning", "--no-cache"], dir)).code).toBe(1);
    expect((await cli(["validate", "--fail-on", "never", "--no-cache"], dir)).code).toBe(0);
  });

  it("exits 2 for usage and configuration errors, naming the problem", async () => {
    const dir = tempRepo({ ".composition-ci.yaml": "rulez: {}\n" });
    const r = await cli(["validate"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('.composition-ci.yaml:1: unknown key "rulez"');
    expect((await cli(["validate", "--format", "xml"], tempRepo({}))).code).toBe(2);
    expect((await cli(["validate", "--bogus"], tempRepo({}))).code).toBe(2);
    expect((await cli(["validate", "missing-dir"], tempRepo({}))).code).toBe(2);
  });

  it("groups text output by file with line:column", async () => {
    const r = await cli(["validate", "--no-cache"], tempRepo(BAD));
    expect(r.stdout).toMatch(/bad\.yaml\n(.*\n)?\s+6:3\s+error\s+unknown field `spec.pakage`; did you mean `spec.package`\?/);
    expect(r.stdout).toContain("2 errors, 1 warning");
  });

  it("writes versioned JSON", async () => {
    const r = await cli(["validate", "--format", "json", "--no-cache"], tempRepo(BAD));
    const json = JSON.parse(r.stdout);
    expect(json.version).toBe(1);
    expect(json.summary).toEqual({ files: 2, documents: 2, errors: 2, warnings: 1, infos: 0, suppressed: 0 });
    expect(json.findings[0]).toEqual({
      rule: "schema/required",
      severity: "error",
      message: "missing required field `spec.package`",
      file: "bad.yaml",
      line: 5,
      column: 1,
      apiVersion: "pkg.crossplane.io/v1",
      kind: "Function",
      name: "f",
      path: "spec",
    });
  });

  it("writes SARIF 2.1.0 that satisfies the SARIF schema's requirements for what it emits", async () => {
    const dir = tempRepo(BAD);
    const r = await cli(["validate", "--format", "sarif", "--output", "out/report.sarif", "--no-cache"], dir);
    expect(r.stdout).toBe("");
    const sarif = JSON.parse(fs.readFileSync(path.join(dir, "out/report.sarif"), "utf8"));
    const schema = JSON.parse(fs.readFileSync(path.join(REPO, "test/fixtures/sarif-2.1.0-subset.json"), "utf8"));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const result = sarif.runs[0].results.find((x: { ruleId: string }) => x.ruleId === "schema/unknown-field");
    expect(result.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: "bad.yaml" }, region: { startLine: 6, startColumn: 3 } });
    expect(result.partialFingerprints["compositionCi/v1"]).toMatch(/^[0-9a-f]{32}$/);
  });

  it("writes JUnit XML with one case per file, failed exactly when the run fails on one of its findings", async () => {
    const dir = tempRepo(BAD);
    const r = await cli(["validate", "--format", "junit", "--no-cache"], dir);
    expect(r.stdout).toContain('<testcase classname="composition-ci" name="bad.yaml">');
    expect(r.stdout).toContain('<testsuite name="validate" tests="2" failures="1" errors="0">');
    expect(r.stdout).toContain("<system-out>warning: warn.yaml:2:1 no schema for a.example.org/v1 Thing");
    const failuresAt = async (failOn: string) =>
      (await cli(["validate", "--format", "junit", "--fail-on", failOn], dir)).stdout.match(/<testsuite name="validate" tests="2" failures="(\d+)"/)![1];
    expect(await failuresAt("warning")).toBe("2");
    expect(await failuresAt("never")).toBe("0");
  });

  it("is deterministic: the same input gives byte-identical output", async () => {
    const dir = tempRepo(BAD);
    const a = await cli(["validate", "--format", "sarif", "--no-cache"], dir);
    const b = await cli(["validate", "--format", "sarif"], dir);
    expect(a.stdout).toBe(b.stdout);
  });
});

describe("kubeconform engine", () => {
  // Output shape as documented in kubeconform's README (-output json).
  const recorded = {
    resources: [
      {
        filename: "stdin",
        kind: "Deployment",
        name: "web",
        version: "apps/v1",
        status: "statusInvalid",
        msg: "problem validating schema",
        validationErrors: [
          { path: "/spec/replicas", msg: "expected integer or null, but got string" },
          { path: "/spec/foo", msg: "additionalProperties 'foo' not allowed" },
        ],
      },
      { filename: "stdin", kind: "Service", name: "svc", version: "v1", status: "statusValid" },
      { filename: "stdin", kind: "ConfigMap", name: "cm", version: "v1", status: "statusError", msg: "could not find schema for ConfigMap" },
    ],
  };
  const text =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: two\n  foo: 1\n---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n";

  it("turns kubeconform's JSON into findings with our own lines", () => {
    const manifests = loadFile("k.yaml", Buffer.from(text)).manifests;
    const findings = findingsFromKubeconform(recorded as never, manifests);
    expect(findings.map((f) => [f.rule, f.line, f.name])).toEqual([
      ["schema/kubeconform", 6, "web"],
      ["schema/unknown-field", 7, "web"],
      ["schema/missing", 14, "cm"],
    ]);
  });

  const binary = findOnPath("kubeconform");
  if (!binary) console.log("skipping the kubeconform integration test: no kubeconform binary on PATH");
  it.skipIf(!binary)("validates core kinds with a real kubeconform binary", async () => {
    const dir = tempRepo({ "d.yaml": text.split("---")[0] });
    const r = await cli(["validate", "--engine", "kubeconform", "--format", "json", "--no-cache"], dir);
    expect(JSON.parse(r.stdout).findings.length).toBeGreaterThan(0);
  });

  it("says clearly when kubeconform is not there", async () => {
    const r = await cli(["validate", "--engine", "kubeconform", "--kubeconform", "/nonexistent/kubeconform", "--no-cache"], tempRepo({ "d.yaml": text }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot run /nonexistent/kubeconform");
  });
});
