import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sameRepositoryUrl } from "../../src/kpt/update.js";
import { gitRepo, runCli, type GitRepo } from "../helpers.js";

/**
 * `composition-ci kpt update-preview`: what `kpt pkg update` (resource-merge) would do to a
 * downstream package whose upstream is a catalog directory of the same repository, or a git
 * repository at a local path, shown as a diff and written nowhere.
 */

const UPSTREAM_KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: web
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    - image: set-labels:v0.2
      configMap: {app: web}
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25
          env:
            - {name: MODE, value: base}
`;

function downstreamKptfile(repo: string, commit: string, directory = "/catalog/web"): string {
  return `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: web
  annotations:
    config.kubernetes.io/local-config: "true"
upstream:
  type: git
  git: {repo: ${repo}, directory: ${directory}, ref: main}
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git: {repo: ${repo}, directory: ${directory}, ref: main, commit: ${commit}}
pipeline:
  mutators:
    - image: set-labels:v0.2
      configMap: {app: web}
`;
}

/** A repository with a catalog package and a downstream copy of it locked to the first commit. */
function catalogRepo(): GitRepo & { lock: string } {
  const repo = gitRepo(
    { "catalog/web/Kptfile": UPSTREAM_KPTFILE, "catalog/web/deploy.yaml": DEPLOYMENT, "catalog/web/README.md": "The web package.\n" },
    { commit: false },
  );
  const { dir, git, commit } = repo;
  git("remote", "add", "origin", "git@github.com:acme/platform.git");
  const lock = commit("catalog");
  fs.mkdirSync(path.join(dir, "prod/web"), { recursive: true });
  fs.writeFileSync(path.join(dir, "prod/web/Kptfile"), downstreamKptfile("https://github.com/acme/platform", lock));
  fs.writeFileSync(path.join(dir, "prod/web/deploy.yaml"), DEPLOYMENT);
  fs.writeFileSync(path.join(dir, "prod/web/README.md"), "The web package.\n");
  commit("downstream");
  return { ...repo, lock };
}

function edit(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${from} not in ${file}`);
  fs.writeFileSync(file, text.replace(from, to));
}

describe("kpt update-preview", () => {
  it("an upstream change and a local change to other fields merge cleanly; nothing is written", async () => {
    const { dir, lock, git, commit } = catalogRepo();
    edit(path.join(dir, "prod/web/deploy.yaml"), "replicas: 1", "replicas: 5");
    commit("local change");
    edit(path.join(dir, "catalog/web/deploy.yaml"), "nginx:1.25", "nginx:1.27");
    edit(path.join(dir, "catalog/web/deploy.yaml"), "value: base", "value: fast");
    fs.writeFileSync(path.join(dir, "catalog/web/service.yaml"), "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [{port: 80}]\n");
    edit(path.join(dir, "catalog/web/README.md"), "The web package.", "The web package, v2.");
    const status = git("status", "--porcelain");
    const run = await runCli(["kpt", "update-preview", "prod/web"], dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain(`from ${lock.slice(0, 12)} (the lock) to the working tree`);
    // The upstream's image and env change arrive, the local replicas stay.
    expect(out).toContain("-        image: nginx:1.25\n+        image: nginx:1.27");
    expect(out).toContain("-          value: base\n+          value: fast");
    expect(out).not.toContain("replicas: 1");
    expect(out).toContain("+++ b/prod/web/service.yaml");
    expect(out).toContain("+The web package, v2.");
    expect(out).toContain(`-    commit: ${lock}`);
    expect(out).not.toContain("Conflicts");
    expect(out).toContain("Service web (prod/web/service.yaml) is added from upstream");
    expect(out).toContain("4 files would change; nothing was written");
    // Nothing written, nothing left behind.
    expect(git("status", "--porcelain")).toBe(status);
    const json = JSON.parse((await runCli(["kpt", "update-preview", "prod/web", "--format", "json"], dir)).stdout);
    expect(json.files.map((f: { file: string; status: string }) => `${f.file}:${f.status}`)).toEqual([
      "prod/web/Kptfile:changed",
      "prod/web/README.md:changed",
      "prod/web/deploy.yaml:changed",
      "prod/web/service.yaml:added",
    ]);
  }, 30_000);

  it("the same field changed on both sides: upstream's value wins, and the preview calls it a conflict", async () => {
    const { dir, commit } = catalogRepo();
    edit(path.join(dir, "prod/web/deploy.yaml"), "nginx:1.25", "nginx:1.25-patched");
    edit(path.join(dir, "prod/web/README.md"), "The web package.", "Our web package.");
    commit("local change");
    edit(path.join(dir, "catalog/web/deploy.yaml"), "nginx:1.25", "nginx:1.27");
    edit(path.join(dir, "catalog/web/README.md"), "The web package.", "The web package, v2.");
    commit("upstream change");
    const run = await runCli(["kpt", "update-preview", "prod/web", "--upstream-ref", "main"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("-        image: nginx:1.25-patched\n+        image: nginx:1.27");
    expect(run.stdout).toContain(
      'prod/web/deploy.yaml: Deployment web: spec.template.spec.containers[name=web].image: local "nginx:1.25-patched", upstream "nginx:1.27": upstream\'s wins',
    );
    expect(run.stdout).toContain("prod/web/README.md changed both locally and upstream: kpt keeps the local file");
    expect(run.stdout).not.toContain("+++ b/prod/web/README.md");
    const strict = await runCli(["kpt", "update-preview", "prod/web", "--upstream-ref", "main", "--fail-on-conflict"], dir);
    expect(strict.code).toBe(1);
  }, 30_000);

  it("an upstream at a local path; what the preview cannot do is a usage error with the reason", async () => {
    const { dir: upstream, commit: commitUpstream } = gitRepo({ "pkgs/web/Kptfile": UPSTREAM_KPTFILE, "pkgs/web/deploy.yaml": DEPLOYMENT }, { commit: false });
    const lock = commitUpstream("v1");
    edit(path.join(upstream, "pkgs/web/deploy.yaml"), "replicas: 1", "replicas: 3");
    commitUpstream("v2");
    const { dir, commit } = gitRepo({ "web/Kptfile": downstreamKptfile(upstream, lock, "/pkgs/web"), "web/deploy.yaml": DEPLOYMENT }, { commit: false });
    commit("downstream");
    // For another repository, "now" is its upstream.git.ref (main), as kpt pkg update fetches it.
    const run = await runCli(["kpt", "update-preview", "web"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("-  replicas: 1\n+  replicas: 3");

    fs.writeFileSync(path.join(dir, "web/Kptfile"), downstreamKptfile("https://example.com/elsewhere.git", lock));
    const elsewhere = await runCli(["kpt", "update-preview", "web"], dir);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain("is neither this repository");
    fs.writeFileSync(path.join(dir, "web/Kptfile"), UPSTREAM_KPTFILE);
    const noUpstream = await runCli(["kpt", "update-preview", "web"], dir);
    expect(noUpstream.code).toBe(2);
    expect(noUpstream.stderr).toContain("has no upstream.git");
  }, 30_000);

  it("a lock's repo URL names this repository whatever its form; kpt --help says what the command does", async () => {
    expect(sameRepositoryUrl("git@github.com:acme/platform.git", "https://github.com/acme/platform")).toBe(true);
    expect(sameRepositoryUrl("ssh://git@github.com/Acme/Platform.git/", "https://github.com/acme/platform.git")).toBe(true);
    expect(sameRepositoryUrl("https://github.com/acme/platform", "https://github.com/acme/other")).toBe(false);
    const help = await runCli(["kpt", "--help"], process.cwd());
    expect(help.stdout).toContain("Usage: composition-ci kpt update-preview PKG");
    expect((await runCli(["kpt", "nope"], process.cwd())).code).toBe(2);
  });
});
