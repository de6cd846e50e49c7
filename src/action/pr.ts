import * as core from "@actions/core";
import path from "node:path";
import { formatDiff, runDiff, type DiffResult } from "../run/diff.js";
import { staleSnapshot, staleSnapshotMessage } from "../drift/stale.js";
import { hasChanges } from "../report/diff.js";
import { COMMENT_LIMIT, formatDiffMarkdown, formatDiffMarkdownParts, SUMMARY_LIMIT, renderGaps } from "../report/formats/markdown.js";
import { gitHubClient, isRateLimited } from "../report/github/client.js";
import { escapeMarkdown } from "../core/markdown.js";
import { upsertStickyComments } from "../report/github/comment.js";
import { labelName, labelState, setStateLabel, type LabelState } from "../report/github/labels.js";
import { failingText } from "../report/verdict.js";
import { blobBase, pullRequest, repository, runUrl } from "./context.js";
import { actionPackages, type Inputs } from "./inputs.js";
import { kptUpstreamPreviews } from "./kpt-preview.js";
import { changedFiles } from "../git/git.js";
import { annotate, appendSummary, maskLogs, setFindingOutputs, writeReportFile, writeSarif } from "./outputs.js";
import type { Engine } from "../validate/kubeconform.js";

const FORK_HINT =
  "The token cannot write comments here (a pull_request from a fork gets a read-only token). The report is in the job summary and in report-dir; " +
  "to post it, upload report-dir as an artifact and comment from a workflow_run job (docs/workflows/pr-fork-safe.yml).";

/**
 * `mode: pr`: the diff of the pull request's base and head, as one sticky comment, the job
 * summary, annotations, SARIF and report files. The settings that widen what runs (schema
 * locations, function runtimes) come from the base ref's config. Whatever the GitHub API does,
 * the outputs, the summary and the files are written, and the step's status is the verdict's.
 */
export async function prMode(inputs: Inputs, engine: { engine?: Engine; kubeconformPath?: string }): Promise<void> {
  if (!inputs.baseRef) throw new Error("no base ref: set base-ref, or run on a pull_request event");
  const result = await runDiff({
    root: process.cwd(),
    paths: inputs.paths,
    base: inputs.baseRef,
    allowExec: inputs.allowExec,
    developmentTargets: inputs.developmentTargets,
    packages: actionPackages(inputs),
    trustBaseConfig: true,
    configFile: inputs.config,
    crds: inputs.crds,
    schemaLocations: inputs.schemaLocations,
    failOn: inputs.failOn,
    failOnNew: inputs.failOnNew,
    runUrl: runUrl(),
    ...engine,
  });
  const { masker, report } = result;
  maskLogs(masker);
  const pr = pullRequest();
  const linkBase = blobBase(pr?.head?.sha);
  const headSha = pr?.head?.sha as string | undefined;
  const describes = headSha
    ? { sha: headSha, url: linkBase?.replace(/\/blob\/[^/]+\/$/, `/commit/${headSha}`), at: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC` }
    : undefined;
  // kpt: when the pull request changes an upstream package of this repository, what pulling it would do downstream.
  const changedPaths = await changedFiles(report.base.commit, undefined, process.cwd()).catch(() => [] as string[]);
  // The committed drift snapshot (input snapshot): a change that makes it stale says so, before it is merged.
  const extraSections = [trimmed(await kptUpstreamPreviews(process.cwd(), changedPaths), KPT_SECTION_LIMIT), snapshotStaleness(inputs, result)]
    .filter(Boolean)
    .join("\n");
  const markdown = (maxChars: number, fullReportHint: string, listBaseFindings = false) => {
    const main = formatDiffMarkdown(masker.redactJson(report), {
      maxChars: maxChars - (extraSections ? extraSections.length + 2 : 0),
      linkBase,
      fullReportHint,
      describes,
      listBaseFindings,
      ...(inputs.commentKey !== "default" ? { title: inputs.commentKey } : {}),
    });
    return masker.redact(extraSections ? `${main}\n${extraSections}\n` : main);
  };
  const reportPath = writeReportFile(inputs.reportDir, "report.md", markdown(Number.MAX_SAFE_INTEGER, ""));
  writeReportFile(inputs.reportDir, "report.json", formatDiff(result, "json"));
  writeSarif(inputs.sarifFile, result.headFindings, masker);
  // The job summary has room for the findings already on the base branch too (the comment counts them).
  appendSummary(markdown(SUMMARY_LIMIT - 1024, "The report files in report-dir hold everything.", true));
  const fresh = new Set(report.findings.new);
  annotate(result.headFindings, (f) => fresh.has(f), masker);
  const changed = hasChanges(report);
  setFindingOutputs(result.headFindings, changed, reportPath, inputs.sarifFile);
  // As the headline: a change an affected source could not render is neither a pass nor "unchanged".
  core.setOutput("verdict", report.verdict.failed ? "fail" : renderGaps(report).unknown ? "incomplete" : "pass");
  let commentUrl = "";
  if (pr && inputs.comment !== "never") {
    // Past GitHub's size limit the report goes on in numbered comments before any detail is dropped.
    const hint = `The job summary${report.run ? ` of the [workflow run](${report.run.url})` : ""} and report-dir hold everything.`;
    const options = {
      maxChars: COMMENT_LIMIT - 200,
      linkBase,
      fullReportHint: hint,
      describes,
      ...(inputs.commentKey !== "default" ? { title: inputs.commentKey } : {}),
    };
    const parts = formatDiffMarkdownParts(masker.redactJson(report), options, inputs.commentParts);
    if (extraSections) {
      const last = parts.length - 1;
      if (parts[last]!.length + extraSections.length + 2 <= options.maxChars) parts[last] = `${parts[last]}\n${extraSections}\n`;
      else parts.push(`${extraSections}\n`);
    }
    const clean = `### ✅ composition-ci: passes, nothing changes\n\nNothing this pull request changes renders differently, and no finding is new or fixed (base ${report.base.commit.slice(0, 7)}).\n`;
    commentUrl = await postComment(
      inputs,
      pr.number,
      parts.map((p) => masker.redact(p)),
      masker.redact(clean),
      changed,
    );
  }
  core.setOutput("comment-url", commentUrl);
  if (pr && inputs.labels) await labelPullRequest(inputs, pr.number, labelState(report));
  if (report.verdict.failed)
    core.setFailed(`composition-ci fails on ${failingText(report.verdict)} (fail-on: ${inputs.failOn}${inputs.failOnNew ? ", new findings only" : ""})`);
}

const KPT_SECTION_LIMIT = 20_000;

/** What the change does to the committed drift snapshot (the `snapshot` input), as a section; nothing without one or when it stays current. */
function snapshotStaleness(inputs: Inputs, result: DiffResult): string {
  if (!inputs.snapshot) return "";
  const stale = staleSnapshot(path.resolve(process.cwd(), inputs.snapshot), result.headSources, result.masker, result.report.changes);
  const message = staleSnapshotMessage(stale, inputs.snapshot, inputs.paths);
  if (message.warning) core.warning(result.masker.redact(message.warning));
  return message.markdown;
}

function trimmed(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit - 120)}\n\n> ✂️ The kpt preview was cut; \`composition-ci kpt update-preview PKG\` shows all of it.`;
}

/** The sticky comment; an API that fails or a read-only token is a warning, never the step's failure. */
async function postComment(inputs: Inputs, issueNumber: number, bodies: string[], cleanBody: string, changed: boolean): Promise<string> {
  if (!inputs.token) {
    core.warning(`no github-token: the comment is not posted. ${FORK_HINT}`);
    return "";
  }
  const { owner, repo } = repository();
  try {
    const octokit = gitHubClient({
      token: inputs.token,
      retryBaseMs: retryBase(),
      timeoutMs: requestTimeout(),
      maxRateLimitWaitMs: maxRateLimitWait(),
      log: core.info,
    });
    const res = await upsertStickyComments({
      octokit,
      owner,
      repo,
      issueNumber,
      key: inputs.commentKey,
      bodies,
      mode: inputs.comment,
      hasChanges: changed,
      cleanBody,
    });
    if (res.forbidden) core.warning(`${FORK_HINT} (${res.forbidden})`);
    else core.info(`comment ${res.action}${res.url ? `: ${res.url}` : ""}`);
    return res.url ?? "";
  } catch (err) {
    // A rate limit that lifts later than the run waits, an API that does not answer: the step
    // still ends on its verdict, and the summary (already written) says where the comment went.
    const why = (err as Error).message.split("\n")[0]!;
    core.warning(`the comment could not be posted (${why}); the report is in the job summary and report-dir`);
    appendSummary(
      `\n> ⚠️ The pull request comment could not be posted (${isRateLimited(err) ? "GitHub's rate limit" : "the GitHub API failed"}: ${escapeMarkdown(why)}); this summary and report-dir hold the report.\n`,
    );
    return "";
  }
}

/** The state label; like the comment, an API that fails or a read-only token is a warning, never the step's failure. */
async function labelPullRequest(inputs: Inputs, issueNumber: number, state: LabelState): Promise<void> {
  if (!inputs.token) return;
  const { owner, repo } = repository();
  try {
    const octokit = gitHubClient({
      token: inputs.token,
      retryBaseMs: retryBase(),
      timeoutMs: requestTimeout(),
      maxRateLimitWaitMs: maxRateLimitWait(),
      log: core.info,
    });
    await setStateLabel({ octokit, owner, repo, issueNumber, key: inputs.commentKey, state });
    core.info(`label ${labelName(inputs.commentKey, state)}`);
  } catch (err) {
    core.warning(`the pull request could not be labelled (${(err as Error).message.split("\n")[0]})`);
  }
}

/** Test hooks: how long to back off and wait for GitHub (defaults suit github.com). */
export function retryBase(): number | undefined {
  const v = Number(process.env.COMPOSITION_CI_GITHUB_RETRY_MS);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/** The longest the run waits out GitHub's rate limits, in all (default: the client's 60 s). */
export function maxRateLimitWait(): number | undefined {
  const v = Number(process.env.COMPOSITION_CI_GITHUB_MAX_WAIT_MS);
  return Number.isFinite(v) && v >= 0 && process.env.COMPOSITION_CI_GITHUB_MAX_WAIT_MS !== "" ? v : undefined;
}

export function requestTimeout(): number | undefined {
  const v = Number(process.env.COMPOSITION_CI_GITHUB_TIMEOUT_MS);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}
