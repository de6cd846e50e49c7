import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { runAutoReady } from "../functions/auto-ready.js";
import { runPatchAndTransform } from "../functions/patch-and-transform/function.js";
import { runGoTemplating } from "../functions/go-templating/function.js";
import { runEnvironmentConfigs } from "../functions/environment-configs.js";
import { runExtraResources } from "../functions/extra-resources.js";
import { runCelFilter } from "../functions/cel-filter.js";
import { kroFlags, runKro } from "../functions/kro/function.js";
import { contribFunctionName } from "../../manifest/package-ref.js";
import { FunctionFailure, FunctionNotRunnable, type CallContext, type FunctionRuntime } from "../../runtimes/runtime.js";
import { directoryFileSystem } from "../functions/go-templating/filesystem.js";
import { withExecLimits } from "../../gotemplate/budget.js";
import type { BuiltinPackage } from "./builtin-names.js";

export { builtinNames } from "./builtin-names.js";

/** `args`: the function's command-line flags, from its DeploymentRuntimeConfig; undefined when unknown. */
export type BuiltinFunction = (req: RunFunctionRequest, call?: CallContext, args?: string[]) => RunFunctionResponse;

/** Built-in functions by package path (registry and tag ignored). */
const BUILTINS: Record<BuiltinPackage, BuiltinFunction> = {
  "crossplane-contrib/function-patch-and-transform": runPatchAndTransform,
  "crossplane-contrib/function-auto-ready": runAutoReady,
  "crossplane-contrib/function-go-templating": (req, call) =>
    runGoTemplating(req, call ? { fileSystem: directoryFileSystem({ root: call.root, base: call.base, mounts: call.mounts }) } : {}),
  "crossplane-contrib/function-environment-configs": runEnvironmentConfigs,
  "crossplane-contrib/function-extra-resources": runExtraResources,
  "crossplane-contrib/function-cel-filter": runCelFilter,
  "crossplane-contrib/function-kro": (req, _call, args) => runKro(req, kroFlags(args)),
};

export function builtinFor(pkg: string): BuiltinFunction | undefined {
  const name = contribFunctionName(pkg);
  return name === undefined ? undefined : (BUILTINS as Record<string, BuiltinFunction>)[`crossplane-contrib/${name}`];
}

export function builtinByName(name: string): BuiltinFunction | undefined {
  return Object.entries(BUILTINS).find(([p]) => p.split("/").pop() === name)?.[1];
}

export class BuiltinRuntime implements FunctionRuntime {
  readonly kind = "builtin";

  constructor(
    private readonly fn: BuiltinFunction,
    private readonly args?: string[],
  ) {}

  async run(req: RunFunctionRequest, timeoutMs?: number, call?: CallContext): Promise<RunFunctionResponse> {
    try {
      // A built-in runs on this thread: the template budget enforces --timeout for it.
      return timeoutMs ? withExecLimits({ ms: timeoutMs }, () => this.fn(req, call, this.args)) : this.fn(req, call, this.args);
    } catch (err) {
      if (err instanceof FunctionNotRunnable) throw err;
      throw new FunctionFailure(`built-in function crashed: ${(err as Error).stack ?? String(err)}`);
    }
  }

  async close(): Promise<void> {}
}
