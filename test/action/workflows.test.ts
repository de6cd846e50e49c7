import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { REPO, runCli } from "../helpers.js";

const action = YAML.parse(fs.readFileSync(path.join(REPO, "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
};
const WORKFLOWS = path.join(REPO, "docs/workflows");

describe("action.yml and the ready-to-copy workflows", () => {
  it("runs the committed bundle on node24", () => {
    expect(action.runs).toEqual({ using: "node24", main: "dist/index.js" });
    expect(fs.existsSync(path.join(REPO, action.runs.main))).toBe(true);
  });

  it("every workflow is valid YAML and passes our Action only inputs it declares", () => {
    const files = fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith(".yml"));
    expect(files.sort()).toEqual(["nightly-drift.yml", "pr-fork-safe-comment.yml", "pr-fork-safe.yml", "pr.yml"]);
    for (const file of files) {
      const workflow = YAML.parse(fs.readFileSync(path.join(WORKFLOWS, file), "utf8")) as {
        jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
      };
      for (const job of Object.values(workflow.jobs)) {
        for (const step of job.steps) {
          if (!step.uses?.startsWith("composition-ci/composition-ci")) continue;
          for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${file}: ${input}`).toContain(input);
        }
      }
    }
  });

  it("every workflow has a concurrency group: two runs never race on one comment or issue", () => {
    for (const file of fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith(".yml"))) {
      const workflow = YAML.parse(fs.readFileSync(path.join(WORKFLOWS, file), "utf8")) as { concurrency?: { group?: string } };
      expect(workflow.concurrency?.group, file).toBeTruthy();
    }
  });

  it("the fork-safe comment finds its pull request from the workflow_run event, never from the artifact", () => {
    const text = fs.readFileSync(path.join(WORKFLOWS, "pr-fork-safe-comment.yml"), "utf8");
    expect(text).toContain("context.payload.workflow_run");
    expect(text).toContain("pr.head.sha === run.head_sha");
    expect(text).not.toContain("pr-number");
    expect(fs.readFileSync(path.join(WORKFLOWS, "pr-fork-safe.yml"), "utf8")).not.toContain("pr-number");
  });

  it("every ready-to-copy workflow that runs composition-ci keeps its cache (validators, function packages)", () => {
    for (const file of ["pr.yml", "pr-fork-safe.yml", "nightly-drift.yml"]) {
      const text = fs.readFileSync(path.join(WORKFLOWS, file), "utf8");
      expect(text, file).toMatch(/uses: actions\/cache@v4[^\n]*\n\s+with:\n\s+path: ~\/\.cache\/composition-ci/);
    }
  });

  it("the bundle uses no deprecated Node built-in (punycode would print a warning on every run)", () => {
    for (const file of ["cli-main.js", "index.js"]) expect(fs.readFileSync(path.join(REPO, "dist", file), "utf8")).not.toMatch(/__require\("punycode"\)/);
  });

  it("dist/ is the bundle of the current source (run npm run bundle)", () => {
    const out = path.join(REPO, "node_modules/.cache/composition-ci-dist-check");
    execFileSync("node", [path.join(REPO, "scripts/bundle.mjs"), out], { cwd: REPO });
    const validators = fs.readdirSync(path.join(out, "validators")).map((f) => `validators/${f}`);
    expect(
      fs
        .readdirSync(path.join(REPO, "dist/validators"))
        .map((f) => `validators/${f}`)
        .sort(),
      "dist/validators is stale: run npm run bundle",
    ).toEqual(validators.sort());
    for (const file of ["index.js", "cli.js", "cli-main.js", ...validators]) {
      const fresh = fs.readFileSync(path.join(out, file), "utf8");
      const committed = fs.readFileSync(path.join(REPO, "dist", file), "utf8");
      expect(committed === fresh, `dist/${file} is stale: run npm run bundle`).toBe(true);
    }
  }, 60_000);
});

type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
type Workflow = { on: unknown; jobs: Record<string, { "runs-on": string; if?: string; strategy?: { matrix?: Record<string, unknown[]> }; steps: Step[] }> };
const PROJECT = path.join(REPO, ".github/workflows");
const project = (file: string) => YAML.parse(fs.readFileSync(path.join(PROJECT, file), "utf8")) as Workflow;

describe("the project's own workflows", () => {
  it("ci: npm ci, the type check and npm test on Node 22 and 24, on Linux and macOS", () => {
    const job = project("ci.yml").jobs.test!;
    expect(job.strategy?.matrix?.node).toEqual([22, 24]);
    expect(job.strategy?.matrix?.os).toEqual(expect.arrayContaining(["ubuntu-latest", "macos-latest"]));
    const runs = job.steps.map((s) => s.run).filter(Boolean);
    expect(runs).toEqual(expect.arrayContaining(["npm ci", "npm run build", "npm test", "npx composition-ci --help"]));
    expect(runs.indexOf("npm ci")).toBeLessThan(runs.indexOf("npm test"));
    // npm scripts use the node devDependency (24); the matrix's Node runs the suite directly.
    expect(runs).toContain("node --version && node node_modules/vitest/vitest.mjs run");
  });

  it("check-dist: rebuilds dist/, fails on a difference and uploads the expected dist/", () => {
    const steps = project("check-dist.yml").jobs["check-dist"]!.steps;
    expect(steps.some((s) => s.run === "npm run bundle")).toBe(true);
    expect(steps.some((s) => s.run?.includes("git status --porcelain dist"))).toBe(true);
    expect(steps.find((s) => s.uses?.startsWith("actions/upload-artifact"))?.with?.path).toBe("dist/");
  });

  it("self-test: uses: ./ in every mode, each followed by a step that asserts its outputs", () => {
    const workflow = project("self-test.yml");
    const modes: string[] = [];
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const i = job.steps.findIndex((s) => s.uses === "./");
      expect(i, name).toBeGreaterThanOrEqual(0);
      const step = job.steps[i]!;
      for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${name}: ${input}`).toContain(input);
      modes.push(String(step.with?.mode));
      expect(JSON.stringify(job.steps.slice(i + 1)), name).toMatch(/steps\.cci\.outputs\./);
    }
    expect(modes.sort()).toEqual(["drift", "pr", "test", "validate"]);
    expect(workflow.jobs.pr!.if).toContain("pull_request");
  });

  it("self-test's drift snapshot is what examples/ renders today", async () => {
    const { code, stdout } = await runCli(["drift", "examples", "--snapshot", ".github/self-test/examples-snapshot", "--format", "json"], REPO);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).items).toEqual([]);
  }, 60_000);

  it("the README's inputs table is action.yml's: every input, its default and its description", () => {
    const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
    const rows = new Map([...readme.matchAll(/^\| `([a-z-]+)` \| (.*?) \| (.*) \|$/gm)].map((m) => [m[1]!, { def: m[2]!, what: m[3]! }]));
    for (const [name, input] of Object.entries(action.inputs as Record<string, { default?: string; description: string }>)) {
      const row = rows.get(name);
      expect(row, `README lacks input ${name}`).toBeDefined();
      expect(row!.def, name).toBe(input.default === undefined || input.default === "" ? "—" : `\`${input.default}\``);
      expect(row!.what.replace(/\\\|/g, "|"), name).toBe(input.description);
    }
  });

  it("dependabot watches npm and the workflows' actions", () => {
    const config = YAML.parse(fs.readFileSync(path.join(REPO, ".github/dependabot.yml"), "utf8")) as { updates: { "package-ecosystem": string }[] };
    expect(config.updates.map((u) => u["package-ecosystem"]).sort()).toEqual(["github-actions", "npm"]);
  });

  it("npm scripts run on Node 24 on a fresh machine: the node devDependency, engines 22 and later", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { devDependencies: Record<string, string>; engines: { node: string } };
    expect(pkg.devDependencies.node).toMatch(/^\^24\./);
    expect(pkg.engines.node).toBe(">=22");
    expect(
      execFileSync("node", ["--version"], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${path.join(REPO, "node_modules/.bin")}${path.delimiter}${process.env.PATH}` },
      }),
    ).toMatch(/^v24\./);
  });

  it("the CLI is the package's executable bin, so npx composition-ci runs it on a fresh clone", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin["composition-ci"]).toBe("dist/cli.js");
    // A portable #! line; the launcher starts node again with a small young generation (peak memory on large repositories).
    const launcher = fs.readFileSync(path.join(REPO, "dist/cli.js"), "utf8");
    expect(launcher.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(launcher).toContain('const HEAP = "--max-semi-space-size=8"');
    const mode = execFileSync("git", ["ls-files", "-s", "dist/cli.js"], { cwd: REPO, encoding: "utf8" }).split(" ")[0];
    expect(mode).toBe("100755");
    const out = execFileSync(path.join(REPO, "dist/cli.js"), ["--version"], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
    });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const inOne = execFileSync(process.execPath, [path.join(REPO, "dist/cli.js"), "--version"], {
      encoding: "utf8",
      env: { ...process.env, COMPOSITION_CI_NO_REEXEC: "1" },
    });
    expect(inOne).toBe(out);
    // The exit code of the run comes through the launcher.
    expect(() => execFileSync(process.execPath, [path.join(REPO, "dist/cli.js"), "validate", "/nonexistent-path"], { stdio: "pipe" })).toThrow(
      expect.objectContaining({ status: 2 }),
    );
  });
});
