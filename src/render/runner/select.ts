import path from "node:path";
import type { FunctionConfig } from "../../config/config.js";
import { BuiltinRuntime, builtinByName, builtinFor } from "./builtin.js";
import { DockerRuntime, dockerSettings } from "./docker.js";
import { DevelopmentRuntime } from "./grpc.js";
import { ModuleRuntime } from "./module.js";
import { ProcessRuntime } from "./process.js";
import { UnavailableRuntime, type FunctionRuntime } from "./runtime.js";

export const RUNTIME_ANNOTATION = "render.crossplane.io/runtime";
export const DEVELOPMENT_TARGET_ANNOTATION = "render.crossplane.io/runtime-development-target";
export const DEFAULT_DEVELOPMENT_TARGET = "localhost:9443";

/** What the runner needs from a `pkg.crossplane.io` Function manifest. */
export interface FunctionManifest {
  name: string;
  package?: string;
  annotations: Record<string, string>;
}

export interface RuntimeOptions {
  /** `functions:` of `.composition-ci.yaml`. */
  functions: Record<string, FunctionConfig>;
  /** Where relative module paths and process working directories resolve. */
  root: string;
  /** Repository code (process, module, Docker) runs only when true. */
  allowExec: boolean;
  startTimeoutMs?: number;
}

const EXEC_REFUSED = (name: string, what: string) =>
  `function ${name} would run ${what} from the repository; that is refused unless --allow-exec (Action input allow-exec) is given`;

/**
 * Chooses how each function runs, like `crossplane render`: the config's `functions:` entry
 * first, then the runtime annotation (Development, Docker), then a built-in for the package,
 * then Docker (crossplane render's default).
 */
export function runtimeFor(fn: FunctionManifest | undefined, name: string, options: RuntimeOptions): FunctionRuntime {
  const configured = options.functions[name];
  if (configured) return configuredRuntime(name, configured, options);
  if (!fn) return new UnavailableRuntime("builtin", `function ${name} is not in the repository and not configured in functions:`);
  const runtime = fn.annotations[RUNTIME_ANNOTATION];
  if (runtime === "Development") {
    return new DevelopmentRuntime(fn.annotations[DEVELOPMENT_TARGET_ANNOTATION] || DEFAULT_DEVELOPMENT_TARGET);
  }
  const builtin = runtime === "Docker" ? undefined : builtinFor(fn.package ?? "");
  if (builtin) return new BuiltinRuntime(builtin);
  if (runtime && runtime !== "Docker") return new UnavailableRuntime("Docker", `function ${name}: unknown runtime "${runtime}"`);
  return dockerRuntime(fn, options);
}

function configuredRuntime(name: string, f: FunctionConfig, options: RuntimeOptions): FunctionRuntime {
  if (f.builtin) {
    const builtin = builtinByName(f.builtin);
    return builtin ? new BuiltinRuntime(builtin) : new UnavailableRuntime("builtin", `function ${name}: no built-in named "${f.builtin}"`);
  }
  if (f.module) {
    if (!options.allowExec) return new UnavailableRuntime("module", EXEC_REFUSED(name, `module ${f.module}`));
    return new ModuleRuntime(name, path.resolve(options.root, f.module));
  }
  if (!options.allowExec) return new UnavailableRuntime("process", EXEC_REFUSED(name, `\`${f.command!.join(" ")}\``));
  return new ProcessRuntime(name, {
    command: f.command!,
    cwd: options.root,
    startTimeoutMs: (f.startTimeout ?? 0) * 1000 || options.startTimeoutMs || 30_000,
  });
}

function dockerRuntime(fn: FunctionManifest, options: RuntimeOptions): FunctionRuntime {
  const hint =
    `give it a built-in, a command or a module under functions: in .composition-ci.yaml, ` +
    `or annotate it ${RUNTIME_ANNOTATION}: Development`;
  const settings = dockerSettings(fn.package ?? "", fn.annotations);
  if ("error" in settings) return new UnavailableRuntime("Docker", `function ${fn.name}: ${settings.error}`);
  if (!options.allowExec) return new UnavailableRuntime("Docker", `${EXEC_REFUSED(fn.name, `image ${settings.image}`)}; ${hint}`);
  return new DockerRuntime(fn.name, settings, options.startTimeoutMs ?? 60_000, hint);
}

/** Runtimes for a run, created on first use and all closed at the end. */
export class RuntimePool {
  private readonly runtimes = new Map<string, FunctionRuntime>();

  constructor(
    private readonly manifests: Map<string, FunctionManifest>,
    private readonly options: RuntimeOptions,
  ) {}

  get(name: string): FunctionRuntime {
    let runtime = this.runtimes.get(name);
    if (!runtime) {
      runtime = runtimeFor(this.manifests.get(name), name, this.options);
      this.runtimes.set(name, runtime);
    }
    return runtime;
  }

  async close(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((r) => r.close()));
    this.runtimes.clear();
  }
}
