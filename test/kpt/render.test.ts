import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { runDiff } from "../../src/run/diff.js";
import { gitRepo, runCli, tempRepo } from "../helpers.js";
import { TestRegistry } from "../oci/registry-server.js";
import { pushValidator, VALIDATOR_SCRIPT } from "./krm-image.js";

/**
 * kpt packages rendered as `kpt fn render` renders them, offline: built-in catalog functions,
 * a KRM function image pulled from a registry on 127.0.0.1 and run as a process reading its
 * ResourceList on stdin, exec functions, subpackages, the Kptfile's own checks, and the diff.
 */

type Finding = { rule: string; severity: string; message: string; file?: string; line?: number; path?: string };

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {run: web}
  template:
    metadata:
      labels: {run: web}
    spec:
      containers:
        - name: web
          image: nginx
`;

function kptfile(name: string, pipeline: string, annotations = ""): string {
  return `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ${name}
  annotations:
    config.kubernetes.io/local-config: "true"${annotations}
pipeline:
${pipeline}`;
}

async function check(dir: string, ...flags: string[]) {
  const run = await runCli(["check", ".", "--format", "json", "--output-dir", "out", ...flags], dir);
  return { ...run, findings: (JSON.parse(run.stdout) as { findings: Finding[] }).findings };
}

function rendered(dir: string, file: string): Record<string, unknown>[] {
  return YAML.parseAllDocuments(fs.readFileSync(path.join(dir, "out/rendered", file), "utf8")).map((d) => d.toJS() as Record<string, unknown>);
}

const meta = (o: Record<string, unknown> | undefined) =>
  (o?.metadata ?? {}) as { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };

describe("kpt packages: function images from a registry, run as processes", () => {
  const registry = new TestRegistry();
  let image = "";
  const saved = { offline: process.env.COMPOSITION_CI_OFFLINE, cache: process.env.COMPOSITION_CI_CACHE };

  beforeAll(async () => {
    await registry.start();
    await pushValidator(registry, "kpt/validate", "v1");
    image = `${registry.host}/kpt/validate:v1`;
  });
  afterAll(() => registry.stop());
  beforeEach(() => {
    process.env.COMPOSITION_CI_OFFLINE = "0";
    process.env.COMPOSITION_CI_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), "cci-kpt-cache-"));
  });
  afterEach(() => {
    process.env.COMPOSITION_CI_OFFLINE = saved.offline;
    process.env.COMPOSITION_CI_CACHE = saved.cache;
  });

  function repo(label: string, trusted = true) {
    return tempRepo({
      ...(trusted ? { ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/kpt/*"]\n` } : {}),
      "app/Kptfile": kptfile(
        "app",
        `  mutators:
    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0
      configMap:
        ${label}: blue
  validators:
    - image: ${image}
      configMap:
        label: team
`,
      ),
      "app/deploy.yaml": DEPLOYMENT,
    });
  }

  it("set-labels (built in) then a validator image: the ResourceList carries kpt's annotations; the package renders", async () => {
    const dir = repo("team");
    const run = await check(dir);
    expect(run.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("rendered 1 of 1 sources");
    const given = run.findings.find((f) => f.message.includes("given 2 items"))!;
    // Validators get the items with kpt's path, index, package-path, seqindent and id annotations, and the configMap as a ConfigMap;
    // the first item is the Deployment, as set-labels (on the Go SDK) sorts what it writes.
    expect(given.message).toContain(
      "given 2 items; config ConfigMap; annotations: config.k8s.io/id,config.kubernetes.io/index,config.kubernetes.io/path,internal.config.kubernetes.io/id,internal.config.kubernetes.io/index,internal.config.kubernetes.io/package-path,internal.config.kubernetes.io/path,internal.config.kubernetes.io/seqindent",
    );
    expect(given).toMatchObject({ rule: "render/kpt-result", file: "app/Kptfile", line: 13 });
    const docs = rendered(dir, "kptfile-app.yaml");
    const deploy = docs.find((d) => d.kind === "Deployment");
    expect(meta(deploy).labels).toEqual({ team: "blue" });
    // What kpt writes back: no bookkeeping annotations.
    expect(JSON.stringify(docs)).not.toContain("internal.config.kubernetes.io");
    expect(registry.requests.some((r) => r.url.includes("/kpt/validate/"))).toBe(true);
  }, 30_000);

  it("a failing validator: its error result lands on the resource's field, and the package fails", async () => {
    const dir = repo("owner");
    const run = await check(dir);
    expect(run.code).toBe(1);
    const error = run.findings.find((f) => f.severity === "error" && f.rule === "render/kpt-result")!;
    // The field the result names (metadata.labels) is not in the file: the finding stops at metadata.
    expect(error).toMatchObject({ file: "app/deploy.yaml", line: 3, path: "metadata" });
    expect(error.message).toContain("label team is required (validator validate of app/Kptfile");
    const failed = run.findings.find((f) => f.rule === "render/kpt-failed")!;
    expect(failed).toMatchObject({ file: "app/Kptfile", severity: "error" });
    expect(failed.message).toContain("validator validate");
    expect(failed.message).toContain("1 error result");
  }, 30_000);

  it("functions pull fills the cache with the pipelines' trusted images, subpackages too: an offline check then renders", async () => {
    const dir = tempRepo({
      ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/kpt/*"]\n`,
      "app/Kptfile": kptfile("app", "  mutators:\n    - image: set-labels:v0.2.0\n      configMap: {team: blue}\n"),
      "app/deploy.yaml": DEPLOYMENT,
      "app/checks/Kptfile": kptfile(
        "checks",
        `  validators:\n    - image: ${image}\n      configMap: {label: team}\n    - image: ghcr.io/example/untrusted:v1\n`,
      ),
      "app/checks/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {team: red}\n",
    });
    const pull = await runCli(["functions", "pull"], dir);
    expect(pull.stderr).toContain(`app/checks/Kptfile validate: ${image} linux/`);
    expect(pull.stderr).toMatch(
      /0 function packages, 1 kpt function image and 0 package schemas in .*; not pulled: app\/checks\/Kptfile untrusted \(not trusted\)/,
    );
    expect(pull.code).toBe(0);
    const requests = registry.requests.length;
    const offline = await check(dir, "--offline");
    expect(
      offline.findings
        .filter((f) => f.rule === "render/not-rendered")
        .map((f) => f.message)
        .join("\n"),
    ).not.toContain("kpt/validate");
    expect(registry.requests.length).toBe(requests);
  }, 30_000);

  it("an untrusted image, or one not in the cache offline, is not rendered: a warning with the fix", async () => {
    const untrusted = await check(repo("team", false));
    expect(untrusted.code).toBe(0);
    const warning = untrusted.findings.find((f) => f.rule === "render/not-rendered")!;
    expect(warning).toMatchObject({ severity: "warning", file: "app/Kptfile", line: 13 });
    expect(warning.message).toContain("is not trusted");
    expect(warning.message).toContain(`add "${registry.host}/kpt/validate" to functions.trusted`);
    const offline = await check(repo("team"), "--offline");
    expect(offline.findings.find((f) => f.rule === "render/not-rendered")!.message).toContain("is not in the package cache");
    expect(offline.findings.filter((f) => f.severity === "error")).toEqual([]);
  }, 30_000);
});

describe("kpt packages: built-in functions, subpackages, exec functions", () => {
  const tree = (bfs = false) => ({
    "pkg/Kptfile": kptfile(
      "parent",
      `  mutators:
    - image: set-labels:v0.2
      configMap: {app: parent}
    - image: gcr.io/kpt-fn/set-namespace:v0.4
      configPath: ns.yaml
`,
      bfs ? '\n    kpt.dev/bfs-rendering: "true"' : "",
    ),
    "pkg/ns.yaml":
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ns\n  annotations: {config.kubernetes.io/local-config: "true"}\ndata: {namespace: prod}\n',
    "pkg/deploy.yaml": DEPLOYMENT,
    "pkg/db/Kptfile": kptfile(
      "db",
      `  mutators:
    - image: set-labels
      configMap: {app: db}
    - image: set-annotations
      configMap: {owner: dba}
      selectors:
        - kind: ConfigMap
`,
    ),
    "pkg/db/settings.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db-settings\ndata: {size: small}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db-pass\nstringData: {password: x}\n",
  });

  it("a subpackage renders first, then the parent's pipeline runs over both; kpt.dev/bfs-rendering runs the parent first", async () => {
    const dir = tempRepo(tree());
    const run = await check(dir);
    expect(run.findings.filter((f) => f.severity === "error")).toEqual([]);
    const docs = rendered(dir, "kptfile-parent.yaml");
    // Ordered by file: pkg/Kptfile, db/Kptfile, db/settings.yaml (2), deploy.yaml, ns.yaml.
    expect(docs.map((d) => `${d.kind}/${meta(d).name}`)).toEqual([
      "Kptfile/parent",
      "Kptfile/db",
      "ConfigMap/db-settings",
      "Secret/db-pass",
      "Deployment/web",
      "ConfigMap/ns",
    ]);
    const settings = docs.find((d) => meta(d).name === "db-settings");
    expect(meta(settings)).toMatchObject({ namespace: "prod", labels: { app: "parent" }, annotations: { owner: "dba" } });
    expect(meta(docs.find((d) => meta(d).name === "db-pass")).annotations).toBeUndefined();
    expect(meta(docs.find((d) => meta(d).name === "web")).annotations).toBeUndefined();
    const bfsDir = tempRepo(tree(true));
    await check(bfsDir);
    const bfs = rendered(bfsDir, "kptfile-parent.yaml");
    expect(meta(bfs.find((d) => meta(d).name === "db-settings")).labels).toEqual({ app: "db" });
    expect(meta(bfs.find((d) => meta(d).name === "web")).labels).toEqual({ app: "parent" });
  }, 30_000);

  it("render --all prints the package; the objects kpt live apply would apply exclude local config", async () => {
    const dir = tempRepo(tree());
    const run = await runCli(["render", "--all", "."], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("# Kptfile parent (pkg/Kptfile) via kpt fn render");
    const { renderEverything } = await import("../../src/render/repo.js");
    const { readManifests } = await import("../../src/manifest/read.js");
    const sources = await renderEverything(readManifests(["."], dir).manifests, {
      functions: {},
      root: dir,
      allowExec: false,
      timeoutMs: 10_000,
      clusterDefinitions: [],
    });
    const kpt = sources.find((s) => s.via === "kpt fn render")!;
    expect(kpt.keys).toEqual(["ConfigMap/prod/db-settings", "Secret/prod/db-pass", "Deployment/prod/web"]);
    expect(kpt.documents).toHaveLength(6);
  }, 30_000);

  it("exec functions run only with --allow-exec", async () => {
    const dir = tempRepo({
      "app/Kptfile": kptfile("app", `  validators:\n    - exec: "${process.execPath} ../validate.mjs"\n      configMap: {label: run}\n`),
      "app/deploy.yaml": DEPLOYMENT.replace("name: web\nspec", "name: web\n  labels: {run: web}\nspec"),
      "validate.mjs": VALIDATOR_SCRIPT.split("\n").slice(1).join("\n"),
    });
    const refused = await check(dir);
    const warning = refused.findings.find((f) => f.rule === "render/not-rendered")!;
    expect(warning.message).toContain("is an `exec:` function");
    expect(warning.message).toContain("--allow-exec");
    const allowed = await check(dir, "--allow-exec");
    expect(allowed.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(allowed.findings.some((f) => f.message.includes("given 2 items"))).toBe(true);
  }, 30_000);
});

describe("kpt packages: the Kptfile as kpt checks it", () => {
  it("schema, both image and exec, a missing configPath, selectors; errors stop the render", async () => {
    const dir = tempRepo({
      "app/Kptfile": `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
    - image: set-labels
      exec: ./x
    - image: set-labels
      configPath: missing.yaml
      selectors:
        - {}
    - image: set-labels
      configMap: {a: b}
      exclude:
        - {}
  validatrs: []
`,
      "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
      "app/pv.yaml":
        'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: pv}\nspec:\n  upstream: {repo: blueprints, package: base, revision: "2"}\n  adoptionPolicy: sometimes\n',
    });
    const run = await check(dir);
    const show = (f: Finding) => `${f.file}:${f.line} ${f.severity} ${f.rule}: ${f.message}`;
    const lines = run.findings.filter((f) => f.rule.startsWith("kpt/") || f.rule.startsWith("schema/")).map(show);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^app\/Kptfile:7 error kpt\/kptfile: must not specify both `image` and `exec` at the same time$/),
        expect.stringMatching(/^app\/Kptfile:10 error kpt\/function-config: failed to open functionConfig from path "missing.yaml"/),
        expect.stringMatching(/^app\/Kptfile:12 warning kpt\/selector: an empty selector selects every resource/),
        expect.stringMatching(/^app\/Kptfile:16 warning kpt\/selector: an empty selector is ignored by kpt/),
        expect.stringMatching(/^app\/Kptfile:17 error kpt\/kptfile: .*validatrs/),
        expect.stringMatching(/^app\/pv.yaml:5 error schema\//),
        expect.stringMatching(/^app\/pv.yaml:6 error schema\//),
      ]),
    );
    expect(run.stderr).toContain("failed: 1 (Kptfile app)");
    expect(run.code).toBe(1);
  }, 30_000);

  it("selectors and exclude pick what a mutator sees; the rest is left as it was", async () => {
    const dir = tempRepo({
      "app/Kptfile": kptfile(
        "app",
        "  mutators:\n    - image: set-labels\n      configMap: {picked: yes}\n      selectors:\n        - kind: ConfigMap\n      exclude:\n        - name: skip\n",
      ),
      "app/cms.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: take}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: skip}\n",
      "app/deploy.yaml": DEPLOYMENT,
    });
    const run = await check(dir);
    expect(run.findings.filter((f) => f.severity === "error")).toEqual([]);
    const docs = rendered(dir, "kptfile-app.yaml");
    expect(docs.map((d) => `${meta(d).name}:${meta(d).labels?.picked ?? "-"}`)).toEqual(["app:-", "take:yes", "skip:-", "web:-"]);
  }, 30_000);
});

describe("kpt packages in diff and drift", () => {
  it("a changed function config changes the package's rendered objects", async () => {
    const { dir } = gitRepo({
      "app/Kptfile": kptfile("app", "  mutators:\n    - image: set-labels\n      configPath: labels.yaml\n"),
      "app/labels.yaml":
        'apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: labels\n  annotations: {config.kubernetes.io/local-config: "true"}\nlabels: {tier: bronze}\n',
      "app/deploy.yaml": DEPLOYMENT,
    });
    fs.writeFileSync(path.join(dir, "app/labels.yaml"), fs.readFileSync(path.join(dir, "app/labels.yaml"), "utf8").replace("bronze", "gold"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const change = report.changes.find((c) => c.kind === "Kptfile")!;
    expect(change).toMatchObject({ name: "app", status: "changed", via: "kpt fn render", file: "app/Kptfile" });
    const deploy = change.objects.find((o) => o.key === "Deployment/web")!;
    expect(deploy.status).toBe("changed");
    expect(deploy.diff).toContain("-    tier: bronze");
    expect(deploy.diff).toContain("+    tier: gold");
  }, 30_000);

  it("a built-in function moved to another tag is said on the step: the diff cannot show what the new release changes", async () => {
    const { dir } = gitRepo({
      "app/Kptfile": kptfile("app", "  mutators:\n    - image: set-namespace:v0.4.1\n      configMap: {namespace: prod}\n"),
      "app/deploy.yaml": DEPLOYMENT,
    });
    const kpt = path.join(dir, "app/Kptfile");
    fs.writeFileSync(kpt, fs.readFileSync(kpt, "utf8").replace("set-namespace:v0.4.1", "set-namespace:v0.4.5"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const said = report.findings.new.filter((f) => f.rule === "render/builtin-version");
    expect(said.map((f) => `${f.file}:${f.line} ${f.severity}`)).toEqual(["app/Kptfile:9 warning"]);
    expect(said[0]!.message).toMatch(/^set-namespace moves from v0\.4\.1 to v0\.4\.5, and composition-ci runs it with its built-in model/);
  }, 30_000);

  it("drift compares a package's objects with the committed snapshot", async () => {
    const dir = tempRepo({
      "app/Kptfile": kptfile("app", "  mutators:\n    - image: set-labels\n      configMap: {tier: bronze}\n"),
      "app/deploy.yaml": DEPLOYMENT,
    });
    const update = await runCli(["drift", ".", "--snapshot", "snap", "--update-snapshot"], dir);
    expect(update.stderr).toContain("wrote kptfile-app.yaml");
    expect(fs.readFileSync(path.join(dir, "snap/kptfile-app.yaml"), "utf8")).toContain("# key: Deployment/web");
    fs.writeFileSync(path.join(dir, "app/Kptfile"), fs.readFileSync(path.join(dir, "app/Kptfile"), "utf8").replace("bronze", "gold"));
    const drift = await runCli(["drift", ".", "--snapshot", "snap", "--format", "json", "--fail-on-drift"], dir);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain("Deployment/web");
    expect(drift.stdout).toContain("+    tier: gold");
  }, 30_000);
});
