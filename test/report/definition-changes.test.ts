import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { xrdChanges } from "../../src/report/definition-changes.js";
import { activationChanges, compositionChanges, dependencyChanges, packageChanges } from "../../src/report/composition-changes.js";
import { gitRepo, runCli } from "../helpers.js";

/** Issue 32.2: what a changed XRD means for its XRs and claims, shown where the rendered diff would be. */

const xrd = (properties: string, required = "[]", extra = "") => `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xnetworks.example.org}
spec:
  group: example.org
  names: {kind: XNetwork, plural: xnetworks}
  versions:
    - name: v1
      served: true
      referenceable: true${extra}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: ${required}
              properties: {${properties}}
`;

describe("the changes of an XRD", () => {
  it("a removed field, a newly required one and a narrower enum are breaking; a new optional field and a default are not", () => {
    const parse = (text: string) => YAML.parse(text) as Record<string, unknown>;
    const base = parse(xrd("cidr: {type: string, default: 10.0.0.0/16}, subnets: {type: integer}, size: {type: string, enum: [s, m, l]}"));
    const head = parse(
      xrd("cidr: {type: string, default: 10.1.0.0/16}, zone: {type: string}, size: {type: string, enum: [s, m]}, region: {type: string}", "[region]"),
    );
    const changes = xrdChanges(base, head).map((c) => `${c.breaking ? "!" : " "} ${c.path}: ${c.what}`);
    expect(changes.sort()).toEqual(
      [
        '  spec.cidr: default "10.0.0.0/16" → "10.1.0.0/16"',
        "  spec.zone: added",
        '! spec.size: enum ["s","m","l"] → ["s","m"]',
        "! spec.region: added, required",
        "! spec.subnets: removed",
      ].sort(),
    );
  });

  it("the PR comment shows them where the rendered diff would be, breaking first, even when nothing renders", async () => {
    const composition =
      "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: xnetworks}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XNetwork}\n  mode: Pipeline\n  pipeline:\n    - step: kcl\n      functionRef: {name: function-kcl}\n      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: 'items = []'}}\n";
    const { dir } = gitRepo({
      "xrd.yaml": xrd("cidr: {type: string, default: 10.0.0.0/16}, subnets: {type: integer}"),
      "composition.yaml": composition,
      "xr.yaml": "apiVersion: example.org/v1\nkind: XNetwork\nmetadata: {name: n, namespace: default}\nspec: {}\n",
    });
    fs.writeFileSync(path.join(dir, "xrd.yaml"), xrd("cidr: {type: string, default: 10.1.0.0/16}"));
    const { stdout } = await runCli(["diff", "--base", "HEAD", "--offline"], dir);
    expect(stdout).toContain("### ⚠️ composition-ci: 1 of 1 affected source could not be rendered");
    expect(stdout).toContain("**What this change alters, known without rendering**");
    const section = stdout.slice(stdout.indexOf("**What this change alters, known without rendering**"));
    expect(section.indexOf("⚠️ **breaking**: `spec.subnets` removed")).toBeLessThan(section.indexOf("`spec.cidr` default"));
  });
});

const lines = (changes: { path: string; what: string; breaking: boolean }[]) => changes.map((c) => `${c.breaking ? "!" : " "} ${c.path}: ${c.what}`);

describe("the changes of a Composition, an activation policy and packages", () => {
  const comp = (steps: string, type = "XNetwork") =>
    YAML.parse(`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xnetworks}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: ${type}}
  mode: Pipeline
  pipeline:
${steps}`) as Record<string, unknown>;
  const pt = (resources: string) => `    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
${resources}`;
  const vpc = "          - {name: vpc, base: {apiVersion: ec2.aws.upbound.io/v1beta1, kind: VPC, spec: {forProvider: {cidrBlock: 10.0.0.0/16}}}}\n";
  const gateway = "          - {name: gateway, base: {apiVersion: ec2.aws.upbound.io/v1beta1, kind: InternetGateway}}\n";
  const subnet = "          - {name: subnet, base: {apiVersion: ec2.aws.upbound.io/v1beta1, kind: Subnet}}\n";

  it("composed resources by name: a removed one is breaking (deleted from every XR), an added one and a changed base are said; steps added and removed", () => {
    const base = comp(pt(vpc + gateway));
    const head = comp(pt(vpc.replace("10.0.0.0/16", "10.1.0.0/16") + subnet) + "    - step: ready\n      functionRef: {name: function-auto-ready}\n");
    expect(lines(compositionChanges(base, head)).sort()).toEqual(
      [
        "  step pt: resource vpc: base changed",
        "  step pt: resource subnet: added (Subnet)",
        "! step pt: resource gateway: removed (InternetGateway): the composed resource is deleted from every XR this Composition renders",
        "  step ready: added (function function-auto-ready)",
      ].sort(),
    );
    expect(lines(compositionChanges(head, comp(pt(vpc), "XOther")))[0]).toBe(
      "! compositeTypeRef: example.org/v1 XNetwork → example.org/v1 XOther: XRs of example.org/v1 XNetwork no longer use this Composition",
    );
  });

  it("keys written in another order, an enum reordered or a default's keys reordered change nothing", () => {
    const reordered = "          - {name: vpc, base: {kind: VPC, apiVersion: ec2.aws.upbound.io/v1beta1, spec: {forProvider: {cidrBlock: 10.0.0.0/16}}}}\n";
    expect(compositionChanges(comp(pt(vpc)), comp(pt(reordered)))).toEqual([]);
    const parse = (text: string) => YAML.parse(text) as Record<string, unknown>;
    const schema = (size: string) => parse(xrd(`size: {type: string, enum: ${size}}, tags: {type: object, default: {a: "1", b: "2"}}`));
    expect(xrdChanges(schema("[s, m, l]"), parse(xrd('size: {type: string, enum: [l, s, m]}, tags: {type: object, default: {b: "2", a: "1"}}')))).toEqual([]);
    expect(xrdChanges(schema("[s, m, l]"), schema("[s, m]")).map((c) => c.breaking)).toEqual([true]);
  });

  it("an activation policy's patterns, a package's dependencies and a package object's version", () => {
    const mrap = (activate: string) => ({
      apiVersion: "apiextensions.crossplane.io/v1alpha1",
      kind: "ManagedResourceActivationPolicy",
      spec: { activate: activate.split(",") },
    });
    expect(lines(activationChanges(mrap("*.ec2.aws.upbound.io,buckets.s3.aws.upbound.io"), mrap("*.ec2.aws.upbound.io,*.rds.aws.upbound.io")))).toEqual([
      "  activate: *.rds.aws.upbound.io added: its managed resource definitions are activated",
      "  activate: buckets.s3.aws.upbound.io removed from this policy (activated definitions stay active)",
    ]);
    const config = (deps: object[]) => ({ apiVersion: "meta.pkg.crossplane.io/v1", kind: "Configuration", spec: { dependsOn: deps } });
    expect(
      lines(
        dependencyChanges(
          config([
            { provider: "xpkg.upbound.io/upbound/provider-aws-ec2", version: ">=v1.0.0" },
            { function: "xpkg.crossplane.io/crossplane-contrib/function-kcl", version: "v0.9.0" },
          ]),
          config([{ provider: "xpkg.upbound.io/upbound/provider-aws-ec2", version: ">=v2.0.0" }]),
        ),
      ),
    ).toEqual([
      "  dependency xpkg.upbound.io/upbound/provider-aws-ec2: version >=v1.0.0 → >=v2.0.0",
      "  dependency xpkg.crossplane.io/crossplane-contrib/function-kcl: removed",
    ]);
    const fn = (pkg: string) => ({ apiVersion: "pkg.crossplane.io/v1", kind: "Function", spec: { package: pkg } });
    expect(
      lines(packageChanges(fn("xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.9.0"), fn("xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.10.0"))),
    ).toEqual(["  package: xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.9.0 → xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.10.0"]);
  });

  it("the PR comment shows a Composition's change even when its XRs cannot render", async () => {
    const kclStep =
      "    - step: kcl\n      functionRef: {name: function-kcl}\n      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: 'items = []'}}\n";
    const text = (steps: string) => YAML.stringify(comp(steps));
    const { dir } = gitRepo({
      "composition.yaml": text(kclStep + pt(vpc + gateway)),
      "xr.yaml": "apiVersion: example.org/v1\nkind: XNetwork\nmetadata: {name: n, namespace: default}\nspec: {}\n",
    });
    fs.writeFileSync(path.join(dir, "composition.yaml"), text(kclStep + pt(vpc)));
    const { stdout } = await runCli(["diff", "--base", "HEAD", "--offline"], dir);
    expect(stdout).toContain("### ⚠️ composition-ci: 1 of 1 affected source could not be rendered");
    // An XR no XRD of the repository types still depends on its Composition: the change is not "0 sources changed".
    expect(stdout).toContain(
      "- Composition `xnetworks` (`composition.yaml`)\n  - ⚠️ **breaking**: `step pt: resource gateway` removed \\(InternetGateway\\): the composed resource is deleted from every XR this Composition renders",
    );
  });
});
