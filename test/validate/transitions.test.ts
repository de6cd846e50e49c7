import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runDiff } from "../../src/run/diff.js";
import { celTransitionViolations } from "../../src/validate/cel.js";
import type { OpenAPISchema } from "../../src/validate/schemas/types.js";
import { gitRepo, runCli, tempRepo } from "../helpers.js";
import { ptComposition } from "../fixtures/compositions.js";

describe("transition rules (oldSelf), as the API server checks an update", () => {
  const schema: OpenAPISchema = {
    type: "object",
    properties: {
      region: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "region is immutable" }] },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            port: { type: "integer", "x-kubernetes-validations": [{ rule: "self >= oldSelf", message: "a port may only grow" }] },
          },
        },
      },
    },
  };

  it("runs where the node exists in both, list items correlated by their map keys", () => {
    expect(celTransitionViolations(schema, { region: "eu" }, { region: "eu" })).toEqual([]);
    expect(celTransitionViolations(schema, { region: "us" }, { region: "eu" }).map((v) => `${v.pointer} ${v.message}`)).toEqual([
      "/region region is immutable",
    ]);
    // A field set for the first time is no transition.
    expect(celTransitionViolations(schema, { region: "us" }, {})).toEqual([]);
    const old = {
      ports: [
        { name: "http", port: 80 },
        { name: "admin", port: 9000 },
      ],
    };
    const now = {
      ports: [
        { name: "admin", port: 9001 },
        { name: "http", port: 79 },
        { name: "new", port: 1 },
      ],
    };
    expect(celTransitionViolations(schema, now, old).map((v) => `${v.pointer} ${v.message}`)).toEqual(["/ports/1/port a port may only grow"]);
  });

  it("validate leaves them out: a single tree has no old object", async () => {
    const mrd = (state: string) =>
      `apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata: {name: buckets.s3.aws.example.org}\nspec:\n  group: s3.aws.example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  state: ${state}\n  versions: [{name: v1, served: true, storage: true}]\n`;
    const { code } = await runCli(["validate", ".", "--no-cache"], tempRepo({ "mrd.yaml": mrd("Inactive") }));
    expect(code).toBe(0);
  });

  it("copies of one object in several files (versions of it as test fixtures) are each the update of their own file's copy; an object alone under its name is its own update wherever it moves", async () => {
    const mrd = (name: string, state: string) =>
      `apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata: {name: ${name}.example.org}\nspec:\n  group: example.org\n  names: {kind: Bucket, plural: ${name}}\n  scope: Cluster\n  state: ${state}\n  versions: [{name: v1, served: true, storage: true}]\n`;
    const { dir } = gitRepo({
      "tests/v2-active.yaml": mrd("buckets", "Active"),
      "tests/v1-inactive.yaml": mrd("buckets", "Inactive"),
      "single/mrd.yaml": mrd("tables", "Active"),
    });
    const unchanged = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(unchanged.report.findings.new).toEqual([]);

    fs.rmSync(path.join(dir, "single"), { recursive: true });
    fs.mkdirSync(path.join(dir, "moved"));
    fs.writeFileSync(path.join(dir, "moved/mrd.yaml"), mrd("tables", "Inactive"));
    const moved = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    expect(moved.report.findings.new.map((f) => `${f.rule} ${f.file}`)).toEqual(["schema/transition moved/mrd.yaml"]);
  });

  it("diff reports a repository object and a rendered object whose update breaks a transition rule", async () => {
    const mrd = (state: string) =>
      `apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata: {name: buckets.s3.aws.example.org}\nspec:\n  group: s3.aws.example.org\n  names: {kind: Bucket, plural: buckets}\n  scope: Cluster\n  state: ${state}\n  versions: [{name: v1, served: true, storage: true}]\n`;
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: disks.example.org}
spec:
  group: example.org
  names: {kind: Disk, plural: disks, singular: disk, listKind: DiskList}
  scope: Cluster
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
              properties:
                zone: {type: string, x-kubernetes-validations: [{rule: self == oldSelf, message: zone is immutable}]}
`;
    const xrd =
      "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xdisks.example.org}\nspec:\n  group: example.org\n  names: {kind: XDisk, plural: xdisks}\n  versions:\n    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {zone: {type: string}}}}}}}\n";
    const composition = ptComposition(
      "xdisks",
      "XDisk",
      `          - name: disk
            base: {apiVersion: example.org/v1, kind: Disk, metadata: {name: the-disk}, spec: {}}
            patches: [{fromFieldPath: spec.zone, toFieldPath: spec.zone}]
`,
    );
    const xr = (zone: string) => `apiVersion: example.org/v1\nkind: XDisk\nmetadata: {name: d, namespace: default}\nspec: {zone: ${zone}}\n`;
    const { dir } = gitRepo({ "mrd.yaml": mrd("Active"), "crd.yaml": crd, "xrd.yaml": xrd, "composition.yaml": composition, "xr.yaml": xr("a") });
    fs.writeFileSync(path.join(dir, "mrd.yaml"), mrd("Inactive"));
    fs.writeFileSync(path.join(dir, "xr.yaml"), xr("b"));
    const result = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    const news = result.report.findings.new.map((f) => `${f.rule} ${f.file} ${f.message}`);
    expect(news).toContain("schema/transition mrd.yaml on update from the base: state cannot be changed once it becomes Active");
    expect(news.some((n) => n.startsWith("render/transition xr.yaml") && n.includes("at spec.zone: zone is immutable"))).toBe(true);
    expect(result.report.verdict.failed).toBe(true);
  });
});
