import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { runDiff } from "../../src/run/diff.js";
import { gitRepo, runCli, tempRepo } from "../helpers.js";
import { network, nestedXrFiles } from "../fixtures/nested-xrs.js";

const repo = () => tempRepo(nestedXrFiles());

describe("nested XRs: a composed XR of the repository is rendered with its own Composition", () => {
  it("render --all shows the inner XR's objects after the outer's, with the inner XRD's defaults applied", async () => {
    const { code, stdout } = await runCli(["render", "--all", "."], repo());
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs.map((d) => `${d.kind}/${d.metadata?.annotations?.["crossplane.io/composition-resource-name"] ?? d.metadata?.name}`)).toEqual([
      "XPlatform/prod",
      "ConfigMap/dns",
      "XNetwork/network",
      "ConfigMap/subnet",
    ]);
    const subnet = docs[3];
    expect(subnet.data).toEqual({ kind: "subnet", cidr: "10.0.0.0/16" });
    // As Crossplane labels them: composed resources of a nested XR carry the root XR's name.
    expect(subnet.metadata.labels["crossplane.io/composite"]).toBe("prod");
    // The inner XR is the object the outer composed, named by the reconciler; its own UID owns its objects.
    const inner = docs[2];
    expect(inner.metadata.name).toMatch(/^prod-[0-9a-f]{12}$/);
    expect(subnet.metadata.ownerReferences[0]).toMatchObject({ kind: "XNetwork", name: inner.metadata.name });
    expect(subnet.metadata.ownerReferences[0].uid).not.toBe(inner.metadata.ownerReferences[0].uid);
  });

  it("v2.2 (no reconciler names): a nested XR's stand-in name is a valid object name, whatever its composition resource name", async () => {
    const files = nestedXrFiles();
    files["platform/composition.yaml"] = files["platform/composition.yaml"]!.replace("- name: network", "- name: compositeNetwork_EKS");
    const { stdout } = await runCli(["render", "--all", ".", "--crossplane-version", "v2.2"], tempRepo(files));
    const subnet = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d.data?.kind === "subnet");
    expect(subnet.metadata.ownerReferences[0]).toMatchObject({ kind: "XNetwork", name: "prod-compositenetwork-eks" });
  });

  it("--max-nested-depth 0 renders the first level only, as crossplane render does", async () => {
    const { stdout } = await runCli(["render", "--all", ".", "--max-nested-depth", "0"], repo());
    expect(stdout).not.toContain("kind: subnet");
  });

  it("a nested XR whose type has no Composition in the repository is not rendered (it may come from a package or the cluster), said once; never an error", async () => {
    const dir = repo();
    fs.rmSync(path.join(dir, "network/composition.yaml"));
    const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache"], dir);
    const report = JSON.parse(stdout) as { findings: { rule: string; severity: string; message: string }[]; sources: { notRendered: number } };
    expect(report.findings.filter((f) => f.severity === "error")).toEqual([]);
    const nested = report.findings.filter((f) => f.rule === "render/not-rendered");
    expect(nested.map((f) => f.message)).toEqual([expect.stringContaining("no Composition in the repository is for example.org/v1 XNetwork")]);
    expect(report.sources.notRendered).toBe(1);
  });

  it("a nested XR whose named Composition is missing while others of its type are here is an error naming it", async () => {
    const files = nestedXrFiles();
    files["platform/composition.yaml"] = files["platform/composition.yaml"]!.replace(
      "kind: XNetwork, spec: {}",
      "kind: XNetwork, spec: {crossplane: {compositionRef: {name: gone}}}",
    );
    const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache"], tempRepo(files));
    const findings = JSON.parse(stdout).findings as { rule: string; severity: string; message: string }[];
    const nested = findings.find((f) => f.message.startsWith("nested XNetwork network (composed by XPlatform prod)"));
    expect(nested).toMatchObject({ rule: "xr/composition-missing", severity: "error" });
  });

  it("diff: deleting the inner Composition leaves the outer XR not rendered at head; its inner objects are not reported removed", async () => {
    const { dir } = gitRepo(nestedXrFiles());
    fs.rmSync(path.join(dir, "network/composition.yaml"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    const platform = report.changes.find((c) => c.kind === "XPlatform");
    expect(platform).toMatchObject({ status: "not-rendered" });
    expect(report.objects.removed).toBe(0);
    expect(report.sources.notRendered).toBe(1);
    expect(report.findings.new.map((f) => f.rule)).toContain("render/not-rendered");
  });

  it("diff: changing the inner Composition changes the outer XR's rendered objects", async () => {
    const { dir } = gitRepo(nestedXrFiles());
    fs.writeFileSync(path.join(dir, "network/composition.yaml"), network("kind: subnet, zone: eu"));
    const result = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    const platform = result.report.changes.find((c) => c.kind === "XPlatform");
    expect(platform?.status).toBe("changed");
    expect(platform?.objects.filter((o) => o.status !== "unchanged").map((o) => o.key)).toEqual(["XNetwork/network > ConfigMap/subnet"]);
    // With --max-nested-depth 0 the inner XR is not rendered on either side: the change is not seen.
    const cli = await runCli(["diff", "--base", "HEAD", "--format", "json", "--max-nested-depth", "0"], dir);
    const flat = (JSON.parse(cli.stdout) as { changes: { kind: string; status: string }[] }).changes.find((c) => c.kind === "XPlatform");
    expect(flat?.status).toBe("unchanged");
    const bad = await runCli(["diff", "--base", "HEAD", "--max-nested-depth=-1"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-nested-depth needs a whole number of 0 or more");
  });

  it("drift honours --max-nested-depth: at 0 the snapshot holds no inner XR's objects", async () => {
    const snapshot = async (...flags: string[]) => {
      const dir = repo();
      const run = await runCli(["drift", "--snapshot", "snap", "--update-snapshot", ...flags], dir);
      expect(run.code).toBe(0);
      return fs
        .readdirSync(path.join(dir, "snap"))
        .map((f) => fs.readFileSync(path.join(dir, "snap", f), "utf8"))
        .join("\n");
    };
    expect(await snapshot()).toContain("kind: subnet");
    expect(await snapshot("--max-nested-depth", "0")).not.toContain("kind: subnet");
  });
});
