import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { DiffReport } from "../../src/report/diff.js";
import { gitRepo, runCli } from "../helpers.js";

/**
 * `diff --fail-on-new` through the CLI: an error already on the base branch does not fail the run
 * (a baseline), without the flag it does; an error the head adds fails it either way; an error whose
 * object was only renamed or moved is not added.
 */

// A ConfigMap's data values are strings: `size: 5` is a schema/type error.
const OLD_ERROR = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: legacy, namespace: default}\ndata: {size: 5}\n";
const GOOD = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: default}\ndata: {value: "${value}"}\n`;

function repo(): string {
  return gitRepo({ "legacy.yaml": OLD_ERROR, "good.yaml": GOOD("one") }).dir;
}

async function diff(dir: string, ...flags: string[]) {
  const run = await runCli(["diff", "--base", "main", "--format", "json", ...flags], dir);
  return { code: run.code, stderr: run.stderr, report: JSON.parse(run.stdout) as DiffReport };
}

const rules = (list: { rule: string; file?: string }[]) => list.map((f) => `${f.rule} ${f.file}`);

describe("diff --fail-on-new", () => {
  it("the only error was already on the base branch: 0 with the flag, 1 without", async () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, "good.yaml"), GOOD("two"));
    const withFlag = await diff(dir, "--fail-on-new");
    expect(rules(withFlag.report.findings.unchanged)).toEqual(["schema/type legacy.yaml"]);
    expect(withFlag.report.findings.new).toEqual([]);
    expect(withFlag.report.verdict).toMatchObject({ failed: false, failOn: "error", failOnNew: true });
    expect(withFlag.code).toBe(0);

    const without = await diff(dir);
    expect(without.report.verdict).toMatchObject({ failed: true, failOnNew: false, failing: { error: 1, warning: 0, info: 0 } });
    expect(without.code).toBe(1);

    const markdown = await runCli(["diff", "--base", "main", "--fail-on-new"], dir);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout.split("\n")[0]).toBe("### ✅ composition-ci: passes (fail-on: error, new findings only; 1 error already on the base branch)");
  }, 30_000);

  it("the head adds an error: 1 with the flag, naming the new one", async () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, "added.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: added, namespace: default}\ndata: {count: 3}\n");
    const { code, report } = await diff(dir, "--fail-on-new");
    expect(rules(report.findings.new)).toEqual(["schema/type added.yaml"]);
    expect(rules(report.findings.unchanged)).toEqual(["schema/type legacy.yaml"]);
    expect(report.verdict).toMatchObject({ failed: true, failOnNew: true, failing: { error: 1, warning: 0, info: 0 } });
    expect(code).toBe(1);
    const markdown = await runCli(["diff", "--base", "main", "--fail-on-new"], dir);
    expect(markdown.code).toBe(1);
    expect(markdown.stdout.split("\n")[0]).toBe("### ❌ composition-ci: fails on 1 new error (fail-on: error, new findings only)");
  }, 30_000);

  it("renaming the object with the old error, or moving its file, leaves the error unchanged: not new", async () => {
    const renamed = repo();
    fs.writeFileSync(path.join(renamed, "legacy.yaml"), OLD_ERROR.replace("name: legacy", "name: legacy-renamed"));
    const afterRename = await diff(renamed, "--fail-on-new");
    expect(afterRename.report.findings).toMatchObject({ new: [], fixed: [], unchanged: [{ rule: "schema/type", name: "legacy-renamed" }] });
    expect(afterRename.code).toBe(0);

    const moved = repo();
    fs.mkdirSync(path.join(moved, "config"));
    fs.renameSync(path.join(moved, "legacy.yaml"), path.join(moved, "config/legacy.yaml"));
    const afterMove = await diff(moved, "--fail-on-new");
    expect(rules(afterMove.report.findings.unchanged)).toEqual(["schema/type config/legacy.yaml"]);
    expect(afterMove.report.findings.new).toEqual([]);
    expect(afterMove.code).toBe(0);
  }, 30_000);

  it("fixing the old error on the head is a fixed finding and passes either way", async () => {
    const dir = repo();
    fs.writeFileSync(path.join(dir, "legacy.yaml"), OLD_ERROR.replace("size: 5", 'size: "5"'));
    const withFlag = await diff(dir, "--fail-on-new");
    expect(rules(withFlag.report.findings.fixed)).toEqual(["schema/type legacy.yaml"]);
    expect(withFlag.code).toBe(0);
    expect((await diff(dir)).code).toBe(0);
  }, 30_000);
});
