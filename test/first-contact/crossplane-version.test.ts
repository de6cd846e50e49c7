import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

/** Issue 31, class 10: which Crossplane a repository is written for is evidence, not a default to hold it to. */

const LEGACY = (name: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: ${name}}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XDB}
  resources:
    - name: cm
      base: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}
`;
const XRD_V1 = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xdbs.example.org}
spec:
  group: example.org
  names: {kind: XDB, plural: xdbs}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]
`;
const PROVIDER = "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: aws}\nspec: {package: crossplane/provider-aws:v0.29.0}\n";

async function check(files: Record<string, string>, ...flags: string[]) {
  const { stdout } = await runCli(["check", ".", "--format", "json", ...flags], tempRepo(files));
  return JSON.parse(stdout).findings as { rule: string; severity: string; message: string }[];
}

describe("a Crossplane v1 repository under the v2 default", () => {
  it("is said once, with the count and both fixes; its v1-only forms are warnings, not one error each", async () => {
    const findings = await check({ "xrd.yaml": XRD_V1, "a.yaml": LEGACY("a"), "b.yaml": LEGACY("b"), "provider.yaml": PROVIDER });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    const summary = findings.filter((f) => f.rule === "crossplane/v1-repository");
    expect(summary).toHaveLength(1);
    expect(summary[0]!.message).toContain("2 mode: Resources Compositions and 1 other form Crossplane v2 removed");
    expect(summary[0]!.message).toContain("crossplane beta convert pipeline-composition");
    expect(summary[0]!.message).toContain("crossplaneVersion: 1");
    expect(findings.filter((f) => f.rule === "composition/mode-resources").map((f) => f.severity)).toEqual(["warning", "warning"]);
  });

  it("text output says the legacy Compositions once, with how many more there are", async () => {
    const { stdout } = await runCli(["check", "."], tempRepo({ "xrd.yaml": XRD_V1, "a.yaml": LEGACY("a"), "b.yaml": LEGACY("b"), "c.yaml": LEGACY("c") }));
    expect(stdout.match(/composition\/mode-resources/g)).toHaveLength(1);
    expect(stdout).toContain("(and 2 more like it)");
  });

  it("a repository that also has v2-only forms is a v2 repository: a legacy Composition there is an error", async () => {
    const xrdV2 = XRD_V1.replace("apiextensions.crossplane.io/v1", "apiextensions.crossplane.io/v2").replace("names:", "scope: Namespaced\n  names:");
    const findings = await check({ "xrd.yaml": xrdV2, "a.yaml": LEGACY("a") });
    expect(findings.filter((f) => f.rule === "crossplane/v1-repository")).toEqual([]);
    expect(findings.filter((f) => f.rule === "composition/mode-resources").map((f) => f.severity)).toEqual(["error"]);
  });

  it("a version the config names is not second-guessed", async () => {
    const findings = await check({ ".composition-ci.yaml": "crossplaneVersion: 2\n", "xrd.yaml": XRD_V1, "a.yaml": LEGACY("a") });
    expect(findings.filter((f) => f.rule === "crossplane/v1-repository")).toEqual([]);
    expect(findings.filter((f) => f.rule === "composition/mode-resources").map((f) => f.severity)).toEqual(["error"]);
  });
});
