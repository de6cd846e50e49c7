// runtimes/: how a function runs outside this thread: processes in their own group, pulled packages, gRPC, Docker; render and kpt both use them.
import { randomBytes } from "node:crypto";
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import fs from "node:fs";

/**
 * Function processes, and everything they start, end with them. A function process starts in a
 * process group of its own (`detached`), so one signal to the group reaches what it started
 * there. What leaves the group (`setsid`, a daemon's double fork, `setpgid`) is found on Linux
 * two more ways: by a tag in its environment, which every descendant inherits unless it clears
 * its environment, and by its parent, while that parent lives. Node offers no prctl, so there is
 * no subreaper (PR_SET_CHILD_SUBREAPER) and no cgroup: a process that both leaves the group and
 * clears its environment, and whose parent has exited, outlives the run. On other systems only
 * the group is signalled.
 */

export const PROCESS_TAG_VARIABLE = "COMPOSITION_CI_PROCESS_TAG";

export interface Contained {
  child: ChildProcess;
  /** The value of PROCESS_TAG_VARIABLE in the process's environment (and its descendants'). */
  tag: string;
}

/** Contained processes not yet finished: killed, whatever they started with them, when this process exits. */
const live = new Set<Contained>();
let exitHook = false;

/** Spawns `command` in a new process group, its environment tagged. */
export function spawnContained(command: string, args: string[], options: SpawnOptions & { env?: NodeJS.ProcessEnv }): Contained {
  const tag = randomBytes(12).toString("hex");
  const env = { ...(options.env ?? process.env), [PROCESS_TAG_VARIABLE]: tag };
  const child = spawn(command, args, { ...options, env, detached: process.platform !== "win32" });
  const contained = { child, tag };
  live.add(contained);
  if (!exitHook) {
    exitHook = true;
    // A run that exits early (a signal, process.exit) takes its functions with it: a detached
    // group would otherwise outlive it. Synchronous, as an exit handler must be.
    process.once("exit", () => {
      for (const c of live) signalContained(c, "SIGKILL");
      live.clear();
    });
  }
  return contained;
}

/** Kills whatever of it is left, now, and forgets it: for a process that has ended. */
export function finishContained(contained: Contained): void {
  signalContained(contained, "SIGKILL");
  live.delete(contained);
}

/**
 * Signals the process, its group, and (Linux) every process that carries its tag or descends from
 * it. Safe to call after the process has exited: what it left behind is still found.
 */
export function signalContained(contained: Contained, signal: NodeJS.Signals): void {
  const { child, tag } = contained;
  const running = child.exitCode === null && child.signalCode === null;
  // Its descendants by parent only while it runs (unreaped, its pid cannot be another's yet).
  const strays = process.platform === "linux" ? strayProcesses(running ? child.pid : undefined, tag) : [];
  if (child.pid && process.platform !== "win32") {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // no group left (everything in it has exited)
    }
  }
  if (running) {
    try {
      child.kill(signal);
    } catch {
      // gone meanwhile
    }
  }
  for (const pid of strays) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile, or not ours
    }
  }
}

/**
 * Ends the process and whatever it started: SIGTERM, then SIGKILL after `graceMs` for what is
 * still there (the process, and anything of its group or tag), once the process has exited.
 */
export async function endContained(contained: Contained, graceMs = 2000): Promise<void> {
  const { child } = contained;
  if (child.pid === undefined) {
    live.delete(contained);
    return; // never started
  }
  const running = child.exitCode === null && child.signalCode === null;
  const gone = running ? new Promise<void>((resolve) => child.once("exit", () => resolve())) : Promise.resolve();
  signalContained(contained, "SIGTERM");
  const timer = setTimeout(() => signalContained(contained, "SIGKILL"), graceMs);
  await Promise.race([gone, new Promise<void>((resolve) => setTimeout(resolve, graceMs + 1000).unref())]);
  clearTimeout(timer);
  // Whatever ignored SIGTERM, or was started while the process shut down.
  finishContained(contained);
}

/** Linux: the processes of this user that carry the tag, or descend from `root`; never this process. */
export function strayProcesses(root: number | undefined, tag: string): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const needle = Buffer.from(`${PROCESS_TAG_VARIABLE}=${tag}\0`);
  const children = new Map<number, number[]>();
  const found = new Set<number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
    try {
      // Only this user's processes can be read; the variable may be anywhere in the block.
      if (fs.readFileSync(`/proc/${pid}/environ`).includes(needle)) found.add(pid);
    } catch {
      // another user's, or gone
    }
  }
  if (root !== undefined) {
    const seen = new Set<number>([root]);
    const queue = [root];
    while (queue.length) {
      for (const kid of children.get(queue.pop()!) ?? []) {
        if (seen.has(kid)) continue;
        seen.add(kid);
        found.add(kid);
        queue.push(kid);
      }
    }
  }
  found.delete(root ?? -1);
  found.delete(process.pid);
  return [...found];
}

/** The parent pid from /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
