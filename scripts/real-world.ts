/**
 * Prints the table of docs/real-world.md: `check` on each public repository of
 * ../shared/corpus/real (and the Crossplane e2e corpus), as a first-time user would run it.
 * Usage: npx tsx scripts/real-world.ts [corpus-dir]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/main.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = process.argv[2] ?? path.resolve(here, "../../shared/corpus");
const repos = [...fs.readdirSync(path.join(shared, "real")).filter((d) => fs.statSync(path.join(shared, "real", d)).isDirectory()).map((d) => path.join("real", d)), "crossplane-e2e"];

console.log("| repository | files | documents | errors | warnings | info | sources rendered / not rendered / failed | not rendered because | time (one process, warm) |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const repo of repos) {
  let stdout = "";
  let stderr = "";
  const started = performance.now();
  await main(["check", ".", "--format", "json"], { cwd: path.join(shared, repo), stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  const ms = Math.round(performance.now() - started);
  const { summary } = JSON.parse(stdout) as { summary: Record<string, number> };
  const line = /rendered (\d+) of (\d+) sources[^;\n]*(?:; not rendered: (\d+) \(([^)]*)\))?(?:; failed: (\d+))?/.exec(stderr);
  const [rendered, total, notRendered, why, failed] = line ? [line[1], line[2], line[3] ?? "0", line[4] ?? "", line[5] ?? "0"] : ["0", "0", "0", "", "0"];
  const because = why.replace(/\bKubeVela: (\d+)/, "KubeVela Applications (CUE): $1");
  console.log(`| ${path.basename(repo)} | ${summary.files} | ${summary.documents} | ${summary.errors} | ${summary.warnings} | ${summary.infos} | ${rendered} of ${total} / ${notRendered} / ${failed} | ${because || "—"} | ${(ms / 1000).toFixed(1)} s |`);
}
