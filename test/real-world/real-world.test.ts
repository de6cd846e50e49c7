import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { HAS_SHARED, SHARED, runCli, describeShared } from "../helpers.js";
import { REVIEWED_E2E_ERRORS, REVIEWED_ERRORS, type ReviewedError } from "./reviewed-errors.js";
import { verdictOf } from "./warning-verdicts.js";

/**
 * `check` on public repositories nobody here wrote (../shared/corpus/real): no crash, no internal
 * error, under 10 s each, and exactly the errors reviewed as true positives; run again with what
 * the first run kept in its cache, the same output byte for byte.
 */
const REAL = path.join(SHARED, "corpus/real");
const repos = HAS_SHARED ? fs.readdirSync(REAL).filter((d) => fs.statSync(path.join(REAL, d)).isDirectory()) : [];

type Finding = { rule: string; severity: string; file?: string; line?: number };

describeShared("real repositories", () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-real-"));

  it("every repository of the corpus has reviewed findings here", () => {
    expect(repos.sort()).toEqual(Object.keys(REVIEWED_ERRORS).sort());
  });

  async function checkReviewed(dir: string, reviewed: ReviewedError[]) {
    const started = performance.now();
    const { code, stdout, stderr } = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
    expect(performance.now() - started).toBeLessThan(10_000);
    // Run again on what the first run kept (cache/store.ts): the output is the same, byte for byte.
    const warm = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
    expect(warm.stdout).toBe(stdout);
    expect(warm.code).toBe(code);
    expect(stderr).not.toContain("internal error");
    expect(code).toBeLessThan(2);
    const findings = (JSON.parse(stdout) as { findings: Finding[] }).findings;
    expect(findings.filter((f) => f.rule === "internal/error")).toEqual([]);
    const errors = findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}:${f.line}`);
    expect(errors.sort()).toEqual(reviewed.map((e) => `${e.rule} ${e.file}:${e.line}`).sort());
    // Every class of warning is in the ledger with its verdict (warning-verdicts.ts, docs/real-world.md).
    const unjudged = [...new Set(findings.filter((f) => f.severity === "warning").map((f) => f.rule))].filter((rule) => !verdictOf(rule));
    expect(unjudged).toEqual([]);
  }

  for (const repo of repos) {
    it(
      `${repo}: no internal error, and only errors reviewed as true positives`,
      () => checkReviewed(path.join(REAL, repo), REVIEWED_ERRORS[repo] ?? []),
      30_000,
    );
  }

  it(
    "the Crossplane e2e manifests: no internal error, and only errors reviewed as true positives",
    () => checkReviewed(path.join(SHARED, "corpus/crossplane-e2e"), REVIEWED_E2E_ERRORS),
    30_000,
  );
});
