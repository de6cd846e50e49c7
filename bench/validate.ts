/**
 * Validation benchmark: the Crossplane e2e corpus replicated 40 times (about 12,600 documents)
 * with the Crossplane CRDs, validated cold (empty validator cache) and warm (cache filled), each
 * compared with only parsing the same files with js-yaml, the fastest YAML parser here, measured
 * in this same run. Prints ratios, not absolute targets: machines differ, ratios travel.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as jsyaml from "js-yaml";
import { emptyConfig } from "../src/config/config.js";
import { discover } from "../src/manifest/discover.js";
import { validateRepo, type Timings } from "../src/run/validate.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = path.resolve(here, "../../shared");
const corpus = path.join(shared, "corpus/crossplane-e2e");
if (!fs.existsSync(corpus)) {
  console.log(`bench skipped: ${corpus} is absent`);
  process.exit(0);
}

const COPIES = Number(process.env.BENCH_COPIES ?? 40);
const ROUNDS = 3;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-"));
for (let i = 0; i < COPIES; i++) fs.cpSync(corpus, path.join(work, `copy-${i}`), { recursive: true });
const crds = path.join(shared, "crds/crossplane");
const files = discover(["."], { root: work }).map((f) => f.abs);

function parseOnly(): { ms: number; documents: number } {
  const start = performance.now();
  let documents = 0;
  for (const f of files) {
    try {
      documents += jsyaml.loadAll(fs.readFileSync(f, "utf8"), null, { schema: jsyaml.CORE_SCHEMA }).length;
    } catch {
      // the corpus has one file with a duplicate key
    }
  }
  return { ms: performance.now() - start, documents };
}

interface Run {
  ms: number;
  documents: number;
  findings: number;
  timings: Partial<Timings>;
}

async function validate(cacheDir: string, semanticRules = true): Promise<Run> {
  const start = performance.now();
  const timings: Partial<Timings> = {};
  const result = await validateRepo({ root: work, paths: ["."], config: emptyConfig(), crds: [crds], cacheDir, semanticRules, timings });
  return { ms: performance.now() - start, documents: result.documents, findings: result.findings.length, timings };
}

const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-cache-"));
parseOnly(); // warm the file system cache and the JIT for both sides alike
// Parsing is measured first, on a heap with nothing else's garbage: the baseline is not slowed
// by validation's leftovers, which would flatter the ratio.
const parses = Array.from({ length: ROUNDS }, () => parseOnly());
const cold = await validate(cacheDir);
const withRules: Run[] = [];
const schemaOnly: Run[] = [];
for (let round = 0; round < ROUNDS; round++) {
  withRules.push(await validate(cacheDir));
  schemaOnly.push(await validate(cacheDir, false)); // what the semantic rules cost
}
const warm = withRules[0]!;
const best = (runs: { ms: number }[]) => Math.min(...runs.map((r) => r.ms));
const bestRun = withRules.reduce((a, b) => (b.ms < a.ms ? b : a));
const parse = parses[0]!;

const parseMs = best(parses);
const row = (name: string, r: { ms: number; documents: number }) =>
  `${name.padEnd(22)} ${r.ms.toFixed(0).padStart(7)} ms  ${Math.round((r.documents / r.ms) * 1000)
    .toString()
    .padStart(7)} docs/s  ratio ${(r.ms / parseMs).toFixed(2)}`;
console.log(`corpus: ${files.length} files, ${parse.documents} documents (${COPIES} copies of crossplane-e2e), ${os.cpus().length} cores`);
console.log(row("parse only (js-yaml)", { ms: parseMs, documents: parse.documents }));
console.log(row("validate, cold cache", cold));
console.log(row("validate, warm cache", warm));
console.log(row(`validate, warm, best of ${ROUNDS}`, { ...warm, ms: best(withRules) }));
const phases = Object.entries(bestRun.timings).map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`);
console.log(`best warm run by phase (ms): ${phases.join(", ")} (read is discovery and parsing, with the --crds files)`);
console.log(
  `semantic rules: ${best(withRules).toFixed(0)} ms with, ${best(schemaOnly).toFixed(0)} ms without, ratio ${(best(withRules) / best(schemaOnly)).toFixed(2)} (target <= 1.20)`,
);
// The process's high-water mark (the kernel's; a timer sampling it never fires while a run holds
// the thread), over every run above in one process with V8's default heap: what one CLI or Action
// run takes is bench/oneshot.mts's figure.
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(
  `findings: ${warm.findings}; peak RSS of this process over its ${1 + 2 * ROUNDS} validations and ${1 + ROUNDS} parses: ${(peakRss / 1024 / 1024).toFixed(0)} MiB (one CLI run: bench/oneshot.mts); target ratio <= 1.3`,
);
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(cacheDir, { recursive: true, force: true });
