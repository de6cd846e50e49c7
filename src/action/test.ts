import * as core from "@actions/core";
import { loadConfig } from "../config/config.js";
import { trustedConfig } from "./trusted-config.js";
import { SUMMARY_LIMIT } from "../report/formats/markdown.js";
import { maskerFor } from "../rendered/secrets.js";
import { countTests, formatTestReport, runTests, testExitCode, testFindings, testSummaryLine } from "../testing/index.js";
import type { Engine } from "../validate/kubeconform.js";
import { validateRepo } from "../run/validate.js";
import { TOOL_VERSION } from "../version.js";
import { runUrl } from "./context.js";
import { actionPackages, type Inputs } from "./inputs.js";
import { annotate, appendSummary, maskLogs, writeReportFile, writeSarif } from "./outputs.js";

/**
 * `mode: test`: the repository's CompositionTests and golden files (`composition-ci test`), as the
 * job summary (failing tests first, each with its differences), annotations at the failing
 * assertions, JUnit and JSON report files for test reporters, and SARIF. The step fails when a
 * test fails, could not run or its file cannot be read (unless fail-on is never).
 */
export async function testMode(inputs: Inputs, engine: { engine?: Engine; kubeconformPath?: string }): Promise<void> {
  const root = process.cwd();
  const { config, notes } = await trustedConfig(inputs, loadConfig(root, inputs.config), root);
  const packages = actionPackages(inputs);
  const result = await validateRepo({
    root,
    paths: inputs.paths,
    config,
    crds: inputs.crds,
    schemaLocations: inputs.schemaLocations,
    packages: { settings: packages, allowExec: inputs.allowExec },
    ...engine,
  });
  // The masker learns the secrets of the manifests and of what the tests read and render; the report's values are masked before they are formatted.
  const masker = maskerFor(result.manifests, [], config.secretFields, [result.secrets]);
  const report = masker.redactJson(
    await runTests(result, root, {
      paths: inputs.paths,
      allowExec: inputs.allowExec,
      developmentTargets: inputs.developmentTargets,
      packages,
      timeoutMs: 60_000,
      masker,
    }),
  );
  maskLogs(masker);
  const redact = (text: string) => masker.redact(text);
  const reportPath = writeReportFile(inputs.reportDir, "tests.txt", redact(formatTestReport("text", report, { toolVersion: TOOL_VERSION })));
  writeReportFile(inputs.reportDir, "tests.json", redact(formatTestReport("json", report, { toolVersion: TOOL_VERSION })));
  writeReportFile(inputs.reportDir, "junit.xml", redact(formatTestReport("junit", report, { toolVersion: TOOL_VERSION })));
  const findings = [...notes, ...testFindings(report)];
  writeSarif(inputs.sarifFile, findings, masker);
  let markdown = redact(formatTestReport("markdown", report, { toolVersion: TOOL_VERSION }));
  const room = SUMMARY_LIMIT - 4096;
  if (markdown.length > room)
    markdown = `${markdown.slice(0, room)}\n\n… cut to fit the job summary: tests.txt, tests.json and junit.xml in report-dir hold every test.\n`;
  appendSummary(`${markdown}${runUrl() ? `\n[workflow run](${runUrl()})\n` : ""}`);
  annotate(findings, () => true, masker);
  const c = countTests(report);
  const failing = c.failed + c.errors + c.unreadable;
  const failed = testExitCode(report) !== 0 && inputs.failOn !== "never";
  core.setOutput("errors", failing);
  core.setOutput("warnings", 0);
  core.setOutput("changed", false);
  core.setOutput("report-path", reportPath);
  core.setOutput("sarif-path", inputs.sarifFile);
  core.setOutput("verdict", failed ? "fail" : "pass");
  core.setOutput("comment-url", "");
  if (failed) core.setFailed(`composition-ci test: ${testSummaryLine(report)}`);
}
