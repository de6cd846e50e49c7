import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { REPO, gitRepo, tempRepo } from "../helpers.js";

const read = (file: string) => fs.readFileSync(path.join(REPO, file), "utf8");
const packageJson = JSON.parse(read("package.json")) as { version: string; license: string };

// sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt, the text many npm packages ship
// verbatim as their LICENSE (long, zx).
const APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";
const COPYRIGHT = "   Copyright 2026 The composition-ci authors";

describe("the license", () => {
  it("LICENSE is the Apache License 2.0, word for word, its appendix naming the composition-ci authors", () => {
    expect(packageJson.license).toBe("Apache-2.0");
    const text = read("LICENSE");
    expect(text.split("\n")).toContain(COPYRIGHT);
    const canonical = text.replace(COPYRIGHT, "   Copyright [yyyy] [name of copyright owner]");
    expect(createHash("sha256").update(canonical).digest("hex")).toBe(APACHE_2_0_SHA256);
  });
});

describe("action.yml", () => {
  it("its description fits the Marketplace's limit (under 125 characters)", () => {
    const action = YAML.parse(read("action.yml")) as { description: string };
    expect(action.description.length).toBeGreaterThan(20);
    expect(action.description.length).toBeLessThan(125);
    expect(action.description).toMatch(/Crossplane/);
  });
});

type Step = { name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown> };
type Job = { "runs-on": string; env?: Record<string, string>; permissions?: unknown; steps: Step[] };
type Workflow = { on: { push?: { tags?: string[]; branches?: string[] } }; permissions: Record<string, string>; jobs: Record<string, Job> };

const WORKFLOWS = path.join(REPO, ".github/workflows");
const release = YAML.parse(read(".github/workflows/release.yml")) as Workflow;
const job = Object.values(release.jobs)[0]!;
const stepWith = (text: string) => {
  const step = job.steps.find((s) => s.run?.includes(text));
  expect(step, `a step running ${text}`).toBeDefined();
  return step!;
};

/** Runs a step's script as GitHub's runner runs it (bash -eo pipefail) in `cwd`. */
function runStep(step: Step, cwd: string, env: Record<string, string>) {
  const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run!], { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the release workflow", () => {
  it("runs on version tags only, with contents: write and nothing more", () => {
    expect(release.on).toEqual({ push: { tags: ["v*.*.*"] } });
    expect(release.permissions).toEqual({ contents: "write" });
    expect(Object.keys(release.jobs)).toHaveLength(1);
    expect(job.permissions).toBeUndefined();
  });

  it("tests as the other workflows do, with their actions, before it publishes anything", () => {
    expect(job.env?.COMPOSITION_CI_SHARED_OPTIONAL).toBe("1");
    const used = new Set<string>();
    for (const file of fs.readdirSync(WORKFLOWS).filter((f) => f !== "release.yml")) {
      for (const m of fs.readFileSync(path.join(WORKFLOWS, file), "utf8").matchAll(/uses: (\S+)/g)) used.add(m[1]!);
    }
    const uses = job.steps.map((s) => s.uses).filter(Boolean);
    expect(uses).toEqual(["actions/checkout@v4", "actions/setup-node@v4"]);
    for (const action of uses) expect(used, `${action} is used by the other workflows`).toContain(action);
    expect(job.steps.find((s) => s.uses?.startsWith("actions/setup-node"))?.with).toEqual({ "node-version": 24, cache: "npm" });

    const runs = job.steps.map((s) => s.run ?? "");
    const at = (text: string) => runs.findIndex((r) => r.includes(text));
    for (const text of ["npm ci", "npm test", "npm run bundle", "git status --porcelain dist", "gh release create", "git tag -f"])
      expect(at(text), text).toBeGreaterThanOrEqual(0);
    expect(at("npm ci")).toBeLessThan(at("npm test"));
    expect(at("npm run bundle")).toBeLessThan(at("git status --porcelain dist"));
    const publish = at("gh release create");
    for (const check of ["npm test", "git status --porcelain dist", "CHANGELOG.md", "package.json"]) expect(at(check), check).toBeLessThan(publish);
    expect(publish).toBeLessThan(at("git tag -f"));
    expect(stepWith("gh release create").env?.GH_TOKEN).toBe("${{ github.token }}");
  });

  it("refuses a tag that is not package.json's version", () => {
    const step = stepWith("package.json");
    expect(runStep(step, REPO, { GITHUB_REF_NAME: `v${packageJson.version}` }).code).toBe(0);
    const wrong = runStep(step, REPO, { GITHUB_REF_NAME: "v99.0.0" });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("not package.json's version");
  });

  it("takes the release notes from the version's section of CHANGELOG.md, and fails without one", () => {
    const step = stepWith("CHANGELOG.md");
    expect(stepWith("gh release create").run).toContain('--notes-file "$RUNNER_TEMP/release-notes.md"');
    const changelog = [
      "# Changelog",
      "",
      "## [Unreleased]",
      "",
      "- not yet",
      "",
      "## [1.2.0] - 2026-12-01",
      "",
      "### Fixed",
      "",
      "- the 1.2.0 fix",
      "",
      "## [1.1.0] - 2026-11-01",
      "",
      "- older",
      "",
      "[1.2.0]: https://example.org/compare/v1.1.0...v1.2.0",
      "",
    ].join("\n");
    const dir = tempRepo({ "CHANGELOG.md": changelog });
    const notes = path.join(dir, "release-notes.md");
    expect(runStep(step, dir, { GITHUB_REF_NAME: "v1.2.0", RUNNER_TEMP: dir }).code).toBe(0);
    expect(fs.readFileSync(notes, "utf8").trim()).toBe("### Fixed\n\n- the 1.2.0 fix");
    expect(runStep(step, dir, { GITHUB_REF_NAME: "v1.1.0", RUNNER_TEMP: dir }).code).toBe(0);
    expect(fs.readFileSync(notes, "utf8").trim()).toBe("- older");
    const missing = runStep(step, dir, { GITHUB_REF_NAME: "v1.3.0", RUNNER_TEMP: dir });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no section "## [1.3.0]"');

    // The project's CHANGELOG.md, released as it says: its Unreleased section renamed to the version.
    const ours = read("CHANGELOG.md");
    expect(ours).toMatch(/^## \[Unreleased\]$/m);
    expect(ours).toContain("Keep a Changelog");
    const released = tempRepo({ "CHANGELOG.md": ours.replace("## [Unreleased]", `## [${packageJson.version}] - 2026-12-01`) });
    expect(runStep(step, released, { GITHUB_REF_NAME: `v${packageJson.version}`, RUNNER_TEMP: released }).code).toBe(0);
    const ourNotes = fs.readFileSync(path.join(released, "release-notes.md"), "utf8");
    expect(ourNotes).toContain("### Added");
    expect(ourNotes).not.toContain("# Changelog");
  });

  it("moves the major tag to the tagged commit, only for the newest release of that major and never for a prerelease", () => {
    const step = stepWith("git tag -f");
    expect(step.if).toContain("!contains(github.ref_name, '-')");
    expect(step.run).toContain('git push -f origin "refs/tags/$MAJOR"');

    const origin = fs.mkdtempSync(path.join(os.tmpdir(), "cci-origin-"));
    execFileSync("git", ["init", "-q", "--bare", origin]);
    const repo = gitRepo({ "a.txt": "1.0.0" });
    repo.git("remote", "add", "origin", origin);
    repo.git("tag", "v1.0.0");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "1.1.0");
    const v110 = repo.commit("1.1.0");
    repo.git("tag", "v1.1.0");
    repo.git("push", "-q", "origin", "main", "--tags");
    const remoteTag = (name: string) => execFileSync("git", ["rev-parse", `refs/tags/${name}^{commit}`], { cwd: origin, encoding: "utf8" }).trim();

    // v1.1.0's run (the checkout is at the tag).
    repo.git("checkout", "-q", "v1.1.0");
    expect(runStep(step, repo.dir, { GITHUB_REF_NAME: "v1.1.0" }).code).toBe(0);
    expect(remoteTag("v1")).toBe(v110);

    // A patch of the older minor, released later, leaves v1 on 1.1.0.
    repo.git("checkout", "-q", "v1.0.0");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "1.0.1");
    repo.commit("1.0.1");
    repo.git("tag", "v1.0.1");
    const patch = runStep(step, repo.dir, { GITHUB_REF_NAME: "v1.0.1" });
    expect(patch.code).toBe(0);
    expect(patch.stdout).toContain("v1 stays where it is");
    expect(remoteTag("v1")).toBe(v110);

    // v1.10.0 is newer than v1.9.0 (version order, not text order), and moves it again.
    repo.git("checkout", "-q", "main");
    repo.git("tag", "v1.9.0");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "1.10.0");
    const v1100 = repo.commit("1.10.0");
    repo.git("tag", "v1.10.0");
    expect(runStep(step, repo.dir, { GITHUB_REF_NAME: "v1.10.0" }).code).toBe(0);
    expect(remoteTag("v1")).toBe(v1100);
  });
});

describe("the third-party notice of the bundles", () => {
  it("scripts/bundle.mjs writes THIRD_PARTY_NOTICES.md beside the bundles, naming the bundled packages and their licenses, the same bytes on every build", () => {
    const outs = [1, 2].map((n) => fs.mkdtempSync(path.join(os.tmpdir(), `cci-bundle-${n}-`)));
    for (const out of outs) execFileSync(process.execPath, [path.join(REPO, "scripts/bundle.mjs"), out], { cwd: REPO, stdio: "pipe" });
    const [first, second] = outs.map((out) => fs.readFileSync(path.join(out, "THIRD_PARTY_NOTICES.md")));
    expect(first!.equals(second!), "two builds write the same notice").toBe(true);

    const text = first!.toString("utf8");
    expect(text.startsWith("# Third-party notices\n")).toBe(true);
    const installed = (name: string) => JSON.parse(fs.readFileSync(path.join(REPO, "node_modules", name, "package.json"), "utf8")) as { version: string };
    for (const [name, license, bundles] of [
      ["yaml", "ISC", "cli-main.js, index.js"],
      ["ajv", "MIT", "cli-main.js, index.js"],
      ["@actions/core", "MIT", "index.js"],
      ["@grpc/grpc-js", "Apache-2.0", "cli-main.js, index.js"],
    ] as const) {
      const { version } = installed(name);
      expect(text, name).toContain(`| ${name} | ${version} | ${license} | ${bundles} |`);
      expect(text, name).toContain(`\n## ${name} ${version}\n\n- License: ${license}\n`);
    }
    // The packages' own license texts.
    const ajvLicense = fs.readFileSync(path.join(REPO, "node_modules/ajv/LICENSE"), "utf8").trim().split("\n")[0]!;
    expect(text).toContain(`### LICENSE\n\n\`\`\`text\n${ajvLicense}`);
    expect(text).toContain("Apache License\n                           Version 2.0, January 2004");
    // What does not end up in the bundles is not listed: the tools and the type-only packages.
    for (const dev of ["esbuild", "vitest", "typescript", "@types/node", "tsx"]) expect(text).not.toContain(`\n## ${dev} `);
    // Nothing of the machine it was built on.
    for (const where of [REPO, os.tmpdir(), ...outs]) expect(text).not.toContain(where);
    // Sorted by name.
    const names = [...text.matchAll(/^## (\S+) /gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(20);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const out of outs) fs.rmSync(out, { recursive: true, force: true });
  }, 240_000);
});
