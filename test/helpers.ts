import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SHARED = path.resolve(REPO, process.env.COMPOSITION_CI_SHARED_DIR ?? "../shared");
export const HAS_SHARED = fs.existsSync(path.join(SHARED, "corpus"));
// CI here runs beside ../shared, so its absence there is a fault, not a skip; runners that never
// have it (GitHub's) say so with COMPOSITION_CI_SHARED_OPTIONAL=1.
if (!HAS_SHARED && process.env.CI === "true" && process.env.COMPOSITION_CI_SHARED_OPTIONAL !== "1") {
  throw new Error(`${SHARED} is absent: the suites that read it cannot run (set COMPOSITION_CI_SHARED_OPTIONAL=1 where it is never present)`);
}
if (!HAS_SHARED) console.log(`skipping tests that read ../shared: ${SHARED} is absent`);

/**
 * A suite that reads ../shared: without it, one skipped test that says so, so the run shows what
 * it left out (suites that make their tests from the data would otherwise vanish).
 */
export function describeShared(name: string, body: () => void): void {
  if (HAS_SHARED) describe(name, body);
  else describe.skip(name, () => it(`needs ${SHARED}`, () => {}));
}

/** A temporary directory with the given files (path → content). */
export function tempRepo(files: Record<string, string | Buffer>): string {
  return writeFiles(fs.mkdtempSync(path.join(os.tmpdir(), "cci-test-")), files);
}

/** Edits a file below `dir` in place: the first `from` becomes `to` (a test's change to a repository). */
export function editFile(dir: string, rel: string, from: string, to: string): void {
  const abs = path.join(dir, rel);
  fs.writeFileSync(abs, fs.readFileSync(abs, "utf8").replace(from, to));
}

/** Writes the files (path → content) below `dir`, making directories as needed; returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): string {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  return dir;
}

/** Runs the CLI in-process in `cwd`, capturing what it writes; `stdin` is what it reads there. */
export async function runCli(argv: string[], cwd: string, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import("../src/main.js");
  let stdout = "";
  let stderr = "";
  const readStdin = stdin === undefined ? undefined : async () => stdin;
  const code = await main(argv, { cwd, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false, ...(readStdin ? { readStdin } : {}) });
  return { code, stdout, stderr };
}

/** A temporary git repository; see gitRepo. */
export interface GitRepo {
  dir: string;
  /** Runs `git ...args` in dir as author and committer t <t@t>; what it prints. */
  git(...args: string[]): string;
  /** `git add -A` and `git commit -qm message`; the new commit's sha. */
  commit(message: string): string;
}

/**
 * `git init -q -b main` in a new temporary directory with the given files (as tempRepo), or in
 * `files` when it names an existing directory, then everything committed as "base" unless
 * `commit` is false (for a first commit that needs a remote, config or another message first).
 */
export function gitRepo(files: Record<string, string | Buffer> | string = {}, options: { commit?: boolean } = {}): GitRepo {
  const dir = typeof files === "string" ? files : tempRepo(files);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
  const commit = (message: string) => {
    git("add", "-A");
    git("commit", "-qm", message);
    return git("rev-parse", "HEAD").trim();
  };
  git("init", "-q", "-b", "main");
  if (options.commit !== false) {
    git("add", "-A");
    git("commit", "-qm", "base");
  }
  return { dir, git, commit };
}

/**
 * `diff --base main --format json` after a change: `files` committed as the base, `changed`
 * (path → content) written over them uncommitted; the report as parsed JSON.
 */
export async function diffAfterChange<T>(files: Record<string, string>, changed: Record<string, string>): Promise<T> {
  const repo = gitRepo(files);
  for (const [file, content] of Object.entries(changed)) fs.writeFileSync(path.join(repo.dir, file), content);
  const { stdout } = await runCli(["diff", "--base", "main", ".", "--format", "json"], repo.dir);
  return JSON.parse(stdout) as T;
}

/** Replaces every unpacked package's `/function` in a package cache with one that fails: what still renders came from elsewhere. */
export function breakEntrypoints(cacheDir: string): void {
  const rootfs = path.join(cacheDir, "oci", "rootfs");
  for (const digest of fs.readdirSync(rootfs)) {
    const entrypoint = path.join(rootfs, digest, "function");
    if (!fs.existsSync(entrypoint)) continue;
    fs.chmodSync(path.dirname(entrypoint), 0o755);
    fs.rmSync(entrypoint, { force: true });
    fs.writeFileSync(entrypoint, "#!/bin/sh\necho broken by the test >&2\nexit 3\n", { mode: 0o755 });
  }
}
