import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { xrdChanges } from "../../src/report/definition-changes.js";
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
    const head = parse(xrd("cidr: {type: string, default: 10.1.0.0/16}, zone: {type: string}, size: {type: string, enum: [s, m]}, region: {type: string}", "[region]"));
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
    const composition = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: xnetworks}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XNetwork}\n  mode: Pipeline\n  pipeline:\n    - step: kcl\n      functionRef: {name: function-kcl}\n      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: 'items = []'}}\n";
    const { dir } = gitRepo({ "xrd.yaml": xrd("cidr: {type: string, default: 10.0.0.0/16}, subnets: {type: integer}"), "composition.yaml": composition, "xr.yaml": "apiVersion: example.org/v1\nkind: XNetwork\nmetadata: {name: n, namespace: default}\nspec: {}\n" });
    fs.writeFileSync(path.join(dir, "xrd.yaml"), xrd("cidr: {type: string, default: 10.1.0.0/16}"));
    const { stdout } = await runCli(["diff", "--base", "HEAD", "--offline"], dir);
    expect(stdout).toContain("### ⚠️ composition-ci: 1 of 1 affected source could not be rendered");
    expect(stdout).toContain("**Definitions this change alters**");
    const section = stdout.slice(stdout.indexOf("**Definitions this change alters**"));
    expect(section.indexOf("⚠️ **breaking**: `spec.subnets` removed")).toBeLessThan(section.indexOf("`spec.cidr` default"));
  });
});
