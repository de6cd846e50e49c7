import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { normalizedRemote } from "../../src/git/git.js";
import { gitRepo, runCli, tempRepo } from "../helpers.js";

/**
 * Issue 37: a Porch PackageVariant whose upstream package is in this repository renders as the
 * packagevariant controller makes its downstream (package context, the variant's functions first
 * in the pipeline, config injected from the repository's objects, readiness gates and conditions),
 * then `kpt fn render`: a source of check, render --all and diff.
 */

const REPOSITORY = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata: {name: catalog, namespace: default}
spec:
  type: git
  git: {repo: "https://github.com/acme/packages.git", directory: /pkgs, branch: main}
`;

const VARIANT = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: app-east, namespace: default}
spec:
  upstream: {repo: catalog, package: app, revision: v1}
  downstream: {repo: deploy, package: app-east}
  packageContext:
    data: {region: east}
    removeKeys: [stale]
  injectors:
    - name: east-settings
  pipeline:
    mutators:
      - image: gcr.io/kpt-fn/set-labels:v0.2.0
        configMap: {env: east}
`;

const PACKAGE = {
  "pkgs/app/Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata: {name: app}
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap: {namespace: apps}
`,
  "pkgs/app/package-context.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations: {config.kubernetes.io/local-config: "true"}
data: {name: app, stale: "yes"}
`,
  "pkgs/app/settings.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {kpt.dev/config-injection: required}
data: {region: default}
`,
};

const SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: east-settings, namespace: default}\ndata: {region: east}\n";

function repo(remote = "git@github.com:acme/packages.git") {
  return tempRepo({
    ".git/config": `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
    "porch/repository.yaml": REPOSITORY,
    "porch/variant.yaml": VARIANT,
    "config/east-settings.yaml": SETTINGS,
    ...PACKAGE,
  });
}

describe("Porch downstream packages", () => {
  it("remotes are one repository however they are written", () => {
    expect(
      new Set(
        [
          "https://github.com/acme/packages.git",
          "git@github.com:acme/packages",
          "ssh://git@github.com/acme/packages.git/",
          "https://GitHub.com/acme/packages",
        ].map(normalizedRemote),
      ),
    ).toEqual(new Set(["github.com/acme/packages"]));
  });

  it("render --all renders the downstream as the controller makes it, then kpt fn render", async () => {
    const { stdout, stderr, code } = await runCli(["render", "--all", "."], repo());
    expect(code, stderr).toBe(0);
    const downstream = stdout.slice(stdout.indexOf("# PackageVariant app-east (porch/variant.yaml)"));
    const docs = YAML.parseAllDocuments(downstream).map((d) => d.toJS());
    const settings = docs.find((d) => d?.kind === "ConfigMap" && d.metadata?.name === "settings");
    expect(settings).toMatchObject({
      data: { region: "east" },
      metadata: { namespace: "apps", labels: { env: "east" }, annotations: { "kpt.dev/injected-resource": "east-settings" } },
    });
    const context = docs.find((d) => d?.metadata?.name === "kptfile.kpt.dev");
    expect(context?.data).toEqual({ name: "app", region: "east" });
    expect(stderr).toMatch(/rendered 2 of 2 sources/);
  });

  it("an upstream package of another repository is not a source", async () => {
    const { stderr } = await runCli(["render", "--all", "."], repo("https://github.com/acme/other.git"));
    expect(stderr).toMatch(/rendered 1 of 1 source/);
  });

  it("an upstream directory that leads outside the repository is not read", async () => {
    const { mkdtempSync, writeFileSync, symlinkSync, mkdirSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const outside = mkdtempSync(`${tmpdir()}/cci-outside-`);
    mkdirSync(`${outside}/app`);
    for (const [file, text] of Object.entries(PACKAGE)) writeFileSync(`${outside}/app/${file.slice("pkgs/app/".length)}`, text);
    const dir = tempRepo({
      ".git/config": `[remote "origin"]\n\turl = https://github.com/acme/packages.git\n`,
      "porch/repository.yaml": REPOSITORY.replace("directory: /pkgs", "directory: /linked"),
      "porch/variant.yaml": VARIANT,
      "config/east-settings.yaml": SETTINGS,
    });
    symlinkSync(outside, `${dir}/linked`);
    const { stderr } = await runCli(["render", "--all", "."], dir);
    expect(stderr).not.toContain("PackageVariant");
    expect(stderr).toMatch(/rendered 0 of 0 sources/);
  });

  it("a package context on a package without package-context.yaml fails as the controller fails, at the variant", async () => {
    const dir = repo();
    const { rmSync } = await import("node:fs");
    rmSync(`${dir}/pkgs/app/package-context.yaml`);
    const { stdout } = await runCli(["check", ".", "--format", "json"], dir);
    const finding = (JSON.parse(stdout) as { findings: { rule: string; file: string; message: string }[] }).findings.find((f) => f.rule === "porch/downstream");
    expect(finding).toMatchObject({
      file: "porch/variant.yaml",
      message: '"package-context.yaml" not found in the upstream package: the controller cannot set the package context',
    });
  });

  it("diff: a change to the upstream package changes the downstream", async () => {
    const git = gitRepo(repo());
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${git.dir}/pkgs/app/settings.yaml`, PACKAGE["pkgs/app/settings.yaml"].replace("name: settings", "name: settings\n  labels: {tier: web}"));
    const { stdout } = await runCli(["diff", "--base", "main", ".", "--format", "json"], git.dir);
    const report = JSON.parse(stdout) as { changes: { kind: string; name: string; status: string }[] };
    expect(report.changes.map((c) => `${c.kind}/${c.name} ${c.status}`).sort()).toEqual(["Kptfile/app changed", "PackageVariant/app-east changed"]);
  });
});
