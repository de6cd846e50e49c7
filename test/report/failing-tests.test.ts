import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatDiff, runDiff } from "../../src/run/diff.js";
import { REPO, gitRepo } from "../helpers.js";

describe("the PR report shows the repository's failing tests first", () => {
  it("a change that breaks examples/' CompositionTest and golden file: new test/failed findings, listed before the changes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-failing-tests-"));
    fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
    gitRepo(dir);
    const xr = path.join(dir, "crossplane/xr.yaml");
    fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("replicas: 3", "replicas: 4"));
    const result = await runDiff({ root: dir, paths: ["."], base: "HEAD" });
    const failed = result.report.findings.new.filter((f) => f.rule === "test/failed");
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(result.report.verdict.failed).toBe(true);
    const markdown = formatDiff(result, "markdown");
    expect(markdown).toContain("**Failing tests**");
    expect(markdown.indexOf("**Failing tests**")).toBeLessThan(markdown.indexOf("**Changes**"));
    // Each failing test with its differences, one per line under it.
    const section = markdown.slice(markdown.indexOf("**Failing tests**"), markdown.indexOf("**Changes**"));
    expect(section).toMatch(
      /- ❌ 🆕 `crossplane\/webapp-test\.yaml:\d+` CompositionTest storefront-deployment-and-service fails [^\n]*\n {2}- apps\/v1 Deployment [^\n]*\n {2}- spec\.replicas: want 3, got 4/,
    );
  }, 60_000);
});
