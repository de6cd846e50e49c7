/**
 * diff benchmark, one run: a git repository with 1,000 XRD + Composition + XR triples, one
 * Composition changed. Prints how many sources each mode renders and the time of
 * `diff` (affected sources only) against `diff --all`, as a ratio, after a warm-up run. Target: the
 * affected-only diff renders exactly the changed Composition's XR (1 of 1,000). Both modes read
 * and validate both trees, so the ratio is the rendering that selection saves; a third run without
 * the work shared between the trees (files parsed once, base files hard-linked) shows what sharing saves.
 * Target (issue 20): affected-only < 1.5 s.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDiff } from "../src/run/diff.js";
import { triples } from "../test/fixtures/triples.js";

const N = 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-diff-"));
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};
for (const [rel, text] of Object.entries(triples(N))) write(rel, text);
const env = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir, env });
execFileSync("git", ["add", "-A"], { cwd: dir, env });
execFileSync("git", ["commit", "-qm", "base"], { cwd: dir, env });
const changed = path.join(dir, "t500/composition.yaml");
fs.writeFileSync(changed, fs.readFileSync(changed, "utf8").replace("data: {size: small}", "data: {size: small, tier: gold}"));

async function timed(all: boolean, fullValidation = false) {
  const start = performance.now();
  const { report } = await runDiff({ root: dir, paths: ["."], base: "main", all, fullValidation });
  return { ms: performance.now() - start, report };
}

await timed(false); // warm-up: schema compilation and module loading are not what is measured
const affected = await timed(false);
const everything = await timed(true);
const separate = await timed(false, true);
console.log(`diff on ${N} Compositions, one changed`);
console.log(
  `  affected only: rendered ${affected.report.sources.rendered} of ${affected.report.sources.total} sources, ${affected.ms.toFixed(0)} ms, changed: ${affected.report.changes
    .filter((c) => c.status !== "unchanged")
    .map((c) => c.name)
    .join(", ")}`,
);
console.log(`  --all:         rendered ${everything.report.sources.rendered} of ${everything.report.sources.total} sources, ${everything.ms.toFixed(0)} ms`);
console.log(`  ratio (--all / affected): ${(everything.ms / affected.ms).toFixed(2)}x`);
console.log(
  `  affected only, each tree read and validated on its own (no shared work): ${separate.ms.toFixed(0)} ms, ${(separate.ms / affected.ms).toFixed(2)}x the shared run`,
);
console.log(`  target (issue 20): affected-only diff < 1500 ms: ${affected.ms < 1500 ? "met" : "not met"}`);
fs.rmSync(dir, { recursive: true, force: true });
