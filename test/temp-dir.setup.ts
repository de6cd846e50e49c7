import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Every temporary directory the tests make (theirs and the tool's) lands in one directory of this
 * run, removed when the run ends: a test run leaves nothing behind in the machine's /tmp.
 */
export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "composition-ci-tests-"));
  process.env.TMPDIR = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
