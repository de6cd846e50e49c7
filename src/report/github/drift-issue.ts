import type { GitHubClient } from "./client.js";
import type { DriftReport } from "../../drift/report.js";
import { ownLogin, startsWithMarker } from "./comment.js";

/**
 * Exactly one drift issue per key: found by a hidden marker (the body's first line) and the
 * `composition-ci-drift` label among the issues the token's user wrote. Created when drift appears; its body is the latest
 * report, with a short comment when the drift changed; closed with a comment when clean; reopened
 * (never duplicated) when drift comes back.
 */

export const DRIFT_LABEL = "composition-ci-drift";

export function driftMarker(key: string): string {
  return `<!-- composition-ci-drift:${key} -->`;
}

const FINGERPRINT = /<!-- composition-ci-drift-fingerprint:(\w+) -->/;

export interface DriftIssueRequest {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  key: string;
  report: DriftReport;
  /** The report as markdown (masked, within the size limit). */
  markdown: string;
}

export interface DriftIssueResult {
  action: "created" | "updated" | "reopened" | "closed" | "none";
  /** Whether a comment was added (drift changed, came back, or went away). */
  commented: boolean;
  number?: number;
  url?: string;
}

interface Issue {
  number: number;
  state: string;
  body?: string | null;
  html_url: string;
  user?: { login: string } | null;
  pull_request?: unknown;
}

export async function syncDriftIssue(req: DriftIssueRequest): Promise<DriftIssueResult> {
  const { octokit, owner, repo, report } = req;
  const existing = await findIssue(req);
  const body = `${driftMarker(req.key)}\n<!-- composition-ci-drift-fingerprint:${report.fingerprint} -->\n${req.markdown}`;
  const count = `${report.items.length} item${report.items.length === 1 ? "" : "s"}`;
  const comment = async (n: number, text: string) => octokit.rest.issues.createComment({ owner, repo, issue_number: n, body: text });
  if (report.items.length === 0) {
    if (!existing || existing.state !== "open") return { action: "none", commented: false };
    await comment(existing.number, "✅ No drift any more: closing.");
    await octokit.rest.issues.update({ owner, repo, issue_number: existing.number, state: "closed", state_reason: "completed", body });
    return { action: "closed", commented: true, number: existing.number, url: existing.html_url };
  }
  if (!existing) {
    const title = `composition-ci: drift detected${req.key === "default" ? "" : ` (${req.key})`}`;
    const { data } = await octokit.rest.issues.create({ owner, repo, title, body, labels: [DRIFT_LABEL] });
    return { action: "created", commented: false, number: data.number, url: data.html_url };
  }
  if (existing.state !== "open") {
    await octokit.rest.issues.update({ owner, repo, issue_number: existing.number, state: "open", body });
    await comment(existing.number, `⚠️ Drift is back: ${count}.`);
    return { action: "reopened", commented: true, number: existing.number, url: existing.html_url };
  }
  const previous = existing.body?.match(FINGERPRINT)?.[1];
  await octokit.rest.issues.update({ owner, repo, issue_number: existing.number, body });
  const changed = previous !== report.fingerprint;
  // New only against a previous report that was read: the first night has none to count from.
  const fresh = report.baselines.previous !== undefined ? ` (${report.items.filter((i) => i.state === "new").length} new)` : "";
  if (changed) await comment(existing.number, `The drift changed: now ${count}${fresh}.`);
  return { action: "updated", commented: changed, number: existing.number, url: existing.html_url };
}

/** The open issue for the key, else the most recent closed one. */
async function findIssue(req: DriftIssueRequest): Promise<Issue | undefined> {
  const login = await ownLogin(req.octokit);
  const marker = driftMarker(req.key);
  const issues = (await req.octokit.paginate(req.octokit.rest.issues.listForRepo, {
    owner: req.owner,
    repo: req.repo,
    labels: DRIFT_LABEL,
    state: "all",
    per_page: 100,
  })) as Issue[];
  const ours = issues.filter((i) => !i.pull_request && i.user?.login === login && startsWithMarker(i.body, marker)).sort((a, b) => b.number - a.number);
  return ours.find((i) => i.state === "open") ?? ours[0];
}
