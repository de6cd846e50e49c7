import fs from "node:fs";
import path from "node:path";
import * as core from "@actions/core";
import { Octokit } from "@octokit/rest";
import { formatDiff, runDiff, type DiffResult } from "./commands/diff.js";
import { renderAndValidate } from "./commands/check.js";
import { oneOf } from "./commands/options.js";
import { loadConfig } from "./config/config.js";
import { hasChanges } from "./report/diff.js";
import { failsAt, summarize, type FailOn, type Finding } from "./report/finding.js";
import { formatReport } from "./report/formats/index.js";
import { COMMENT_LIMIT, formatDiffMarkdown, formatDriftMarkdown, SUMMARY_LIMIT } from "./report/formats/markdown.js";
import { syncDriftIssue } from "./report/github/drift-issue.js";
import { runDrift } from "./commands/drift.js";
import { pickAnnotations } from "./report/github/annotations.js";
import { upsertStickyComment, type CommentMode } from "./report/github/comment.js";
import { SecretMasker } from "./report/mask.js";
import { validateRepo } from "./validate/run.js";
import { installKubeconform } from "./validate/kubeconform-install.js";
import { TOOL_VERSION } from "./version.js";

/**
 * The GitHub Action: reads its inputs, runs the same code as the CLI (`diff` for pull requests,
 * `check` for `mode: validate`, `drift` for `mode: drift`), and reports through GitHub: one sticky
 * PR comment or one drift issue, the job summary, annotations, a SARIF file and report files.
 */

interface Inputs {
  mode: "pr" | "validate" | "drift";
  paths: string[];
  baseRef: string;
  failOn: FailOn;
  comment: CommentMode;
  commentKey: string;
  token: string;
  config?: string;
  crds: string[];
  schemaLocations: string[];
  allowExec: boolean;
  kubeconform: boolean;
  sarifFile: string;
  reportDir: string;
  snapshot?: string;
  previous?: string;
  cluster: boolean;
  failOnDrift: boolean;
}

const FORK_HINT =
  "The token cannot write comments here (a pull_request from a fork gets a read-only token). The report is in the job summary and in report-dir; " +
  "to post it, upload report-dir as an artifact and comment from a workflow_run job (docs/workflows/pr-fork-safe.yml).";

export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    fs.mkdirSync(inputs.reportDir, { recursive: true });
    const engine = inputs.kubeconform ? { engine: "both" as const, kubeconformPath: await installKubeconform() } : {};
    if (inputs.mode === "validate") await validateMode(inputs, engine);
    else if (inputs.mode === "drift") await driftMode(inputs);
    else await prMode(inputs, engine);
  } catch (err) {
    core.setFailed(err instanceof Error ? err.message : String(err));
  }
}

function readInputs(): Inputs {
  const list = (name: string) => core.getInput(name).split(/[\s,]+/).filter(Boolean);
  const input = <T extends string>(name: string, fallback: T, allowed: T[]): T => oneOf(`input ${name}`, core.getInput(name) || fallback, allowed);
  const reportDir = path.resolve(core.getInput("report-dir") || path.join(process.env.RUNNER_TEMP ?? ".", "composition-ci-report"));
  return {
    mode: input("mode", "pr", ["pr", "validate", "drift"]),
    paths: list("paths").length ? list("paths") : ["."],
    baseRef: core.getInput("base-ref") || pullRequest()?.base?.sha || "",
    failOn: input("fail-on", "error", ["error", "warning", "info", "never"]),
    comment: input("comment", "on-change", ["always", "on-change", "never"]),
    commentKey: core.getInput("comment-key") || "default",
    token: core.getInput("github-token"),
    config: core.getInput("config") || undefined,
    crds: list("crds"),
    schemaLocations: core.getMultilineInput("schema-locations"),
    allowExec: core.getInput("allow-exec") === "true",
    kubeconform: core.getInput("kubeconform") === "true",
    sarifFile: path.resolve(core.getInput("sarif-file") || path.join(reportDir, "composition-ci.sarif")),
    reportDir,
    snapshot: core.getInput("snapshot") || undefined,
    previous: core.getInput("previous") || undefined,
    cluster: core.getInput("cluster") === "true",
    failOnDrift: core.getInput("fail-on-drift") === "true",
  };
}

interface PullRequest {
  number: number;
  base?: { sha?: string; ref?: string };
  head?: { sha?: string; repo?: { full_name?: string } };
}

function pullRequest(): PullRequest | undefined {
  const file = process.env.GITHUB_EVENT_PATH;
  if (!file || !fs.existsSync(file)) return undefined;
  const event = JSON.parse(fs.readFileSync(file, "utf8")) as { pull_request?: PullRequest };
  return event.pull_request;
}

async function prMode(inputs: Inputs, engine: { engine?: "both"; kubeconformPath?: string }): Promise<void> {
  if (!inputs.baseRef) throw new Error("no base ref: set base-ref, or run on a pull_request event");
  const result = await runDiff({
    root: process.cwd(),
    paths: inputs.paths,
    base: inputs.baseRef,
    allowExec: inputs.allowExec,
    configFile: inputs.config,
    crds: inputs.crds,
    schemaLocations: inputs.schemaLocations,
    ...engine,
  });
  const masker = result.masker;
  for (const value of masker.values()) core.setSecret(value);
  const pr = pullRequest();
  const linkBase = blobBase(pr?.head?.sha);
  const report = (maxChars: number) => masker.redact(formatDiffMarkdown(result.report, { maxChars, linkBase, fullReportHint: "The job summary and the report artifact (report-dir) hold everything." }));
  const reportPath = path.join(inputs.reportDir, "report.md");
  fs.writeFileSync(reportPath, report(Number.MAX_SAFE_INTEGER));
  fs.writeFileSync(path.join(inputs.reportDir, "report.json"), masker.redact(formatDiff(result, "json")));
  writeSarif(inputs.sarifFile, result.headFindings, masker);
  appendSummary(report(SUMMARY_LIMIT - 1024)); // room for the annotation count
  const fresh = new Set(result.report.findings.new);
  annotate(result.headFindings, (f) => fresh.has(f), masker);
  const changed = hasChanges(result.report);
  let commentUrl = "";
  if (pr && inputs.comment !== "never") commentUrl = await comment(inputs, pr.number, report(COMMENT_LIMIT - 200), changed, result);
  setOutputs(inputs, result.headFindings, changed, reportPath, commentUrl);
}

async function comment(inputs: Inputs, issueNumber: number, body: string, changed: boolean, result: DiffResult): Promise<string> {
  const [owner, repo] = repository();
  if (!inputs.token) {
    core.warning(`no github-token: the comment is not posted. ${FORK_HINT}`);
    return "";
  }
  const octokit = octokitFor(inputs.token);
  const clean = result.masker.redact(`### ✅ composition-ci: no rendered changes and no findings\n\nBase \`${result.report.base.commit.slice(0, 7)}\`; nothing this pull request changes renders differently.\n`);
  const res = await upsertStickyComment({ octokit, owner, repo, issueNumber, key: inputs.commentKey, body, mode: inputs.comment, hasChanges: changed, cleanBody: clean });
  if (res.forbidden) core.warning(`${FORK_HINT} (${res.forbidden})`);
  else core.info(`comment ${res.action}${res.url ? `: ${res.url}` : ""}`);
  return res.url ?? "";
}

async function driftMode(inputs: Inputs): Promise<void> {
  const root = process.cwd();
  const result = await runDrift({
    root,
    paths: inputs.paths,
    snapshot: inputs.snapshot && path.resolve(root, inputs.snapshot),
    cluster: inputs.cluster,
    previous: inputs.previous && path.resolve(root, inputs.previous),
    allowExec: inputs.allowExec,
    configFile: inputs.config,
    crds: inputs.crds,
    schemaLocations: inputs.schemaLocations,
  });
  const { masker, report } = result;
  for (const value of masker.values()) core.setSecret(value);
  const markdown = (maxChars: number) => masker.redact(formatDriftMarkdown(report, { maxChars, fullReportHint: "The job summary and the drift.json artifact hold everything." }));
  const reportPath = path.join(inputs.reportDir, "drift.md");
  fs.writeFileSync(reportPath, markdown(Number.MAX_SAFE_INTEGER));
  fs.writeFileSync(path.join(inputs.reportDir, "drift.json"), masker.redact(JSON.stringify(report, null, 2) + "\n"));
  appendSummary(markdown(SUMMARY_LIMIT - 1024));
  let issueUrl = "";
  if (!inputs.token) core.warning("no github-token: the drift issue is not updated");
  else {
    try {
      const res = await syncDriftIssue({ octokit: octokitFor(inputs.token), owner: repository()[0], repo: repository()[1], key: inputs.commentKey, report, markdown: markdown(COMMENT_LIMIT - 300) });
      core.info(`drift issue: ${res.action}${res.number ? ` #${res.number}` : ""}`);
      issueUrl = res.url ?? "";
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status !== 403 && status !== 404) throw err;
      core.warning(`the token cannot write issues (permissions: issues: write): ${(err as Error).message}`);
    }
  }
  core.setOutput("drift-items", report.items.length);
  core.setOutput("changed", report.items.length > 0);
  core.setOutput("report-path", reportPath);
  core.setOutput("comment-url", issueUrl);
  if (inputs.failOnDrift && report.items.length > 0) core.setFailed(`${report.items.length} drift item${report.items.length === 1 ? "" : "s"}`);
}

function repository(): [string, string] {
  return (process.env.GITHUB_REPOSITORY ?? "/").split("/") as [string, string];
}

function octokitFor(token: string): Octokit {
  const quiet = { debug: core.debug, info: core.debug, warn: core.debug, error: core.debug };
  return new Octokit({ auth: token, baseUrl: process.env.GITHUB_API_URL ?? "https://api.github.com", userAgent: `composition-ci/${TOOL_VERSION}`, log: quiet });
}

async function validateMode(inputs: Inputs, engine: { engine?: "both"; kubeconformPath?: string }): Promise<void> {
  const root = process.cwd();
  const config = loadConfig(root, inputs.config);
  const result = await validateRepo({ root, paths: inputs.paths, config, crds: inputs.crds, schemaLocations: inputs.schemaLocations, ...engine });
  const rendered = await renderAndValidate(result, root, { allowExec: inputs.allowExec, timeoutMs: 60_000 });
  const findings = [...result.findings, ...rendered.findings];
  const masker = new SecretMasker();
  for (const m of result.manifests) masker.learn(m.object);
  for (const value of masker.values()) core.setSecret(value);
  const summary = summarize(findings, result.files, result.documents);
  const text = masker.redact(formatReport("text", { findings, summary, toolVersion: TOOL_VERSION }));
  const reportPath = path.join(inputs.reportDir, "report.txt");
  fs.writeFileSync(reportPath, text);
  writeSarif(inputs.sarifFile, findings, masker);
  const room = SUMMARY_LIMIT - 2048;
  const shown = text.length > room ? `${text.slice(0, room)}\n… cut to fit the job summary: ${reportPath} holds the whole report` : text;
  appendSummary(masker.redact(`### composition-ci: ${summary.errors} errors, ${summary.warnings} warnings\n\n\`\`\`\n${shown}\n\`\`\`\n`));
  annotate(findings, () => false, masker);
  setOutputs(inputs, findings, false, reportPath, "");
}

function writeSarif(file: string, findings: Finding[], masker: SecretMasker): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, masker.redact(formatReport("sarif", { findings, summary: summarize(findings, 0, 0), toolVersion: TOOL_VERSION })));
}

function appendSummary(markdown: string): void {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (file) fs.appendFileSync(file, markdown);
}

/** Annotations for the most severe findings; the rest are counted in the job summary. */
function annotate(findings: Finding[], isNew: (f: Finding) => boolean, masker: SecretMasker): void {
  const { annotations, left } = pickAnnotations(findings, isNew);
  for (const { level, finding: f } of annotations) {
    const properties = { title: f.rule, file: f.file, startLine: f.line, startColumn: f.column };
    (level === "error" ? core.error : core.warning)(masker.redact(f.message), properties);
  }
  if (left > 0) {
    const text = `${left} more error and warning finding${left === 1 ? " is" : "s are"} not annotated (GitHub shows 10 errors and 10 warnings per step); all are listed in this summary and the report files.`;
    core.notice(text);
    appendSummary(`\n> ${text}\n`);
  }
}

function setOutputs(inputs: Inputs, findings: Finding[], changed: boolean, reportPath: string, commentUrl: string): void {
  const visible = findings.filter((f) => !f.suppressed);
  core.setOutput("errors", visible.filter((f) => f.severity === "error").length);
  core.setOutput("warnings", visible.filter((f) => f.severity === "warning").length);
  core.setOutput("changed", changed);
  core.setOutput("report-path", reportPath);
  core.setOutput("sarif-path", inputs.sarifFile);
  core.setOutput("comment-url", commentUrl);
  const failing = visible.filter((f) => failsAt(f, inputs.failOn));
  if (failing.length) core.setFailed(`${failing.length} finding${failing.length === 1 ? "" : "s"} at or above ${inputs.failOn}`);
}

/** `https://github.com/<repo>/blob/<sha>/` for finding links, when the run knows its repository. */
function blobBase(sha: string | undefined): string | undefined {
  const server = process.env.GITHUB_SERVER_URL ?? "https://github.com";
  const repository = process.env.GITHUB_REPOSITORY;
  const commit = sha ?? process.env.GITHUB_SHA;
  return repository && commit ? `${server}/${repository}/blob/${commit}/` : undefined;
}
