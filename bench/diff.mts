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

const N = 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-diff-"));
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};
write("functions.yaml", "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.8.2}\n");
for (let i = 0; i < N; i++) {
  write(`t${i}/xrd.yaml`, `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xthing${i}s.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: XThing${i}, plural: xthing${i}s}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: string}}}}}}}]
`);
  write(`t${i}/composition.yaml`, `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xthing${i}s.example.org}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing${i}}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: config
            base: {apiVersion: v1, kind: ConfigMap, data: {size: small}}
            patches: [{type: FromCompositeFieldPath, fromFieldPath: spec.size, toFieldPath: data.size}]
`);
  write(`t${i}/xr.yaml`, `apiVersion: example.org/v1\nkind: XThing${i}\nmetadata: {name: thing${i}, namespace: default}\nspec: {size: large}\n`);
}
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
