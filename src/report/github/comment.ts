import { isRateLimited, type GitHubClient } from "./client.js";

/**
 * One sticky comment per pull request and key: found by a hidden marker among the comments written
 * by the token's own user, updated in place. A comment deleted meanwhile is created again; when two
 * runs race and both create one, the oldest is kept and the other deleted.
 */

export type CommentMode = "always" | "on-change" | "never";

export interface StickyCommentRequest {
  octokit: GitHubClient;
  owner: string;
  repo: string;
  issueNumber: number;
  key: string;
  body: string;
  mode: CommentMode;
  /** Whether the report has something to say; with `on-change`, a clean PR gets no new comment. */
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

interface Found {
  id: number;
  html_url?: string;
}

export async function upsertStickyComment(req: StickyCommentRequest): Promise<StickyCommentResult> {
  if (req.mode === "never") return { action: "skipped" };
  const { octokit, owner, repo } = req;
  const body = `${commentMarker(req.key)}\n${req.mode === "on-change" && !req.hasChanges ? req.cleanBody : req.body}`;
  try {
    const login = await ownLogin(octokit);
    const [existing] = await markedComments(req, login);
    if (existing) {
      try {
        const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
        return { action: "updated", url: data.html_url };
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err; // deleted since it was listed: create it again
      }
    } else if (req.mode === "on-change" && !req.hasChanges) return { action: "skipped" };
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: req.issueNumber, body });
    return { action: "created", url: await keepOldest(req, login, data.id, body) ?? data.html_url };
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (!isRateLimited(err) && (status === 403 || status === 404)) return { action: "skipped", forbidden: (err as Error).message };
    throw err;
  }
}

/** The token user's comments with the marker, oldest first. */
async function markedComments(req: StickyCommentRequest, login: string): Promise<Found[]> {
  const marker = commentMarker(req.key);
  const comments = await req.octokit.paginate(req.octokit.rest.issues.listComments, { owner: req.owner, repo: req.repo, issue_number: req.issueNumber, per_page: 100 });
  return comments.filter((c) => c.user?.login === login && (c.body ?? "").includes(marker)).sort((a, b) => a.id - b.id);
}

/**
 * After creating a comment: if another run created one too, the oldest stays (updated with this
 * body) and the others go. Returns the kept comment's URL when it is not the one just created.
 */
async function keepOldest(req: StickyCommentRequest, login: string, createdId: number, body: string): Promise<string | undefined> {
  const marked = await markedComments(req, login);
  const oldest = marked[0];
  if (!oldest || marked.length < 2) return undefined;
  for (const extra of marked.slice(1)) await req.octokit.rest.issues.deleteComment({ owner: req.owner, repo: req.repo, comment_id: extra.id });
  if (oldest.id === createdId) return undefined;
  const { data } = await req.octokit.rest.issues.updateComment({ owner: req.owner, repo: req.repo, comment_id: oldest.id, body });
  return data.html_url;
}

/** The token's user; an Actions GITHUB_TOKEN may not read /user, and writes as github-actions[bot]. */
export async function ownLogin(octokit: GitHubClient): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch {
    return "github-actions[bot]";
  }
}
