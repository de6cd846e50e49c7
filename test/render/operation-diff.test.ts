import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runDiff } from "../../src/run/diff.js";
import type { DiffReport } from "../../src/report/diff.js";
import type { DriftReport } from "../../src/drift/report.js";
import { gitRepo, runCli } from "../helpers.js";
import { nestedXrFiles } from "../fixtures/nested-xrs.js";

/**
 * Operations (and nested XRs) through `diff` and `drift`: an Operation is a source like an XR, its
 * applied resources are its rendered objects. The Operation runs the built-in
 * function-go-templating, so no --allow-exec, Docker or network is needed.
 */

const operation = (size: string) => `apiVersion: ops.crossplane.io/v1alpha1
kind: Operation
metadata: {name: rotate}
spec:
  mode: Pipeline
  pipeline:
    - step: make
      functionRef: {name: function-go-templating}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: Inline
        inline:
          template: |
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: rotated
              namespace: default
              annotations:
                gotemplating.fn.crossplane.io/composition-resource-name: rotated
            data:
              size: ${size}
`;

const FUNCTIONS =
  "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.0}\n";

describe("diff: an Operation whose pipeline changed", () => {
  it("is a changed source, with the difference of the object it applies", async () => {
    const { dir } = gitRepo({ "operation.yaml": operation("small"), "functions.yaml": FUNCTIONS });
    fs.writeFileSync(path.join(dir, "operation.yaml"), operation("large"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.sources).toMatchObject({ considered: 1, rendered: 1, notRendered: 0, failed: 0 });
    expect(report.changes.map((c) => `${c.kind} ${c.name}:${c.status}`)).toEqual(["Operation rotate:changed"]);
    const changed = report.changes[0]!.objects.filter((o) => o.status !== "unchanged");
    expect(changed.map((o) => o.status)).toEqual(["changed"]);
    expect(changed[0]!.diff).toContain("-  size: small");
    expect(changed[0]!.diff).toContain("+  size: large");
  }, 30_000);

  it("through the CLI, as JSON; an unchanged Operation is not rendered again", async () => {
    const { dir } = gitRepo({
      "operation.yaml": operation("small"),
      "functions.yaml": FUNCTIONS,
      "other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n",
    });
    const untouched = await runCli(["diff", "--base", "main", "--format", "json"], dir);
    expect(untouched.code).toBe(0);
    expect((JSON.parse(untouched.stdout) as DiffReport).changes).toEqual([]);
    fs.writeFileSync(path.join(dir, "operation.yaml"), operation("medium"));
    const { code, stdout } = await runCli(["diff", "--base", "main", "--format", "json"], dir);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DiffReport;
    expect(report.changes).toHaveLength(1);
    expect(report.changes[0]).toMatchObject({ kind: "Operation", name: "rotate", status: "changed" });
    expect(report.changes[0]!.objects.find((o) => o.status === "changed")!.diff).toContain("+  size: medium");
  }, 30_000);
});

describe("drift: Operations and nested XRs are sources of the snapshot", () => {
  it("an Operation's applied resources are in the snapshot, and a changed pipeline is drift", async () => {
    const { dir } = gitRepo({ "operation.yaml": operation("small"), "functions.yaml": FUNCTIONS });
    const update = await runCli(["drift", "--snapshot", "rendered", "--update-snapshot"], dir);
    expect(update.code).toBe(0);
    const files = fs.readdirSync(path.join(dir, "rendered"));
    expect(files).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, "rendered", files[0]!), "utf8")).toContain("size: small");
    expect((await runCli(["drift", "--snapshot", "rendered", "--fail-on-drift"], dir)).code).toBe(0);

    fs.writeFileSync(path.join(dir, "operation.yaml"), operation("large"));
    const drifted = await runCli(["drift", "--snapshot", "rendered", "--fail-on-drift", "--format", "json"], dir);
    expect(drifted.code).toBe(1);
    const report = JSON.parse(drifted.stdout) as DriftReport;
    expect(report.items.map((i) => `${i.kind} ${i.object ?? ""}`)).toEqual(["object-changed ConfigMap/rotated"]);
    expect(report.items[0]!.source).toContain("Operation rotate");
    expect(report.items[0]!.detail).toContain("-  size: small\n+  size: large");
  }, 30_000);

  it("a nested XR's objects are in its root's snapshot; a change in the inner Composition is drift", async () => {
    const { dir } = gitRepo(nestedXrFiles());
    expect((await runCli(["drift", "--snapshot", "rendered", "--update-snapshot"], dir)).code).toBe(0);
    const files = fs.readdirSync(path.join(dir, "rendered"));
    expect(files).toHaveLength(1);
    const snapshot = fs.readFileSync(path.join(dir, "rendered", files[0]!), "utf8");
    expect(snapshot).toContain("kind: XNetwork");
    expect(snapshot).toContain("cidr: 10.0.0.0/16");

    const inner = path.join(dir, "network/composition.yaml");
    fs.writeFileSync(inner, fs.readFileSync(inner, "utf8").replace("data: {kind: subnet}", "data: {kind: subnet, tier: gold}"));
    const drifted = await runCli(["drift", "--snapshot", "rendered", "--fail-on-drift", "--format", "json"], dir);
    expect(drifted.code).toBe(1);
    const report = JSON.parse(drifted.stdout) as DriftReport;
    expect(report.items).toHaveLength(1);
    expect(`${report.items[0]!.kind} ${report.items[0]!.object}`).toBe("object-changed XNetwork/network > ConfigMap/subnet");
    expect(report.items[0]!.source).toContain("XPlatform prod");
    expect(report.items[0]!.detail).toContain("+  tier: gold");
  }, 30_000);
});
