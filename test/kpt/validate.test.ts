import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, runCli, tempRepo, writeFiles } from "../helpers.js";
import type { Finding } from "../../src/core/finding.js";

/** validate checks the Kptfiles as kpt does before it runs anything; check and diff report each finding once. */

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
    - image: set-labels
      exec: ./x
    - image: set-labels
      configPath: missing.yaml
`;
const SUB = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: sub
pipeline:
  validatrs: []
`;

const files = {
  "app/Kptfile": KPTFILE,
  "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
  "app/sub/Kptfile": SUB,
  "app/sub/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n",
};

const kpt = (stdout: string) =>
  (JSON.parse(stdout) as { findings: Finding[] }).findings
    .filter((f) => f.rule.startsWith("kpt/"))
    .map((f) => `${f.file}:${f.line} ${f.severity} ${f.rule}`)
    .sort();

const EXPECTED = ["app/Kptfile:7 error kpt/kptfile", "app/Kptfile:10 error kpt/function-config", "app/sub/Kptfile:6 error kpt/kptfile"].sort();

describe("Kptfiles in validate", () => {
  it("validate reports each Kptfile's checks, subpackages too, without rendering", async () => {
    const run = await runCli(["validate", ".", "--format", "json", "--no-cache"], tempRepo(files));
    expect(kpt(run.stdout)).toEqual(EXPECTED);
    expect(run.code).toBe(1);
  });

  it("validate of a directory inside a package checks the package it belongs to (a Kptfile above what it walks)", async () => {
    const run = await runCli(["validate", "app/sub", "--format", "json", "--no-cache"], tempRepo(files));
    expect(kpt(run.stdout)).toEqual(EXPECTED);
  });

  it("a Kptfile that is a link to a file inside the repository makes a package", async () => {
    const dir = tempRepo({ "shared/Kptfile": SUB, "app/cm.yaml": files["app/cm.yaml"] });
    fs.symlinkSync("../shared/Kptfile", `${dir}/app/Kptfile`);
    const run = await runCli(["validate", "app", "--format", "json", "--no-cache"], dir);
    expect(kpt(run.stdout)).toEqual(["app/Kptfile:6 error kpt/kptfile"]);
  });

  it("check reports the same findings once, though rendering makes them again", async () => {
    const run = await runCli(["check", ".", "--format", "json", "--no-cache"], tempRepo(files));
    expect(kpt(run.stdout)).toEqual(EXPECTED);
  });

  it("diff lists each once among the new findings", async () => {
    const { dir } = gitRepo({ "app/cm.yaml": files["app/cm.yaml"] });
    writeFiles(dir, files);
    const run = await runCli(["diff", "--base", "main", "--format", "json"], dir);
    const fresh = (JSON.parse(run.stdout) as { findings: { new: Finding[] } }).findings.new
      .filter((f) => f.rule.startsWith("kpt/"))
      .map((f) => `${f.file}:${f.line} ${f.severity} ${f.rule}`);
    expect(fresh.sort()).toEqual(EXPECTED);
  });

  it("only packages holding files the run reads: not ignored directories, nor node_modules", async () => {
    const bad = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\npipeline:\n  validatrs: []\n`;
    const dir = tempRepo({
      ".composition-ci.yaml": "ignore: [vendor/**]\n",
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n",
      "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
      "vendor/thing/Kptfile": bad("thing"),
      "vendor/thing/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v}\n",
      "node_modules/x/Kptfile": bad("x"),
      "node_modules/x/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n",
      "other/Kptfile": bad("other"),
      "other/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o}\n",
    });
    const some = await runCli(["validate", "app", "--format", "json", "--no-cache"], dir);
    expect(kpt(some.stdout)).toEqual([]);
    expect(some.code).toBe(0);
    const all = await runCli(["validate", ".", "--format", "json", "--no-cache"], dir);
    expect(kpt(all.stdout)).toEqual(["other/Kptfile:6 error kpt/kptfile"]);
  });

  it("diff: a package that fails to read on both sides is one unchanged finding, not a new and a fixed one", async () => {
    const { dir } = gitRepo({
      "app/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
      "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
      "app/broken.yaml": "a: [1, 2\n",
    });
    fs.writeFileSync(path.join(dir, "app/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {a: b}}\n");
    const report = JSON.parse((await runCli(["diff", "--base", "main", "--format", "json"], dir)).stdout) as {
      findings: { new: Finding[]; fixed: Finding[]; unchanged: Finding[] };
    };
    const failed = (list: Finding[]) => list.filter((f) => f.rule === "render/kpt-failed");
    expect(failed(report.findings.new)).toEqual([]);
    expect(failed(report.findings.fixed)).toEqual([]);
    expect(failed(report.findings.unchanged)).toHaveLength(1);
    expect(failed(report.findings.unchanged)[0]!.message).toContain("app/broken.yaml");
  });

  it("a Kptfile that is a link out of the repository is not read, and nothing of it is quoted", async () => {
    const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cci-outside-")), "secret.txt");
    fs.writeFileSync(outside, "root:x:0:0:do-not-print\n");
    const dir = tempRepo({ "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" });
    fs.symlinkSync(outside, path.join(dir, "app/Kptfile"));
    for (const command of ["validate", "check"]) {
      const run = await runCli([command, ".", "--format", "json", "--no-cache"], dir);
      expect(run.stdout).not.toContain("do-not-print");
      const findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings.filter((f) => f.rule === "kpt/kptfile");
      expect(findings.map((f) => `${f.file} ${f.message}`)).toEqual([
        'app/Kptfile error reading Kptfile at "app": it is a link that leads outside the repository; not read',
      ]);
    }
  });
});
