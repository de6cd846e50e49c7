import type { Octokit } from "@octokit/rest";

/**
 * One sticky comment per pull request and key: found by a hidden marker among the comments written
 * by the token's own user, updated in place, never posted twice.
 */

export type CommentMode = "always" | "on-change" | "never";

export interface StickyCommentRequest {
  octokit: Octokit;
  owner: string;
  repo: string;
  issueNumber: number;
  key: string;
  body: string;
  mode: CommentMode;
  /** Whether the report has changes or findings; with `on-change`, a clean PR gets no new comment. */
  hasChanges: boolean;
  /** The body that replaces an existing comment when the PR became clean (`on-change`). */
  cleanBody: string;
}

export interface StickyCommentResult {
  action: "created" | "updated" | "skipped";
  url?: string;
  /** Set when the token may not write comments (a fork's read-only token): the caller degrades. */
  forbidden?: string;
}

export function commentMarker(key: string): string {
  return `<!-- composition-ci:${key} -->`;
}

export async function upsertStickyComment(req: StickyCommentRequest): Promise<StickyCommentResult> {
  if (req.mode === "never") return { action: "skipped" };
  try {
    const existing = await findComment(req);
    const body = `${commentMarker(req.key)}\n${req.mode === "on-change" && !req.hasChanges ? req.cleanBody : req.body}`;
    if (existing) {
      const { data } = await req.octokit.rest.issues.updateComment({ owner: req.owner, repo: req.repo, comment_id: existing.id, body });
      return { action: "updated", url: data.html_url };
    }
    if (req.mode === "on-change" && !req.hasChanges) return { action: "skipped" };
    const { data } = await req.octokit.rest.issues.createComment({ owner: req.owner, repo: req.repo, issue_number: req.issueNumber, body });
    return { action: "created", url: data.html_url };
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 403 || status === 404) return { action: "skipped", forbidden: (err as Error).message };
    throw err;
  }
}

async function findComment(req: StickyCommentRequest): Promise<{ id: number } | undefined> {
  const login = await ownLogin(req.octokit);
  const marker = commentMarker(req.key);
  const comments = await req.octokit.paginate(req.octokit.rest.issues.listComments, { owner: req.owner, repo: req.repo, issue_number: req.issueNumber, per_page: 100 });
  return comments.find((c) => c.user?.login === login && (c.body ?? "").includes(marker));
}

/** The token's user; an Actions GITHUB_TOKEN may not read /user, and writes as github-actions[bot]. */
export async function ownLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch {
    return "github-actions[bot]";
  }
}
