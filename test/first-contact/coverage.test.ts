import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli, tempRepo } from "../helpers.js";

/** Issue 31, class 11: a report says what it rendered and tested, not only what it found. */

const FILES = {
  "xrd.yaml": `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]
`,
  "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
    - step: kcl
      functionRef: {name: function-kcl}
      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: "items = []"}}
`,
  "functions.yaml":
    "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kcl}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.11.0}\n",
  "xr.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a, namespace: default}\nspec: {}\n",
};

describe("check says what it rendered", () => {
  it("the JSON report counts the sources rendered, not rendered (by what) and failed", async () => {
    const { stdout } = await runCli(["check", ".", "--format", "json", "--offline"], tempRepo(FILES));
    const report = JSON.parse(stdout);
    expect(report.sources).toEqual({ total: 1, rendered: 0, notRendered: 1, failed: 0, notRenderedBecause: { "function-kcl": 1 } });
    expect(report.tests).toBeUndefined();
  });

  it("the text report ends with the same line, after the findings", async () => {
    const { stdout } = await runCli(["check", ".", "--offline"], tempRepo(FILES));
    const lines = stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("rendered 0 of 1 source, 1 not rendered (function-kcl: 1)");
    expect(lines.at(-2)).toMatch(/^0 errors, \d+ warnings?/);
  });

  it("validate, which renders nothing, says nothing of rendering", async () => {
    const { stdout } = await runCli(["validate", ".", "--format", "json", "--offline"], tempRepo(FILES));
    expect(JSON.parse(stdout).sources).toBeUndefined();
  });
});

describe("the CLI says what went wrong", () => {
  it("an unknown flag names the command's --help", async () => {
    const { code, stderr } = await runCli(["check", "--bogus"], tempRepo({}));
    expect(code).toBe(2);
    expect(stderr).toContain("(run 'composition-ci check --help' for its options)");
  });

  it("composition-ci test exits 1 when a test could not run because its function exists nowhere", async () => {
    const dir = tempRepo({});
    fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
    expect((await runCli(["test"], dir)).code).toBe(0);
    const composition = path.join(dir, "crossplane/composition.yaml");
    fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace(/name: function-patch-and-transform/g, "name: function-nope"));
    const { code, stdout } = await runCli(["test"], dir);
    expect(code).toBe(1);
    expect(stdout).toContain("could not run");
  });
});
