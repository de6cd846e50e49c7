/**
 * Prints the tables of docs/real-world.md: `check` on each public repository of
 * ../shared/corpus/real (and the Crossplane e2e corpus), as a first-time user would run it, then
 * the ledger: every class of error and warning of each repository with its count and verdict
 * (errors from test/real-world/reviewed-errors.ts, warnings from warning-verdicts.ts).
 * Usage: COMPOSITION_CI_OFFLINE=1 npx tsx scripts/real-world.ts [corpus-dir]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/main.js";
import { REVIEWED_E2E_ERRORS, REVIEWED_ERRORS } from "../test/real-world/reviewed-errors.js";
import { verdictOf } from "../test/real-world/warning-verdicts.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const shared = process.argv[2] ?? path.resolve(here, "../../shared/corpus");
const repos = [
  ...fs
    .readdirSync(path.join(shared, "real"))
    .filter((d) => fs.statSync(path.join(shared, "real", d)).isDirectory())
    .map((d) => path.join("real", d)),
  "crossplane-e2e",
];

interface Report {
  summary: Record<string, number>;
  sources?: { total: number; rendered: number; notRendered: number; failed: number; notRenderedBecause: Record<string, number> };
  findings: { rule: string; severity: string; file?: string; line?: number }[];
}

const ledger: string[] = [];
console.log(
  "| repository | files | documents | errors | warnings | info | sources rendered / not rendered / failed | not rendered because | time (one process, warm) |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const repo of repos) {
  let stdout = "";
  const started = performance.now();
  await main(["check", ".", "--format", "json"], { cwd: path.join(shared, repo), stdout: (t) => (stdout += t), stderr: () => undefined, isTTY: false });
  const ms = Math.round(performance.now() - started);
  const report = JSON.parse(stdout) as Report;
  const { summary } = report;
  const s = report.sources ?? { total: 0, rendered: 0, notRendered: 0, failed: 0, notRenderedBecause: {} };
  const because = Object.entries(s.notRenderedBecause)
    .map(([what, n]) => `${what}: ${n}`)
    .join(", ");
  const name = path.basename(repo);
  console.log(
    `| ${name} | ${summary.files} | ${summary.documents} | ${summary.errors} | ${summary.warnings} | ${summary.infos} | ${s.rendered} of ${s.total} / ${s.notRendered} / ${s.failed} | ${because || "—"} | ${(ms / 1000).toFixed(1)} s |`,
  );
  ledger.push(...ledgerOf(name, report));
}
console.log("\n## The ledger\n");
console.log("| repository | severity | rule | count | verdict |");
console.log("|---|---|---|---|---|");
for (const line of ledger) console.log(line);

/** One row per class of error and warning: errors with the reasons reviewed, warnings with the class verdict. */
function ledgerOf(name: string, report: Report): string[] {
  const reviewed = name === "crossplane-e2e" ? REVIEWED_E2E_ERRORS : (REVIEWED_ERRORS[name] ?? []);
  const classes = new Map<string, number>();
  for (const f of report.findings)
    if (f.severity !== "info") classes.set(`${f.severity}\u0000${f.rule}`, (classes.get(`${f.severity}\u0000${f.rule}`) ?? 0) + 1);
  return [...classes]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, count]) => {
      const [severity, rule] = key.split("\u0000") as [string, string];
      const verdict = severity === "error" ? errorVerdict(rule, reviewed) : (verdictOf(rule) ?? "NOT JUDGED");
      return `| ${name} | ${severity} | \`${rule}\` | ${count} | ${verdict.replace(/\|/g, "\\|")} |`;
    });
}

function errorVerdict(rule: string, reviewed: { rule: string; reason: string }[]): string {
  const reasons = [...new Set(reviewed.filter((e) => e.rule === rule).map((e) => e.reason))];
  return reasons.length ? `true: ${reasons.join("; ")}` : "NOT REVIEWED";
}
