import path from "node:path";
import * as core from "@actions/core";
import { runDrift } from "../run/drift.js";
import { updateSnapshotCommand } from "../drift/command.js";
import { COMMENT_LIMIT, formatDriftMarkdown, SUMMARY_LIMIT } from "../report/formats/markdown.js";
import { gitHubClient } from "../report/github/client.js";
import { syncDriftIssue } from "../report/github/drift-issue.js";
import { repository, runUrl } from "./context.js";
import { actionPackages, type Inputs } from "./inputs.js";
import { appendSummary, maskLogs, writeReportFile } from "./outputs.js";
import { requestTimeout, retryBase } from "./pr.js";

/** `mode: drift`: today's render against the committed snapshot and/or the cluster, kept as one issue. */
export async function driftMode(inputs: Inputs): Promise<void> {
  const root = process.cwd();
  const result = await runDrift({
    root,
    paths: inputs.paths,
    snapshot: inputs.snapshot && path.resolve(root, inputs.snapshot),
    cluster: inputs.cluster,
    previous: inputs.previous && path.resolve(root, inputs.previous),
    allowExec: inputs.allowExec,
    developmentTargets: inputs.developmentTargets,
    packages: actionPackages(inputs),
    configFile: inputs.config,
    crds: inputs.crds,
    schemaLocations: inputs.schemaLocations,
  });
  const { masker } = result;
  maskLogs(masker);
  const { snapshotMissing, previousMissing } = result.report.baselines;
  if (inputs.snapshot && snapshotMissing) {
    const what = snapshotMissing === "no-directory" ? "does not exist yet" : "holds no snapshot file yet";
    core.warning(
      `snapshot: ${inputs.snapshot} ${what}, so every source counts as added; create it with \`${updateSnapshotCommand(inputs.snapshot, { paths: inputs.paths })}\` and commit it`,
    );
  }
  if (previousMissing) core.info(`previous: ${inputs.previous} does not exist yet (the first night): this is the first report, nothing to compare with`);
  const report = masker.redactJson({
    ...result.report,
    baselines: { ...result.report.baselines, snapshot: inputs.snapshot },
    ...(runUrl() ? { run: { url: runUrl()! } } : {}),
  });
  const markdown = (maxChars: number, fullReportHint: string) => masker.redact(formatDriftMarkdown(report, { maxChars, fullReportHint }));
  const reportPath = writeReportFile(inputs.reportDir, "drift.md", markdown(Number.MAX_SAFE_INTEGER, ""));
  writeReportFile(inputs.reportDir, "drift.json", JSON.stringify(report, null, 2) + "\n");
  appendSummary(markdown(SUMMARY_LIMIT - 1024, "drift.json in report-dir holds everything."));
  core.setOutput("drift-items", report.items.length);
  core.setOutput("changed", report.items.length > 0);
  core.setOutput("report-path", reportPath);
  let issueUrl = "";
  if (inputs.comment === "never") core.info("comment: never: the drift issue is not touched");
  else if (!inputs.token) core.warning("no github-token: the drift issue is not updated");
  else {
    try {
      const octokit = gitHubClient({ token: inputs.token, retryBaseMs: retryBase(), timeoutMs: requestTimeout(), log: core.info });
      const { owner, repo } = repository();
      const res = await syncDriftIssue({
        octokit,
        owner,
        repo,
        key: inputs.commentKey,
        report,
        markdown: markdown(COMMENT_LIMIT - 300, "drift.json in the run's report-dir artifact holds everything."),
      });
      core.info(`drift issue: ${res.action}${res.number ? ` #${res.number}` : ""}`);
      issueUrl = res.url ?? "";
    } catch (err) {
      const status = (err as { status?: number }).status;
      core.warning(
        status === 403 || status === 404
          ? `the token cannot write issues (permissions: issues: write): ${(err as Error).message}`
          : `the drift issue could not be updated: ${(err as Error).message}`,
      );
    }
  }
  core.setOutput("comment-url", issueUrl);
  if (inputs.failOnDrift && report.items.length > 0) core.setFailed(`${report.items.length} drift item${report.items.length === 1 ? "" : "s"}`);
}
