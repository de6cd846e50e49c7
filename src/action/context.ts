// action/: the GitHub Action's adapter: inputs and the event in, a use case of run/, outputs, the PR comment and the job summary out.
import { context } from "@actions/github";

/** What the workflow run is: its event, repository and links, as @actions/github reads them from the runner. */

export interface PullRequest {
  number: number;
  base?: { sha?: string; ref?: string };
  head?: { sha?: string; repo?: { full_name?: string } };
}

export function pullRequest(): PullRequest | undefined {
  return context.payload.pull_request as PullRequest | undefined;
}

export function repository(): { owner: string; repo: string } {
  if (!process.env.GITHUB_REPOSITORY) return { owner: "", repo: "" };
  return context.repo;
}

/** `https://github.com/<repo>/actions/runs/<id>`, when the run knows it. */
export function runUrl(): string | undefined {
  const { owner, repo } = repository();
  return owner && context.runId ? `${context.serverUrl}/${owner}/${repo}/actions/runs/${context.runId}` : undefined;
}

/** `https://github.com/<repo>/blob/<sha>/` for finding links. */
export function blobBase(sha: string | undefined): string | undefined {
  const { owner, repo } = repository();
  const commit = sha ?? context.sha;
  return owner && commit ? `${context.serverUrl}/${owner}/${repo}/blob/${commit}/` : undefined;
}
