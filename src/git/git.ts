import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The few git operations diff needs, through the git binary (no shell): resolving refs, the files
 * that changed, and a ref's tree materialized in a temporary directory. The user's checkout,
 * index and worktree list are never touched.
 */

export class GitError extends Error {}

export function git(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(new GitError(`git ${args.join(" ")}: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** The repository's top-level directory, or a GitError when `dir` is not in a git repository. */
export async function topLevel(dir: string): Promise<string> {
  return (await git(["rev-parse", "--show-toplevel"], dir)).trim();
}

/** The commit a ref names; a clear error when it does not exist (a shallow clone, an unfetched branch). */
export async function resolveCommit(ref: string, cwd: string): Promise<string> {
  try {
    return (await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], cwd)).trim();
  } catch {
    throw new GitError(`"${ref}" is not a commit in this repository (a shallow clone? check out with fetch-depth: 0, or fetch the base branch)`);
  }
}

/**
 * Paths (relative to the top level) that differ between `base` and `head`, or between `base` and
 * the working tree (tracked changes and untracked, not ignored files) when `head` is undefined.
 */
export async function changedFiles(base: string, head: string | undefined, cwd: string): Promise<string[]> {
  const split = (out: string) => out.split("\0").filter(Boolean);
  const diff = split(await git(["diff", "--name-only", "-z", "--no-renames", base, ...(head ? [head] : [])], cwd));
  if (head) return diff;
  const untracked = split(await git(["ls-files", "--others", "--exclude-standard", "-z"], cwd));
  return [...new Set([...diff, ...untracked])];
}

export interface Materialized {
  dir: string;
  cleanup: () => void;
}

/**
 * The tree of `commit` written to a new temporary directory, through a throw-away index
 * (`read-tree` then `checkout-index`): unlike `git archive`, `export-ignore` attributes do not
 * drop files, and the user's index and worktree are never touched.
 */
export async function materialize(commit: string, cwd: string): Promise<Materialized> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "composition-ci-base-"));
  const index = path.join(dir, ".composition-ci-index");
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const env = { ...process.env, GIT_INDEX_FILE: index };
    await git(["read-tree", commit], cwd, env);
    await git(["checkout-index", "--all", "--force", `--prefix=${dir}${path.sep}`], cwd, env);
    fs.rmSync(index, { force: true });
  } catch (err) {
    cleanup();
    throw err;
  }
  return { dir, cleanup };
}
