import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { gitRepo, runCli, tempRepo } from "../helpers.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { XAPP_EXAMPLE, XAPP_XRD, projectComposition } from "../fixtures/project.js";

/**
 * Issue 36 (part): a project's own go-templating function renders without a build, as the CLI
 * builds it (crossplane/cli internal/project/functions/go_templating.go: function-go-templating
 * with the folder at /src as its default source), in-process and offline.
 */

const PROJECT = "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata: {name: platform}\nspec:\n  repository: xpkg.upbound.io/acme/platform\n";

const COMPOSITION = projectComposition("acme-platformcompose");

const TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    {{ setResourceNameAnnotation "settings" }}
data:
  size: {{ .observed.composite.resource.spec.size }}
`;

describe("a project's go-templating function", () => {
  it("renders from its folder's templates, with no build and no network", async () => {
    const dir = tempRepo({
      "upbound.yaml": PROJECT,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": COMPOSITION,
      "functions/compose/main.yaml.gotmpl": TEMPLATE,
      "examples/xr.yaml": XAPP_EXAMPLE,
    });
    const { code, stdout, stderr } = await runCli(["render", "--all", "."], dir);
    expect(stderr).not.toContain("not rendered");
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs.find((d) => d?.kind === "ConfigMap")).toMatchObject({
      data: { size: "large" },
      metadata: { annotations: { "crossplane.io/composition-resource-name": "settings" } },
    });
  });

  it("diff: a change to the function's folder changes what its sources render, and says so", async () => {
    const files = {
      "upbound.yaml": PROJECT,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": COMPOSITION,
      "functions/compose/main.yaml.gotmpl": TEMPLATE,
      "examples/xr.yaml": XAPP_EXAMPLE,
    };
    const repo = gitRepo(files);
    fs.writeFileSync(path.join(repo.dir, "functions/compose/main.yaml.gotmpl"), TEMPLATE.replace("size:", "sizing:"));
    const { stdout } = await runCli(["diff", "--base", "main", ".", "--format", "json"], repo.dir);
    const report = JSON.parse(stdout) as { sources: { considered: number; rendered: number }; changes: { status: string; objects: { status: string }[] }[] };
    expect(report.sources).toMatchObject({ considered: 1, rendered: 1 });
    expect(report.changes.map((c) => c.status)).toEqual(["changed"]);
  });

  it("a folder the project file names outside the repository is not read", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "cci-outside-"));
    fs.writeFileSync(path.join(outside, "main.yaml.gotmpl"), TEMPLATE);
    const project = `apiVersion: dev.crossplane.io/v1alpha1\nkind: Project\nmetadata: {name: platform}\nspec:\n  repository: xpkg.example.org/acme/platform\n  functions: [{source: Directory, directory: {name: escape}}]\n`;
    const dir = tempRepo({
      "crossplane-project.yaml": project,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": projectComposition("acme-platformescape"),
      "examples/xr.yaml": XAPP_EXAMPLE,
    });
    fs.mkdirSync(path.join(dir, "functions"));
    fs.symlinkSync(outside, path.join(dir, "functions/escape"));
    const { stdout } = await runCli(["check", ".", "--format", "json"], dir);
    const finding = (JSON.parse(stdout) as { findings: { rule: string; message: string }[] }).findings.find((f) => f.rule === "render/not-rendered");
    expect(finding?.message).toContain("built from functions/escape/, which leads outside the repository; not read");
  });

  it("an untrusted KCL project function is not rendered, naming its base package and the line that trusts it", async () => {
    const dir = tempRepo({
      "upbound.yaml": PROJECT,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": COMPOSITION,
      "functions/compose/kcl.mod": '[package]\nname = "compose"\n',
      "functions/compose/main.k": "items = []\n",
      "examples/xr.yaml": XAPP_EXAMPLE,
    });
    const { stdout } = await runCli(["check", ".", "--format", "json"], dir);
    const finding = (JSON.parse(stdout) as { findings: { rule: string; message: string }[] }).findings.find((f) => f.rule === "render/not-rendered");
    expect(finding?.message).toContain(
      "is a KCL function of the project upbound.yaml, built from functions/compose/: it runs on xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.1 (the CLI's base image for KCL), which is not a trusted package",
    );
    expect(finding?.message).toContain('functions: {trusted: ["xpkg.crossplane.io/crossplane-contrib/function-kcl"]}');
  });
});
