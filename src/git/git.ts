// git/: the git binary through execFile: refs, changed files, a ref's tree in a directory of its own.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
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
  // A base tree materialized with hard links to the working tree's files changes their ctime, not
  // their bytes or mtime: git would otherwise hash every file again on the next run (git's own
  // setting for files whose ctime something outside git changes).
  const diff = split(await git(["-c", "core.trustctime=false", "diff", "--name-only", "-z", "--no-renames", base, ...(head ? [head] : [])], cwd));
  if (head) return diff;
  const untracked = split(await git(["ls-files", "--others", "--exclude-standard", "-z"], cwd));
  return [...new Set([...diff, ...untracked])];
}

export interface Materialized {
  dir: string;
  cleanup: () => void;
}

export interface MaterializeOptions {
  /**
   * A tree on disk (the working tree's top level, or another materialized tree) whose regular
   * files are hard-linked into the new tree instead of written, when their bytes are exactly
   * the commit's blob (hashed here, so index flags and filters cannot mislead) and the two are
   * on one file system. Only for trees nothing writes to: a link shares the file.
   */
  linkFrom?: string;
  /**
   * Write the tree to a RAM-backed tmpfs (Linux's /dev/shm) when there is one with room to
   * spare. Not for trees whose code may run (such a mount may forbid executing files).
   */
  inMemory?: boolean;
}

/** One entry of a commit's tree: mode, object id, size (blobs), path relative to the top level. */
interface TreeEntry {
  mode: string;
  id: string;
  size: number;
  path: string;
}

/**
 * The tree of `commit` written to a new temporary directory, through a throw-away index
 * (`read-tree` then `checkout-index`): unlike `git archive`, `export-ignore` attributes do not
 * drop files, and the user's index and worktree are never touched. Creating thousands of files
 * and directories is what this costs, and on some disks each costs a millisecond: `inMemory`
 * puts the tree on a tmpfs, and `linkFrom` makes the files that another tree holds byte for
 * byte hard links to those (a link makes no new inode); only the others are checked out.
 */
export async function materialize(commit: string, cwd: string, options: MaterializeOptions = {}): Promise<Materialized> {
  const entries = options.inMemory || options.linkFrom ? await treeEntries(commit, cwd) : undefined;
  const parent = (options.inMemory && entries && memoryTempDir(entries)) || os.tmpdir();
  const dir = fs.mkdtempSync(path.join(parent, "composition-ci-base-"));
  const index = path.join(dir, ".composition-ci-index");
  const cleanup = () => {
    live.delete(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Known from its first moment: a run stopped while git writes it removes it too (removeMaterialized).
  live.add(dir);
  try {
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const rest = options.linkFrom && entries && sameDevice(options.linkFrom, dir) ? linkUnchanged(entries, options.linkFrom, dir) : undefined;
    if (rest === undefined || rest.length > 0) {
      await git(["read-tree", commit], cwd, env);
      if (rest === undefined) await git(["checkout-index", "--all", "--force", `--prefix=${dir}${path.sep}`], cwd, env);
      else await gitInput(["checkout-index", "--force", "-z", "--stdin", `--prefix=${dir}${path.sep}`], cwd, env, rest.join("\0") + "\0");
      fs.rmSync(index, { force: true });
    }
  } catch (err) {
    cleanup();
    throw err;
  }
  return { dir, cleanup };
}

/** The trees materialized and not yet cleaned up, in this process. */
const live = new Set<string>();

/**
 * Removes every tree this process has materialized and not cleaned up, written or still being
 * written (git may still be writing into one: what it writes after is in a directory that is gone,
 * and it fails). For a run stopped by a signal; synchronous, so it can run just before exit.
 */
export function removeMaterialized(): void {
  for (const dir of [...live]) {
    live.delete(dir);
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // as much as could be removed
    }
  }
}

/** Every blob and submodule of a commit's tree. */
async function treeEntries(commit: string, cwd: string): Promise<TreeEntry[]> {
  const out = await git(["ls-tree", "-r", "-l", "-z", "--full-tree", commit], cwd);
  const entries: TreeEntry[] = [];
  for (const line of out.split("\0")) {
    if (!line) continue;
    const tab = line.indexOf("\t");
    const [mode, , id, size] = line.slice(0, tab).split(/ +/);
    entries.push({ mode: mode!, id: id!, size: Number(size) || 0, path: line.slice(tab + 1) });
  }
  return entries;
}

const TMPFS_MAGIC = 0x01021994;
/** The most a tree may take of a tmpfs: a quarter of what is free, and never more than this. */
const MEMORY_TREE_LIMIT = 256 * 1024 * 1024;

/**
 * /dev/shm when it is a tmpfs with room for the tree four times over (a tmpfs file takes whole
 * pages; the limit keeps a container's small /dev/shm for what it is meant for), else undefined.
 */
function memoryTempDir(entries: TreeEntry[]): string | undefined {
  const dir = "/dev/shm";
  let stat: fs.StatsFs;
  try {
    if (process.platform !== "linux") return undefined;
    stat = fs.statfsSync(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return undefined;
  }
  if (stat.type !== TMPFS_MAGIC) return undefined;
  const page = 4096;
  const dirs = new Set(entries.map((e) => path.posix.dirname(e.path)));
  const bytes = entries.reduce((sum, e) => sum + Math.ceil(e.size / page) * page, 0) + (dirs.size + 1) * page;
  const inodes = entries.length + dirs.size + 1;
  const fits = bytes <= MEMORY_TREE_LIMIT && bytes * 4 <= stat.bavail * stat.bsize && (stat.files === 0 || inodes * 4 <= stat.ffree);
  return fits ? dir : undefined;
}

function sameDevice(a: string, b: string): boolean {
  try {
    return fs.statSync(a).dev === fs.statSync(b).dev;
  } catch {
    return false;
  }
}

/**
 * Hard-links into `dir` each regular file of `entries` whose counterpart below `from` is a
 * regular file holding exactly the blob; returns the paths left for checkout-index (changed
 * files, links, submodules, and all the rest once linking fails, across devices say).
 */
function linkUnchanged(entries: TreeEntry[], from: string, dir: string): string[] {
  const rest: string[] = [];
  const made = new Set<string>();
  const mkdirs = (rel: string) => {
    const parent = path.posix.dirname(rel);
    if (parent === "." || made.has(parent)) return;
    mkdirs(parent);
    fs.mkdirSync(path.join(dir, parent));
    made.add(parent);
  };
  let linking = true;
  for (const e of entries) {
    if (!linking || (e.mode !== "100644" && e.mode !== "100755") || !sameBlob(path.join(from, e.path), e.id)) {
      rest.push(e.path);
      continue;
    }
    try {
      mkdirs(e.path);
      fs.linkSync(path.join(from, e.path), path.join(dir, e.path));
    } catch {
      linking = false; // another device, a file system without links, a protected file: write the rest
      rest.push(e.path);
    }
  }
  return rest;
}

/** Whether `file` is a regular file (not a link to one) whose bytes are the blob `id`. */
function sameBlob(file: string, id: string): boolean {
  let bytes: Buffer;
  try {
    if (!fs.lstatSync(file).isFile()) return false;
    bytes = fs.readFileSync(file);
  } catch {
    return false;
  }
  const hash = crypto.createHash(id.length === 64 ? "sha256" : "sha1");
  return hash.update(`blob ${bytes.length}\0`).update(bytes).digest("hex") === id;
}

/** git with `input` on its stdin. */
function gitInput(args: string[], cwd: string, env: NodeJS.ProcessEnv, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile("git", args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(new GitError(`git ${args.join(" ")}: ${(stderr || err.message).trim()}`));
      else resolve(stdout);
    });
    child.stdin?.end(input);
  });
}

/** A remote URL as `host/owner/name`: `https://github.com/org/repo.git`, `git@github.com:org/repo` and `ssh://git@github.com:22/org/repo` are one repository. */
export function normalizedRemote(url: string): string {
  return url
    .trim()
    .replace(/^[a-z+]+:\/\//i, "")
    .replace(/^[^@/]+@/, "")
    .replace(/^([^/:]+):(?!\d+\/)/, "$1/")
    .replace(/:\d+\//, "/")
    .replace(/\.git\/?$/, "")
    .replace(/\/+$/, "")
    .toLowerCase();
}
