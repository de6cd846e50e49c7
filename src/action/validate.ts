import * as core from "@actions/core";
import { renderAndValidate } from "../run/check.js";
import { checkTests } from "../testing/index.js";
import { loadConfig } from "../config/config.js";
import { trustedConfig } from "./trusted-config.js";
import { summarize } from "../core/finding.js";
import { formatReport } from "../report/formats/index.js";
import { SUMMARY_LIMIT } from "../report/formats/markdown.js";
import { code } from "../core/markdown.js";
import { maskFindings } from "../secrets/mask.js";
import { maskerFor } from "../rendered/secrets.js";
import { decideVerdict, failingText } from "../report/verdict.js";
import type { Engine } from "../validate/kubeconform.js";
import { validateRepo } from "../run/validate.js";
import { TOOL_VERSION } from "../version.js";
import { actionPackages, type Inputs } from "./inputs.js";
import { annotate, appendSummary, maskLogs, setFindingOutputs, writeReportFile, writeSarif } from "./outputs.js";
import { runUrl } from "./context.js";

/** `mode: validate`: `check` of the tree, reported as the job summary, annotations, SARIF and a text report. */
export async function validateMode(inputs: Inputs, engine: { engine?: Engine; kubeconformPath?: string }): Promise<void> {
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
  const rendered = await renderAndValidate(result, root, {
    allowExec: inputs.allowExec,
    developmentTargets: inputs.developmentTargets,
    packages,
    timeoutMs: 60_000,
  });
  // As check does: the repository's CompositionTests and golden files run, a failing one is an error finding.
  const tests = await checkTests(result, root, { allowExec: inputs.allowExec, developmentTargets: inputs.developmentTargets, packages, timeoutMs: 60_000 });
  const masker = maskerFor(result.manifests, rendered.sources, config.secretFields, [result.secrets]);
  maskLogs(masker);
  const findings = maskFindings([...notes, ...result.findings, ...rendered.findings, ...tests.findings], masker);
  const summary = summarize(findings, result.files, result.documents);
  const text = formatReport("text", { findings, summary, toolVersion: TOOL_VERSION });
  const reportPath = writeReportFile(inputs.reportDir, "report.txt", text);
  writeSarif(inputs.sarifFile, findings, masker);
  const verdict = decideVerdict(findings, findings, { failOn: inputs.failOn });
  const head = verdict.failed
    ? `### ❌ composition-ci: fails on ${failingText(verdict)} (fail-on: ${inputs.failOn})`
    : `### ✅ composition-ci: passes (fail-on: ${inputs.failOn})`;
  const counts = `${summary.errors} errors, ${summary.warnings} warnings, ${summary.infos} info in ${summary.documents} documents of ${summary.files} files${runUrl() ? ` · [workflow run](${runUrl()})` : ""}`;
  const room = SUMMARY_LIMIT - 4096;
  const shown = text.length > room ? `${text.slice(0, room)}\n… cut to fit the job summary: ${code("report.txt")} in report-dir holds the whole report` : text;
  let fence = "```";
  while (shown.includes(fence)) fence += "`";
  appendSummary(`${head}\n\n${counts}\n\n${fence}\n${shown}\n${fence}\n`);
  annotate(findings, () => false, masker);
  setFindingOutputs(findings, false, reportPath, inputs.sarifFile);
  core.setOutput("verdict", verdict.failed ? "fail" : "pass");
  core.setOutput("comment-url", "");
  if (verdict.failed) core.setFailed(`composition-ci fails on ${failingText(verdict)} (fail-on: ${inputs.failOn})`);
}
