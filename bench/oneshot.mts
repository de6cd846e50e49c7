/**
 * One-shot benchmark, as CI runs the tool: `node dist/cli.js validate` as a fresh process on the
 * Crossplane e2e corpus at 1x, 10x and 40x (with the Crossplane CRDs), warm (validator cache
 * filled) and cold (empty cache), the fixed cost on a one-file repository, and peak RSS. When a
 * kubeconform binary is available (--kubeconform PATH, or on PATH), it runs on the same files with
 * the same CRDs as JSON schemas (-n 2), interleaved with ours, and the ratio is printed; without it,
 * the bench says how to get it (bench/validate.ts prints the js-yaml parse-floor ratio). With
 * --kubeconform-offline (or COMPOSITION_CI_OFFLINE=1) kubeconform gets only the CRDs' schemas and
 * skips other kinds, since its default schemas need the network.
 * Targets (issue 20): <= 0.8x kubeconform at 40x warm, <= 1.0x cold, fixed cost <= 250 ms, RSS < 250 MiB.
 * Issue 38 adds the re-run of a push that changed 1% of the files, on the previous run's work store
 * (target <= 0.5x kubeconform; cold <= 1.5x); the warm row is without the work store, as before it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as jsyaml from "js-yaml";
import { toJsonSchema } from "../src/validate/openapi.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const shared = path.resolve(repo, "../shared");
const corpus = path.join(shared, "corpus/crossplane-e2e");
if (!fs.existsSync(corpus)) {
  console.log(`one-shot bench skipped: ${corpus} is absent`);
  process.exit(0);
}
const cli = path.join(repo, "dist/cli.js");
const crds = path.join(shared, "crds/crossplane");
const flag = process.argv.indexOf("--kubeconform");
const kubeconform = flag > 0 ? process.argv[flag + 1] : findOnPath("kubeconform");
// Without a network kubeconform cannot fetch its default (core kind) schemas: it gets only the
// CRDs' and skips the kinds it has none for, so it does less work than composition-ci does.
const kubeconformOffline = process.argv.includes("--kubeconform-offline") || process.env.COMPOSITION_CI_OFFLINE === "1";
const time = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (dir && fs.existsSync(path.join(dir, name))) return path.join(dir, name);
  return undefined;
}

function copies(n: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cci-oneshot-${n}x-`));
  for (let i = 0; i < n; i++) fs.cpSync(corpus, path.join(dir, `copy-${i}`), { recursive: true });
  return dir;
}

/** Wall time (ms) and peak RSS (MiB, when /usr/bin/time is there) of one process. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): { ms: number; rssMiB?: number } {
  const start = performance.now();
  const r = time ? spawnSync(time, ["-f", "%M", cmd, ...args], { cwd, env, encoding: "utf8" }) : spawnSync(cmd, args, { cwd, env, encoding: "utf8" });
  const ms = performance.now() - start;
  const kb = time ? Number(r.stderr.trim().split("\n").pop()) : NaN;
  return { ms, rssMiB: Number.isFinite(kb) ? kb / 1024 : undefined };
}

/**
 * The CLI as its bin runs (the launcher starts node again with a small young generation); `plain`:
 * without that; `work: false`: without the work store (what runs kept of parsing and validating
 * files, issue 38), as every run was before it.
 */
const ours = (dir: string, cache: string, { plain = false, work = true } = {}) =>
  run(
    process.execPath,
    [cli, "validate", ".", "--crds", crds, "--cache-dir", cache, "--format", "json", "--output", path.join(os.tmpdir(), "cci-oneshot.json")],
    dir,
    { ...process.env, ...(plain ? { COMPOSITION_CI_NO_REEXEC: "1" } : {}), ...(work ? {} : { COMPOSITION_CI_WORK_CACHE: "0" }) },
  );

/** Every hundredth YAML file of `dir` gets one more comment line: a push that changes 1% of the files. */
function touchOnePercent(dir: string, round: number): void {
  const files = (function list(d: string): string[] {
    return fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? list(path.join(d, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(d, e.name)] : []));
  })(dir).sort();
  for (let i = round % 100; i < files.length; i += 100) fs.appendFileSync(files[i]!, `\n# changed in round ${round}\n`);
}

/** The CRDs as kubeconform's JSON schemas: `<kind>_<version>.json`, lower case. */
function kubeconformSchemas(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-oneshot-schemas-"));
  for (const file of fs.readdirSync(crds)) {
    for (const doc of jsyaml.loadAll(fs.readFileSync(path.join(crds, file), "utf8")) as {
      spec?: { names?: { kind?: string }; versions?: { name: string; schema?: { openAPIV3Schema?: object } }[] };
    }[]) {
      for (const v of doc?.spec?.versions ?? []) {
        if (!v.schema?.openAPIV3Schema || !doc.spec?.names?.kind) continue;
        fs.writeFileSync(
          path.join(dir, `${doc.spec.names.kind.toLowerCase()}_${v.name}.json`),
          JSON.stringify(toJsonSchema(v.schema.openAPIV3Schema as never, { structural: true })),
        );
      }
    }
  }
  return dir;
}

const best = (xs: number[]) => Math.min(...xs);
const corpusFiles = (function count(dir: string): number {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce((n, e) => n + (e.isDirectory() ? count(path.join(dir, e.name)) : /\.(ya?ml|json)$/.test(e.name) ? 1 : 0), 0);
})(corpus);
const fixedRepo = fs.mkdtempSync(path.join(os.tmpdir(), "cci-oneshot-one-"));
fs.copyFileSync(path.join(repo, "examples/crossplane/xr.yaml"), path.join(fixedRepo, "xr.yaml"));
const fixedCache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-oneshot-cache-"));
ours(fixedRepo, fixedCache);
const fixed = best([0, 1, 2].map(() => run(process.execPath, [cli, "validate", ".", "--cache-dir", fixedCache], fixedRepo).ms));
const schemas = kubeconform ? kubeconformSchemas() : undefined;

if (kubeconform)
  console.log(
    `kubeconform: ${kubeconform}${kubeconformOffline ? " (offline: only the CRDs' schemas; kinds without one, the core kinds among them, skipped)" : " (default schemas and the CRDs')"}`,
  );
console.log(`one-shot benchmark (node ${process.version}, the CLI as its bin runs; ${os.cpus().length} CPUs; best of 3, interleaved)`);
console.log(`  fixed cost, one-file repository: ${fixed.toFixed(0)} ms (target <= 250 ms): ${fixed <= 250 ? "met" : "NOT met"}`);
for (const n of [1, 10, 40]) {
  const dir = copies(n);
  const warmCache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-oneshot-cache-"));
  ours(dir, warmCache);
  const warm: number[] = [];
  const cold: number[] = [];
  const rerun: number[] = [];
  const theirs: number[] = [];
  let rss = 0;
  for (let i = 0; i < 3; i++) {
    const w = ours(dir, warmCache, { work: false });
    warm.push(w.ms);
    rss = Math.max(rss, w.rssMiB ?? 0);
    cold.push(ours(dir, fs.mkdtempSync(path.join(os.tmpdir(), "cci-oneshot-cold-"))).ms);
    // The same cache after a run of the previous push: parsed files and valid objects kept.
    ours(dir, warmCache);
    touchOnePercent(dir, i);
    rerun.push(ours(dir, warmCache).ms);
    const locations = [
      ...(kubeconformOffline ? ["-ignore-missing-schemas"] : ["-schema-location", "default"]),
      "-schema-location",
      `${schemas}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`,
    ];
    if (kubeconform && schemas) theirs.push(run(kubeconform, ["-n", "2", "-summary", ...locations, "."], dir).ms);
  }
  const plainRss = n === 40 ? ours(dir, warmCache, { plain: true, work: false }).rssMiB : undefined;
  if (n === 40 && rss)
    console.log(
      `  peak RSS at 40x: ${rss.toFixed(0)} MiB (target < 250 MiB): ${rss < 250 ? "met" : "NOT met"}${plainRss ? `; ${plainRss.toFixed(0)} MiB in one node with V8's default young generation` : ""}`,
    );
  const line = `  ${String(n).padStart(2)}x (${(n * corpusFiles).toLocaleString("en")} files): warm ${best(warm).toFixed(0)} ms, cold ${best(cold).toFixed(0)} ms (cold/warm ${(best(cold) / best(warm)).toFixed(2)}x), re-run with 1% of the files changed ${best(rerun).toFixed(0)} ms (re-run/warm ${(best(rerun) / best(warm)).toFixed(2)}x)${rss ? `, peak RSS ${rss.toFixed(0)} MiB` : ""}`;
  console.log(
    theirs.length
      ? `${line}; kubeconform ${best(theirs).toFixed(0)} ms: ours/kubeconform warm ${(best(warm) / best(theirs)).toFixed(2)}x, cold ${(best(cold) / best(theirs)).toFixed(2)}x, re-run ${(best(rerun) / best(theirs)).toFixed(2)}x (targets: re-run <= 0.5x, cold <= 1.5x)`
      : line,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
if (!kubeconform)
  console.log(
    "  kubeconform: not found (--kubeconform PATH, or on PATH; releases at github.com/yannh/kubeconform): ratios to it not printed; bench/validate.ts prints the parse-floor ratio",
  );
if (!time) console.log("  peak RSS: /usr/bin/time is not there (Debian's `time` package)");
