import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SHARED = path.resolve(REPO, "../shared");
export const HAS_SHARED = fs.existsSync(path.join(SHARED, "corpus"));
if (!HAS_SHARED) console.log(`skipping tests that read ../shared: ${SHARED} is absent`);

/** A temporary directory with the given files (path → content). */
export function tempRepo(files: Record<string, string | Buffer>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-test-"));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  return dir;
}

/** Runs the CLI in-process in `cwd`, capturing what it writes. */
export async function runCli(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import("../src/main.js");
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { cwd, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}
