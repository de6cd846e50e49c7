import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { ProcessRuntime } from "../../src/runtimes/process.js";
import { KptRuntimes } from "../../src/kpt/runtime.js";

/**
 * Issue 39.6: a process a function starts, in the function's process group or in a group and
 * session of its own (`setsid`), does not outlive the function: not when the function is stopped,
 * not when it has exited by itself first.
 */

const linux = process.platform === "linux";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-contain-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Alive and not a zombie (PID 1 of a container may never reap what it inherits). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return !linux;
  }
}

async function gone(pid: number, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

let n = 0;
/**
 * A shell script that starts a grandchild (`sleep 1000`, its output not on the function's pipes)
 * the way `how` says, waits until it has written its pid, then `then`s.
 */
function script(how: "group" | "setsid", then: string): { file: string; pidFile: string } {
  const pidFile = path.join(dir, `pid-${++n}`);
  const start =
    how === "setsid"
      ? `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 1000' </dev/null >/dev/null 2>&1 &`
      : `sh -c 'echo $$ > "${pidFile}"; exec sleep 1000' </dev/null >/dev/null 2>&1 &`;
  const file = path.join(dir, `fn-${n}.sh`);
  fs.writeFileSync(file, `${start}\nwhile [ ! -s "${pidFile}" ]; do sleep 0.02; done\n${then}\n`);
  return { file, pidFile };
}

const grandchild = (pidFile: string) => Number(fs.readFileSync(pidFile, "utf8").trim());
const request = {} as RunFunctionRequest;

describe.skipIf(process.platform === "win32")("function processes: what they start ends with them", () => {
  it("a process runtime that exited by itself (before it was ready): its grandchild in its group is killed at close", async () => {
    const { file, pidFile } = script("group", "exit 0");
    const runtime = new ProcessRuntime("fn", { command: ["sh", file], cwd: dir, startTimeoutMs: 5000 });
    await expect(runtime.run(request, 5000)).rejects.toThrow(/exited with code 0 before it was ready/);
    const pid = grandchild(pidFile);
    expect(alive(pid)).toBe(true);
    await runtime.close();
    expect(await gone(pid)).toBe(true);
  });

  it.skipIf(!linux)("a process runtime stopped at close: its grandchild in a session of its own (setsid) is killed too", async () => {
    const { file, pidFile } = script("setsid", "exec sleep 1000");
    const runtime = new ProcessRuntime("fn", { command: ["sh", file], cwd: dir, startTimeoutMs: 1000 });
    await expect(runtime.run(request, 5000)).rejects.toThrow(/did not accept connections/);
    const pid = grandchild(pidFile);
    expect(alive(pid)).toBe(true);
    await runtime.close();
    expect(await gone(pid)).toBe(true);
  });

  it.skipIf(!linux)("a process runtime that exited, leaving a setsid grandchild: killed at close", async () => {
    const { file, pidFile } = script("setsid", "exit 3");
    const runtime = new ProcessRuntime("fn", { command: ["sh", file], cwd: dir, startTimeoutMs: 5000 });
    await expect(runtime.run(request, 5000)).rejects.toThrow(/exited with code 3/);
    const pid = grandchild(pidFile);
    await runtime.close();
    expect(await gone(pid)).toBe(true);
  });

  it.skipIf(!linux)("a kpt exec function: what it left running, in its group or its own session, is killed when it ends", async () => {
    const kpt = new KptRuntimes({ allowExec: true, timeoutMs: 10_000 });
    for (const how of ["group", "setsid"] as const) {
      const { file, pidFile } = script(how, `cat >/dev/null; echo 'apiVersion: config.kubernetes.io/v1'; echo 'kind: ResourceList'; echo 'items: []'`);
      const runtime = await kpt.runtimeFor({ exec: `sh ${file}` });
      const started = Date.now();
      const outcome = await runtime.run({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: [] } as never, dir);
      expect(outcome.exitCode).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await gone(grandchild(pidFile)), how).toBe(true);
    }
    kpt.close();
  });
});
