import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCli } from "../helpers.js";
import { appRepo, compositionTest } from "./fixture.js";
import { childrenNamed, parseXml } from "./xml.js";

/** The tests as part of `check` (the main job) and as the Action's `mode: test`. */

const PASSES = compositionTest("passes", "  - {apiVersion: v1, kind: ConfigMap, data: {size: large}}\n");
const FAILS = compositionTest("fails", "  - {apiVersion: apps/v1, kind: Deployment, spec: {replicas: 5}}\n");

describe("check runs the repository's tests", () => {
  it("on examples/: the CompositionTest and the golden file pass, and the report stays clean", async () => {
    const r = await runCli(["check", "examples", "--no-cache", "--format", "json"], REPO);
    expect(r.stderr).toContain("ran 2 tests (1 CompositionTest, 1 golden file): 2 passed");
    // The golden file ran as a test: no note that it is render output left out of the manifests.
    const findings = JSON.parse(r.stdout).findings as { rule: string; file?: string }[];
    expect(
      findings.filter((f) => f.rule.startsWith("test/") || f.rule === "file/not-applied" || f.file?.includes("test") || f.file?.includes("golden")),
    ).toEqual([]);
    expect(r.code).toBe(0);
    expect((await runCli(["test", "examples", "--no-cache"], REPO)).stdout).toContain("2 tests: 2 passed");
  });

  it("a failing test is an error finding at the failing assertion; the config's rule levels apply", async () => {
    const dir = appRepo({ "tests/a-test.yaml": `${PASSES}---\n${FAILS}` });
    const r = await runCli(["check", "--format", "json", "--no-cache"], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ran 2 tests (2 CompositionTests): 1 passed, 1 failed");
    const failed = JSON.parse(r.stdout).findings.filter((f: { rule: string }) => f.rule.startsWith("test/"));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ rule: "test/failed", severity: "error", file: "tests/a-test.yaml", line: 21, kind: "CompositionTest", name: "fails" });
    expect(failed[0].message).toContain("spec.replicas: want 5, got 3");

    const lenient = appRepo({ "tests/a-test.yaml": FAILS, ".composition-ci.yaml": "rules:\n  test/failed: warning\n" });
    const warned = await runCli(["check", "--format", "json", "--no-cache"], lenient);
    expect(warned.code).toBe(0);
    expect(JSON.parse(warned.stdout).findings.find((f: { rule: string }) => f.rule === "test/failed").severity).toBe("warning");
  });

  it("a CompositionTest of the wrong shape is an error finding; a broken YAML test file is reported once, by validation", async () => {
    const dir = appRepo({
      "tests/shape.yaml": compositionTest("shape", "  - {apiVersion: v1, kind: ConfigMap}\n").replace(
        "xrPath: examples/app.yaml",
        "xrPath: [examples/app.yaml]",
      ),
      "tests/broken.yaml": "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: CompositionTest\nmetadata: {name: broken\n",
    });
    const r = await runCli(["check", "--format", "json", "--no-cache"], dir);
    expect(r.code).toBe(1);
    const findings = JSON.parse(r.stdout).findings as { rule: string; file: string; line: number; message: string }[];
    expect(findings.filter((f) => f.file === "tests/broken.yaml").map((f) => f.rule)).toEqual(["yaml/syntax"]);
    expect(findings.find((f) => f.file === "tests/shape.yaml")).toMatchObject({
      rule: "test/unreadable",
      line: 6,
      message: "CompositionTest shape: spec.xrPath must be a path (a string)",
    });
  });
});

/** The Action's entry point run as the runner runs it, on the source (tsx), in `dir`. */
function runAction(dir: string, inputs: Record<string, string>) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-test-mode-"));
  const files = { output: path.join(work, "output"), summary: path.join(work, "summary.md"), reports: path.join(work, "reports") };
  fs.writeFileSync(files.output, "");
  fs.writeFileSync(files.summary, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? os.tmpdir(),
    COMPOSITION_CI_CACHE: process.env.COMPOSITION_CI_CACHE ?? path.join(work, "cache"),
    // No network in tests (vitest.config.ts): function packages only from the cache.
    ...(process.env.COMPOSITION_CI_OFFLINE ? { COMPOSITION_CI_OFFLINE: process.env.COMPOSITION_CI_OFFLINE } : {}),
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    RUNNER_TEMP: work,
    "INPUT_REPORT-DIR": files.reports,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  return new Promise<{ code: number; log: string; outputs: Record<string, string>; summary: string; reports: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO, "node_modules/tsx/dist/cli.mjs"), path.join(REPO, "src/index.ts")], { cwd: dir, env });
    let log = "";
    child.stdout.on("data", (d) => (log += d));
    child.stderr.on("data", (d) => (log += d));
    child.on("close", (code) => {
      const outputs: Record<string, string> = {};
      const re = /^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
      const text = fs.readFileSync(files.output, "utf8");
      for (let m = re.exec(text); m; m = re.exec(text)) outputs[m[1]!] = m[3]!;
      resolve({ code: code ?? -1, log, outputs, summary: fs.readFileSync(files.summary, "utf8"), reports: files.reports });
    });
  });
}

describe("the Action's mode: test", () => {
  it("writes the job summary (failing tests first), JUnit, JSON and SARIF, sets the outputs and fails the step", async () => {
    const dir = appRepo({ "tests/a-test.yaml": `${PASSES}---\n${FAILS}` });
    const run = await runAction(dir, { mode: "test", paths: "." });
    expect(run.code, run.log).toBe(1);
    expect(run.log).toContain("::error::composition-ci test: 2 tests: 1 passed, 1 failed");
    // An annotation at the failing assertion.
    expect(run.log).toMatch(/::error title=test\/failed,file=tests\/a-test\.yaml,line=21,col=1::CompositionTest fails fails/);
    expect(run.outputs).toMatchObject({ verdict: "fail", errors: "1", warnings: "0", "comment-url": "" });
    expect(run.outputs["report-path"]).toBe(path.join(run.reports, "tests.txt"));
    const rows = run.summary.split("\n").filter((l) => l.startsWith("| "));
    expect(rows.slice(1)).toEqual([
      "| ❌ failed | CompositionTest fails | `tests/a-test.yaml:12` |",
      "| ✅ passed | CompositionTest passes | `tests/a-test.yaml:1` |",
    ]);
    expect(run.summary).toContain("spec.replicas: want 5, got 3");
    const junit = parseXml(fs.readFileSync(path.join(run.reports, "junit.xml"), "utf8"));
    expect(childrenNamed(childrenNamed(junit, "testsuite")[0]!, "testcase")).toHaveLength(2);
    expect(JSON.parse(fs.readFileSync(path.join(run.reports, "tests.json"), "utf8")).summary).toMatchObject({ tests: 2, passed: 1, failed: 1 });
    expect(JSON.parse(fs.readFileSync(run.outputs["sarif-path"]!, "utf8")).runs[0].results[0].ruleId).toBe("test/failed");
  }, 60_000);

  it("passes on examples/", async () => {
    const run = await runAction(REPO, { mode: "test", paths: "examples" });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toMatchObject({ verdict: "pass", errors: "0" });
    expect(run.summary).toContain("### ✅ composition-ci test: 2 tests: 2 passed");
  }, 60_000);
});
