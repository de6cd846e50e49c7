import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { responseTo } from "../functions/response.js";
import { FunctionFailure, type FunctionRuntime, type RuntimeKind } from "./runtime.js";

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
parentPort.on("message", async ({ id, req, rsp }) => {
  let compose;
  try {
    compose = await loaded;
  } catch (err) {
    return parentPort.postMessage({ id, load: String(err && err.message || err) });
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
    if (reply.load !== undefined) throw new FunctionFailure(`cannot load module ${this.modulePath}: ${reply.load}`);
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
