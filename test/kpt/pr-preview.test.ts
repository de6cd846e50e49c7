import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kptUpstreamPreviews } from "../../src/action/kpt-preview.js";
import { gitRepo, tempRepo } from "../helpers.js";

const DEPLOYMENT =
  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.25\n";
const kptfile = (repo: string, commit: string, directory: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n  annotations: {config.kubernetes.io/local-config: "true"}\nupstream:\n  type: git\n  git: {repo: ${repo}, directory: ${directory}, ref: main}\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git: {repo: ${repo}, directory: ${directory}, ref: main, commit: ${commit}}\n`;

describe("the Action's pr mode previews kpt pkg update for downstream packages of a changed upstream", () => {
  it("a change to a catalog package shows what pulling it would do to the packages locked to it; other repositories are not read", async () => {
    const { dir, git, commit } = gitRepo(
      { "catalog/web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: web}\n", "catalog/web/deploy.yaml": DEPLOYMENT },
      { commit: false },
    );
    git("remote", "add", "origin", "git@github.com:acme/platform.git");
    const lock = commit("catalog");
    for (const [pkg, repo, directory] of [
      ["prod/web", "https://github.com/acme/platform", "/catalog/web"],
      ["elsewhere/web", "/tmp", "/"],
      ["escape/web", "https://github.com/acme/platform", "/../../etc"],
    ] as const) {
      fs.mkdirSync(path.join(dir, pkg), { recursive: true });
      fs.writeFileSync(path.join(dir, pkg, "Kptfile"), kptfile(repo, lock, directory));
      fs.writeFileSync(path.join(dir, pkg, "deploy.yaml"), DEPLOYMENT);
    }
    commit("downstream");
    fs.writeFileSync(path.join(dir, "catalog/web/deploy.yaml"), DEPLOYMENT.replace("nginx:1.25", "nginx:1.27"));
    const section = await kptUpstreamPreviews(dir, ["catalog/web/deploy.yaml"]);
    expect(section).toContain("**kpt: what pulling this upstream change would do downstream**");
    expect(section).toContain("`prod/web`");
    expect(section).toMatch(/^\+ +image: nginx:1.27$/m);
    expect(section).not.toContain("elsewhere/web");
    expect(section).not.toContain("escape/web");
    expect(await kptUpstreamPreviews(dir, ["README.md"])).toBe("");
  });

  it("an upstream directory that leads out of the repository (.git, .., a committed symbolic link) is never read", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "cci-outside-"));
    fs.writeFileSync(path.join(outside, "secret.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2-outside}\n");
    const dir = tempRepo({ "catalog/web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: web}\n", "catalog/web/deploy.yaml": DEPLOYMENT });
    fs.symlinkSync(outside, path.join(dir, "leak"));
    const { git, commit } = gitRepo(dir, { commit: false });
    git("remote", "add", "origin", "git@github.com:acme/platform.git");
    git("config", "http.extraheader", "AUTHORIZATION: basic c2VjcmV0LXRva2Vu");
    const lock = commit("catalog");
    const noLockDirectory = (upstreamDir: string) =>
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: web}\nupstream:\n  type: git\n  git: {repo: https://github.com/acme/platform, directory: ${upstreamDir}, ref: main}\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git: {repo: https://github.com/acme/platform, ref: main, commit: ${lock}}\n`;
    for (const [pkg, text] of [
      ["a/web", noLockDirectory(".git")],
      ["b/web", noLockDirectory("/leak")],
      ["c/web", kptfile("https://github.com/acme/platform", lock, "/leak")],
    ] as const) {
      fs.mkdirSync(path.join(dir, pkg), { recursive: true });
      fs.writeFileSync(path.join(dir, pkg, "Kptfile"), text);
    }
    const section = await kptUpstreamPreviews(dir, [".git/config", "leak/secret.yaml", "catalog/web/deploy.yaml"]);
    expect(section).not.toContain("hunter2-outside");
    expect(section).not.toContain("AUTHORIZATION");
    expect(section).not.toContain("c2VjcmV0LXRva2Vu");
  });
});
