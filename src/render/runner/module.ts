import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { responseTo } from "../functions/response.js";
import { FunctionFailure, type FunctionRuntime, type RuntimeKind } from "../../runtimes/runtime.js";

/**
 * The worker a module function runs in: it imports the module once and answers each request with
 * what the module's default export (or `compose`) returns. A worker, so that a hang or an endless
 * loop can be stopped: the main thread terminates it at the timeout.
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const loaded = import(workerData.url).then((mod) => {
  const fn = typeof mod.default === "function" ? mod.default : mod.compose;
  if (typeof fn !== "function") throw new Error("the module exports neither a default function nor compose()");
  return fn;
});
loaded.catch(() => {}); // said to each request, never a crash of the worker
parentPort.on("message", async ({ id, req, rsp }) => {
  let compose;
  try {
    compose = await loaded;
  } catch (err) {
    return parentPort.postMessage({ id, load: String(err && err.message || err), syntax: !!err && err.name === "SyntaxError" });
  }
  try {
    const out = await compose(req, rsp);
    if (!out || typeof out !== "object") throw new Error("compose() returned no response");
    parentPort.postMessage({ id, rsp: out });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err), stack: err && err.stack });
  }
});
`;

interface Reply {
  id: number;
  rsp?: RunFunctionResponse;
  error?: string;
  stack?: string;
  load?: string;
  syntax?: boolean;
}

/**
 * A function given as a JS module (default export or `compose` export), called with the request
 * and a response seeded from it, as function-sdk-typescript's ComposeFunction, in a worker thread
 * started on first use and reused; a call over its timeout ends the worker (the next call starts
 * another).
 */
export class ModuleRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "module";
  private worker: Worker | undefined;
  private nextId = 1;

  constructor(
    readonly name: string,
    private readonly modulePath: string,
  ) {}

  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    const worker = (this.worker ??= new Worker(WORKER, { eval: true, workerData: { url: pathToFileURL(this.modulePath).href } }));
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop();
        reject(new FunctionFailure(`function ${this.name} timed out after ${timeoutMs / 1000}s (the module's worker was stopped)`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
      };
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        done();
        resolve(m);
      };
      const onError = (err: Error) => {
        done();
        this.worker = undefined;
        reject(new FunctionFailure(`function ${this.name} crashed: ${err.message}`, err.stack));
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      try {
        worker.postMessage({ id, req, rsp: responseTo(req) });
      } catch (err) {
        done();
        reject(new FunctionFailure(`function ${this.name}: the request cannot be passed to the module: ${(err as Error).message}`));
      }
    });
    if (reply.load !== undefined) {
      const at = reply.syntax ? await syntaxErrorAt(this.modulePath) : undefined;
      throw new FunctionFailure(
        `cannot load module ${displayPath(at?.file ?? this.modulePath)}${at ? `:${at.line}` : ""}: ${reply.syntax ? "SyntaxError: " : ""}${reply.load}`,
        at?.excerpt,
      );
    }
    if (reply.error !== undefined) throw new FunctionFailure(`function ${this.name} threw: ${reply.error}`, reply.stack);
    return reply.rsp!;
  }

  private stop(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }
}

/**
 * Where a module's syntax error is: a failed import() says what, not where, so node checks the file
 * (`node --check`, which prints `file:line`, the line and a caret). Undefined when the error is in
 * a module it imports, or node does not say.
 */
function syntaxErrorAt(modulePath: string): Promise<{ file: string; line: number; excerpt?: string } | undefined> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--check", modulePath],
      { timeout: 10_000, maxBuffer: 256 * 1024, env: { PATH: process.env.PATH ?? "" } },
      (err, _stdout, stderr) => {
        if (!err) return resolve(undefined);
        const lines = String(stderr).split("\n");
        const head = /^(.*):(\d+)$/.exec(lines[0] ?? "");
        if (!head) return resolve(undefined);
        const file = head[1]!.startsWith("file://") ? fileURLToPath(head[1]!) : head[1]!;
        const caret = lines.findIndex((l, i) => i > 0 && /^\s*\^+\s*$/.test(l));
        resolve({ file, line: Number(head[2]), excerpt: caret > 0 ? lines.slice(1, caret + 1).join("\n") : undefined });
      },
    );
  });
}

/** A path as findings show it: relative to the working directory when it is inside it. */
function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : file;
}
