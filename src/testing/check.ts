// testing/: CompositionTests (Upbound's and Crossplane's) and golden files; one door, index.ts.
import type { Finding } from "../core/finding.js";
import { maskFindings } from "../secrets/mask.js";
import { maskerFor } from "../rendered/secrets.js";
import { applyPolicy } from "../validate/findings.js";
import type { ValidatedTree } from "./types.js";
import { runTests, type RunTestsOptions } from "./run.js";
import { testFindings, testSummaryLine } from "./report.js";
import { countTests, type TestCounts } from "./types.js";

/**
 * `check` runs the tree's tests too: a failing test is an error finding (test/failed, test/error,
 * test/unreadable; the config's rule levels apply), placed at the failing assertion or golden
 * object, and one line says how the tests went. A golden file that ran as a test no longer needs
 * the note that it is render output left out of the manifests: it is removed from `result`.
 */
export async function checkTests(
  result: ValidatedTree,
  root: string,
  options: Omit<RunTestsOptions, "update" | "masker">,
): Promise<{ findings: Finding[]; summary?: string; counts?: TestCounts }> {
  // The findings quote what the tests read and rendered, secrets that may be in no manifest: masked here.
  const masker = maskerFor(result.manifests, [], result.config.secretFields, result.secrets ? [result.secrets] : []);
  const report = await runTests(result, root, { ...options, masker });
  if (!report.tests.length && !report.unreadable.length) return { findings: [] };
  const goldens = new Set(report.tests.filter((t) => t.kind === "golden" && t.status !== "skipped").map((t) => t.file));
  for (let i = result.findings.length - 1; i >= 0; i--) {
    const f = result.findings[i]!;
    if (f.rule === "file/not-applied" && f.file && goldens.has(f.file) && f.message.startsWith(`${f.file} holds \`crossplane render\` output`))
      result.findings.splice(i, 1);
  }
  // A test file YAML cannot read is already a finding of validation (yaml/*): said once.
  const known = new Set(result.findings.filter((f) => f.severity === "error").map((f) => `${f.file}|${f.line}`));
  const findings = testFindings(report).filter((f) => f.rule !== "test/unreadable" || !known.has(`${f.file}|${f.line}`));
  return {
    findings: maskFindings(applyPolicy(findings, result.config.rules, new Map()), masker),
    summary: `ran ${testSummaryLine(report).replace(":", ` (${kinds(report)}):`)}\n`,
    counts: countTests(report),
  };
}

/** `1 CompositionTest, 1 golden file`. */
function kinds(report: Awaited<ReturnType<typeof runTests>>): string {
  const n = (kind: string) => report.tests.filter((t) => t.kind === kind).length;
  const words = [
    [n("CompositionTest"), "CompositionTest"],
    [n("golden"), "golden file"],
  ] as const;
  return (
    words
      .filter(([count]) => count > 0)
      .map(([count, word]) => `${count} ${word}${count === 1 ? "" : "s"}`)
      .join(", ") || "no test ran"
  );
}
