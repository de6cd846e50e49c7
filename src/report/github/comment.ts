import { isRateLimited, type GitHubClient } from "./client.js";

/**
 * One sticky comment per pull request and key: found by a hidden marker, which must be the first
 * line of a comment written by the token's own identity (a marker anywhere else is the report's
 * content, or someone else's comment, and is never matched), updated in place. A comment deleted
 * meanwhile is created again; when two runs race and both create one, or an earlier run left
 * several, the oldest is kept and the others deleted.
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
    let login = await ownLogin(octokit);
    const [existing, ...extra] = await markedComments(req, login);
    if (existing) {
      try {
        const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
        await deleteAll(req, extra);
        return { action: "updated", url: data.html_url };
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err; // deleted since it was listed: create it again
      }
    } else if (req.mode === "on-change" && !req.hasChanges) return { action: "skipped" };
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: req.issueNumber, body });
    // The comment says who we are, whatever the identity lookup guessed (a GitHub App's bot).
    if (data.user?.login) login = data.user.login;
    return { action: "created", url: (await keepOldest(req, login, data.id, body)) ?? data.html_url };
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (!isRateLimited(err) && (status === 403 || status === 404)) return { action: "skipped", forbidden: (err as Error).message };
    throw err;
  }
}

/**
 * A report in several comments: the first is the sticky comment (its mode applies), parts 2..n
 * are sticky comments of their own (`<key>:part-<i>`), and the parts an earlier run posted that
 * this one does not need (a shorter report, a clean pull request) are deleted.
 */
export async function upsertStickyComments(req: Omit<StickyCommentRequest, "body"> & { bodies: string[] }): Promise<StickyCommentResult> {
  const { bodies, ...rest } = req;
  const main = await upsertStickyComment({ ...rest, body: bodies[0] ?? "" });
  if (main.forbidden || req.mode === "never") return main;
  const needed = main.action === "skipped" || (req.mode === "on-change" && !req.hasChanges) ? 1 : bodies.length;
  try {
    for (let i = 2; i <= needed; i++) {
      const part = await upsertStickyComment({ ...rest, key: partKey(req.key, i), body: bodies[i - 1]!, mode: "always", hasChanges: true });
      if (part.forbidden) return { ...main, forbidden: part.forbidden };
    }
    await deleteStaleParts(req, needed);
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (!isRateLimited(err) && (status === 403 || status === 404)) return { ...main, forbidden: (err as Error).message };
    throw err;
  }
  return main;
}

function partKey(key: string, part: number): string {
  return `${key}:part-${part}`;
}

/** Our comments of this key's parts beyond `needed`. */
async function deleteStaleParts(req: Omit<StickyCommentRequest, "body">, needed: number): Promise<void> {
  const login = await ownLogin(req.octokit);
  const prefix = `<!-- composition-ci:${req.key}:part-`;
  const comments = await req.octokit.paginate(req.octokit.rest.issues.listComments, {
    owner: req.owner,
    repo: req.repo,
    issue_number: req.issueNumber,
    per_page: 100,
  });
  const stale = comments.filter((c) => {
    if (c.user?.login !== login) return false;
    const first = (c.body ?? "").split("\n", 1)[0]!.replace(/\r$/, "");
    const m = first.startsWith(prefix) ? /^(\d+) -->$/.exec(first.slice(prefix.length)) : null;
    return m !== null && Number(m[1]) > needed;
  });
  await deleteAll(req as StickyCommentRequest, stale);
}

/** The token identity's comments whose first line is the marker, oldest first. */
async function markedComments(req: StickyCommentRequest, login: string): Promise<Found[]> {
  const marker = commentMarker(req.key);
  const comments = await req.octokit.paginate(req.octokit.rest.issues.listComments, {
    owner: req.owner,
    repo: req.repo,
    issue_number: req.issueNumber,
    per_page: 100,
  });
  return comments.filter((c) => c.user?.login === login && startsWithMarker(c.body, marker)).sort((a, b) => a.id - b.id);
}

/** Whether a body's first line is exactly the marker (GitHub may store the line break as CRLF). */
export function startsWithMarker(body: string | null | undefined, marker: string): boolean {
  const text = body ?? "";
  const end = text.indexOf("\n");
  return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, "") === marker;
}

async function deleteAll(req: StickyCommentRequest, comments: Found[]): Promise<void> {
  for (const c of comments) {
    try {
      await req.octokit.rest.issues.deleteComment({ owner: req.owner, repo: req.repo, comment_id: c.id });
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err; // another run deleted it first
    }
  }
}

/**
 * After creating a comment: if another run created one too, the oldest stays (updated with this
 * body) and the others go. Returns the kept comment's URL when it is not the one just created.
 */
async function keepOldest(req: StickyCommentRequest, login: string, createdId: number, body: string): Promise<string | undefined> {
  const marked = await markedComments(req, login);
  const oldest = marked[0];
  if (!oldest || marked.length < 2) return undefined;
  await deleteAll(req, marked.slice(1));
  if (oldest.id === createdId) return undefined;
  const { data } = await req.octokit.rest.issues.updateComment({ owner: req.owner, repo: req.repo, comment_id: oldest.id, body });
  return data.html_url;
}

/**
 * The login the token writes as, which is the only author whose marked comments are ours. A
 * personal token reads it from /user. An installation token (a GitHub App's, and the Actions
 * GITHUB_TOKEN, which is github-actions' installation) may not read /user; GraphQL's `viewer` names
 * its bot, and REST names a bot `<slug>[bot]`. When neither answers: `github-actions[bot]`, the
 * GITHUB_TOKEN's login; after creating a comment the caller knows for sure from the comment.
 */
export function ownLogin(octokit: GitHubClient): Promise<string> {
  let known = logins.get(octokit);
  if (!known) {
    known = lookUpLogin(octokit);
    logins.set(octokit, known);
    known.catch(() => logins.delete(octokit));
  }
  return known;
}

/** One lookup per client: the identity does not change within a run. */
const logins = new WeakMap<GitHubClient, Promise<string>>();

async function lookUpLogin(octokit: GitHubClient): Promise<string> {
  let integration = false;
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (err) {
    if (isRateLimited(err)) throw err;
    integration = (err as { status?: number }).status === 403;
  }
  try {
    const data = await octokit.graphql<{ viewer?: { login?: unknown } }>("query { viewer { login } }");
    const login = data.viewer?.login;
    if (typeof login === "string" && /^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/.test(login))
      return integration && !login.endsWith("[bot]") ? `${login}[bot]` : login;
  } catch (err) {
    if (isRateLimited(err)) throw err;
  }
  return "github-actions[bot]";
}
