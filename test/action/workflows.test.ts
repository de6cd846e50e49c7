import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { REPO } from "../helpers.js";

const action = YAML.parse(fs.readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, unknown>; outputs: Record<string, unknown>; runs: { using: string; main: string } };
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
      const workflow = YAML.parse(fs.readFileSync(path.join(WORKFLOWS, file), "utf8")) as { jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }> };
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

  it("dist/ is the bundle of the current source (run npm run bundle)", () => {
    const out = path.join(REPO, "node_modules/.cache/composition-ci-dist-check");
    execFileSync("node", [path.join(REPO, "scripts/bundle.mjs"), out], { cwd: REPO });
    for (const file of ["index.js", "cli.js"]) {
      const fresh = fs.readFileSync(path.join(out, file), "utf8");
      const committed = fs.readFileSync(path.join(REPO, "dist", file), "utf8");
      expect(committed === fresh, `dist/${file} is stale: run npm run bundle`).toBe(true);
    }
  }, 60_000);
});
