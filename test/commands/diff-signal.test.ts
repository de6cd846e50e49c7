import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../helpers.js";

/**
 * Issue 39.6: a `diff` stopped by SIGTERM or SIGINT removes the base tree it wrote (to /dev/shm
 * when there is room) and exits with 128 + the signal's number, as a shell reports it.
 */

const REPO = path.resolve(import.meta.dirname, "../..");

/** The base-tree directories that hold `marker` (a directory of this run's files), in /dev/shm and the temporary directory. */
function treesWith(marker: string, tmp: string): string[] {
  const out: string[] = [];
  for (const parent of ["/dev/shm", tmp]) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(parent).filter((n) => n.startsWith("composition-ci-base-"));
    } catch {
      continue;
    }
    for (const n of names) if (fs.existsSync(path.join(parent, n, marker))) out.push(path.join(parent, n));
  }
  return out;
}

describe.skipIf(process.platform === "win32")("diff stopped by a signal", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`${signal}: the base tree is removed and the exit code is ${code}`, async () => {
      // A directory only this run's trees hold; enough files that writing and checking them takes a while.
      const marker = `m-${Math.random().toString(36).slice(2)}`;
      const files: Record<string, string> = {};
      for (let i = 0; i < 3000; i++) files[`${marker}/c${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}}\ndata: {a: "${i}"}\n`;
      const repo = gitRepo(files);
      const base = repo.git("rev-parse", "HEAD").trim();
      for (let i = 0; i < 3000; i += 2)
        fs.writeFileSync(path.join(repo.dir, `${marker}/c${i}.yaml`), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}}\ndata: {a: "changed ${i}"}\n`);
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cci-signal-"));
      const child = spawn(
        process.execPath,
        [
          "--import",
          pathToFileURL(path.join(REPO, "node_modules/tsx/dist/loader.mjs")).href,
          path.join(REPO, "src/cli.ts"),
          "diff",
          ".",
          "--base",
          base,
          "--offline",
        ],
        {
          cwd: repo.dir,
          env: { ...process.env, TMPDIR: tmp },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on("exit", (c, s) => resolve({ code: c, signal: s })),
      );
      // As soon as git has begun writing the base tree, the run is stopped.
      let seen: string[] = [];
      const until = Date.now() + 60_000;
      while (Date.now() < until && child.exitCode === null) {
        seen = treesWith(marker, tmp);
        if (seen.length) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen.length, `no base tree appeared; stderr: ${stderr}`).toBe(1);
      child.kill(signal);
      const result = await exited;
      expect(result, stderr).toEqual({ code, signal: null });
      expect(fs.existsSync(seen[0]!)).toBe(false);
      expect(treesWith(marker, tmp)).toEqual([]);
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(repo.dir, { recursive: true, force: true });
    }, 90_000);
  }
});
