import type { DiffReport } from "../diff.js";
import { renderGaps } from "../formats/markdown.js";
import type { GitHubClient } from "./client.js";

/**
 * The pull request's state as one label (`labels: true`), as tfcmt labels plans: what merging it
 * does to what the repository renders. The label of another state is taken off; one the change
 * already has is left alone (no request).
 */

export type LabelState = "deletes" | "changes" | "no-changes" | "incomplete";

const STATES: LabelState[] = ["deletes", "changes", "no-changes", "incomplete"];

/** `deletes` wins over `changes`; a change composition-ci could not render is `incomplete`, never "no changes". */
export function labelState(report: DiffReport): LabelState {
  const removes = report.changes.some((c) => c.objects.some((o) => o.status === "removed" || o.replacedBy));
  if (removes) return "deletes";
  if (report.objects.added + report.objects.changed > 0 || report.changes.some((c) => ["added", "removed", "changed", "fixed", "failed"].includes(c.status)))
    return "changes";
  if (renderGaps(report).unknown) return "incomplete";
  return "no-changes";
}

export function labelName(key: string, state: LabelState): string {
  return `composition-ci${key === "default" ? "" : `:${key}`}/${state}`;
}

export async function setStateLabel(req: {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  issueNumber: number;
  key: string;
  state: LabelState;
}): Promise<void> {
  const { octokit, owner, repo, issueNumber } = req;
  const wanted = labelName(req.key, req.state);
  const ours = new Set(STATES.map((s) => labelName(req.key, s)));
  const { data } = await octokit.rest.issues.listLabelsOnIssue({ owner, repo, issue_number: issueNumber, per_page: 100 });
  const current = data.map((l) => l.name);
  for (const name of current) {
    if (name === wanted || !ours.has(name)) continue;
    try {
      await octokit.rest.issues.removeLabel({ owner, repo, issue_number: issueNumber, name });
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err; // taken off meanwhile
    }
  }
  if (!current.includes(wanted)) await octokit.rest.issues.addLabels({ owner, repo, issue_number: issueNumber, labels: [wanted] });
}
