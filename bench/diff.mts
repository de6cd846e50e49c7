/**
 * diff benchmark, one run: a git repository with 1,000 XRD + Composition + XR triples, one
 * Composition changed. Prints how many sources each mode renders and the time of
 * `diff` (affected sources only) against `diff --all`, as a ratio, after a warm-up run. Target: the
 * affected-only diff renders exactly the changed Composition's XR (1 of 1,000). Both modes read
 * and validate both trees, so the ratio is the rendering that selection saves.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDiff } from "../src/commands/diff.js";
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

async function timed(all: boolean) {
  const start = performance.now();
  const { report } = await runDiff({ root: dir, paths: ["."], base: "main", all });
  return { ms: performance.now() - start, report };
}

await timed(false); // warm-up: schema compilation and module loading are not what is measured
const affected = await timed(false);
const everything = await timed(true);
console.log(`diff on ${N} Compositions, one changed`);
console.log(`  affected only: rendered ${affected.report.sources.rendered} of ${affected.report.sources.total} sources, ${affected.ms.toFixed(0)} ms, changed: ${affected.report.changes.filter((c) => c.status !== "unchanged").map((c) => c.name).join(", ")}`);
console.log(`  --all:         rendered ${everything.report.sources.rendered} of ${everything.report.sources.total} sources, ${everything.ms.toFixed(0)} ms`);
console.log(`  ratio (--all / affected): ${(everything.ms / affected.ms).toFixed(2)}x`);
fs.rmSync(dir, { recursive: true, force: true });
