import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

type Finding = { rule: string; severity: string; file: string; line: number; message: string };

async function check(files: Record<string, string>): Promise<{ findings: Finding[]; stderr: string }> {
  const { stdout, stderr } = await runCli(["check", ".", "--format", "json", "--no-cache"], tempRepo(files));
  return { findings: (JSON.parse(stdout) as { findings: Finding[] }).findings, stderr };
}

const xrd = (field: string, extra = "") => `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xnets.example.org}
spec:
  group: example.org
  names: {kind: XNet, plural: xnets}
${extra}  versions:
    - name: v1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                ${field}: {type: string}
`;

const composition = (name: string, field: string, labels = "{}") => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: ${name}, labels: ${labels}}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XNet}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: cm
            base: {apiVersion: v1, kind: ConfigMap, metadata: {name: ${name}}}
            patches:
              - {type: FromCompositeFieldPath, fromFieldPath: spec.${field}, toFieldPath: data.${field}}
`;

const functions = `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-patch-and-transform}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}
`;

const xr = (field: string, extra = "") => `apiVersion: example.org/v1
kind: XNet
metadata: {name: net, namespace: default}
spec:
  ${field}: eu
${extra}`;

describe("alternative packages defining the same XR type", () => {
  /** Two packages of one XR type; only the first has package metadata, as in real repositories. */
  const packages = () => ({
    "functions.yaml": functions,
    "packages/aws/crossplane.yaml": "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: aws}\n",
    "packages/aws/xrd.yaml": xrd("region"),
    "packages/aws/composition.yaml": composition("aws", "region"),
    "packages/aws/examples/xr.yaml": xr("region"),
    "packages/upbound/xrd.yaml": xrd("location"),
    "packages/upbound/composition.yaml": composition("upbound", "location"),
  });

  it("checks each package's compositions, patches and examples against its own XRD", async () => {
    const { findings } = await check({ ...packages(), "packages/upbound/examples/xr.yaml": xr("location") });
    expect(findings.filter((f) => f.severity !== "info")).toEqual([]);
    const duplicate = findings.filter((f) => f.rule === "schema/duplicate-definition");
    expect(duplicate.map((f) => f.severity)).toEqual(["info"]);
  });

  it("renders each example with its own package's Composition", async () => {
    const repo = tempRepo(packages());
    const { stdout, code } = await runCli(["render", "--all", "."], repo);
    expect(code).toBe(0);
    expect(stdout).toContain("region: eu");
    expect(stdout).not.toContain("location");
  });

  it("two different definitions of one type in one package stay an error", async () => {
    const { findings } = await check({
      "crossplane.yaml": "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: one}\n",
      "apis/a/xrd.yaml": xrd("region"),
      "apis/b/xrd.yaml": xrd("location"),
    });
    expect(findings.filter((f) => f.rule === "schema/duplicate-definition").map((f) => `${f.severity} ${f.file}`)).toEqual(["error apis/b/xrd.yaml"]);
  });

  it("an identical copy of a definition is no finding", async () => {
    const { findings } = await check({ "a/xrd.yaml": xrd("region"), "b/xrd.yaml": xrd("region") });
    expect(findings.filter((f) => f.rule === "schema/duplicate-definition")).toEqual([]);
  });
});

describe("composition selection, in Crossplane's order", () => {
  const repo = (xrdExtra: string, xrExtra: string) => ({
    "functions.yaml": functions,
    "xrd.yaml": xrd("region", xrdExtra),
    "c-one.yaml": composition("one", "region", "{flavour: one}"),
    "c-two.yaml": composition("two", "region", "{flavour: two}"),
    "xr.yaml": xr("region", xrExtra),
  });
  const renderedBy = async (files: Record<string, string>) => {
    const { stdout, stderr } = await runCli(["render", "--all", "."], tempRepo(files));
    return { names: [...stdout.matchAll(/^  name: (one|two)$/gm)].map((m) => m[1]), stderr };
  };

  it("the XRD's enforcedCompositionRef wins over the XR's own compositionRef", async () => {
    const { names } = await renderedBy(repo("  enforcedCompositionRef: {name: two}\n", "  crossplane: {compositionRef: {name: one}}\n"));
    expect(names).toEqual(["two"]);
  });

  it("an enforced ref means no xr/composition-missing for an XR without ref or selector", async () => {
    const { findings } = await check(repo("  enforcedCompositionRef: {name: two}\n", ""));
    expect(findings.filter((f) => f.rule.startsWith("xr/") || f.rule === "render/composition-ambiguous")).toEqual([]);
  });

  it("the XR's compositionRef wins over the XRD's default", async () => {
    expect((await renderedBy(repo("  defaultCompositionRef: {name: two}\n", "  crossplane: {compositionRef: {name: one}}\n"))).names).toEqual(["one"]);
  });

  it("a compositionSelector wins over the XRD's default", async () => {
    expect(
      (await renderedBy(repo("  defaultCompositionRef: {name: two}\n", "  crossplane: {compositionSelector: {matchLabels: {flavour: one}}}\n"))).names,
    ).toEqual(["one"]);
  });

  it("without ref or selector, the XRD's default", async () => {
    expect((await renderedBy(repo("  defaultCompositionRef: {name: two}\n", ""))).names).toEqual(["two"]);
  });

  it("without ref, selector or default, several candidates leave the XR not rendered, said as a warning: Crossplane would pick at random", async () => {
    const { findings } = await check(repo("", ""));
    expect(findings.filter((f) => f.rule === "render/not-rendered").map((f) => `${f.severity} ${f.message}`)).toEqual([
      expect.stringMatching(/^warning .*Compositions \(.*\) could render .*Crossplane would pick one at random/),
    ]);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("a claim's XR is selected at the XRD's referenceable version", async () => {
    const legacyXrd = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xnets.example.org}
spec:
  group: example.org
  names: {kind: XNet, plural: xnets}
  claimNames: {kind: Net, plural: nets}
  versions:
    - {name: v1, served: true, referenceable: false, schema: {openAPIV3Schema: {type: object}}}
    - {name: v2, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {region: {type: string}}}}}}}
`;
    const { findings } = await check({
      "functions.yaml": functions,
      "xrd.yaml": legacyXrd,
      "c.yaml": composition("one", "region").replace("apiVersion: example.org/v1, kind: XNet", "apiVersion: example.org/v2, kind: XNet"),
      "claim.yaml": "apiVersion: example.org/v1\nkind: Net\nmetadata: {name: net, namespace: default}\nspec: {}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });
});
