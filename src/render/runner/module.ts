import { pathToFileURL } from "node:url";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { responseTo } from "../functions/response.js";
import { FunctionFailure, type FunctionRuntime, type RuntimeKind } from "./runtime.js";

type Compose = (req: RunFunctionRequest, rsp: RunFunctionResponse) => RunFunctionResponse | Promise<RunFunctionResponse>;

/**
 * A function given as a JS module (default export or `compose` export), called in-process with
 * the request and a response seeded from it, as function-sdk-typescript's ComposeFunction.
 */
export class ModuleRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "module";
  private compose: Promise<Compose> | undefined;

  constructor(
    readonly name: string,
    private readonly modulePath: string,
  ) {}

  private async load(): Promise<Compose> {
    const mod = (await import(pathToFileURL(this.modulePath).href)) as { default?: unknown; compose?: unknown };
    const fn = typeof mod.default === "function" ? mod.default : mod.compose;
    if (typeof fn !== "function") {
      throw new FunctionFailure(`module ${this.modulePath} exports neither a default function nor compose()`);
    }
    return fn as Compose;
  }

  async run(req: RunFunctionRequest): Promise<RunFunctionResponse> {
    let compose: Compose;
    try {
      compose = await (this.compose ??= this.load());
    } catch (err) {
      if (err instanceof FunctionFailure) throw err;
      throw new FunctionFailure(`cannot load module ${this.modulePath}: ${(err as Error).message}`);
    }
    try {
      const rsp = await compose(req, responseTo(req));
      if (!rsp || typeof rsp !== "object") throw new Error("compose() returned no response");
      return rsp;
    } catch (err) {
      throw new FunctionFailure(`function ${this.name} threw: ${(err as Error).message}`, (err as Error).stack);
    }
  }

  async close(): Promise<void> {}
}
