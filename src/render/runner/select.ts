import path from "node:path";
import type { FunctionConfig } from "../../config/config.js";
import { BuiltinRuntime, builtinByName, builtinFor, type BuiltinFunction } from "./builtin.js";
import { DockerRuntime, dockerAnswers, dockerSettings, type DockerSettings } from "../../runtimes/docker.js";
import { PackageRuntime, type PackageSettings } from "../../runtimes/package.js";
import { isTrustedPackage } from "../../trust.js";
import { DevelopmentRuntime } from "../../runtimes/development.js";
import { ModuleRuntime } from "./module.js";
import { ProcessRuntime } from "../../runtimes/process.js";
import { projectRuntime } from "./project.js";
import type { EmbeddedFunction } from "../../project/index.js";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { FunctionNotRunnable, UnavailableRuntime, type CallContext, type FunctionRuntime } from "../../runtimes/runtime.js";

import { RUNTIME_ANNOTATION } from "../../validate/render-config.js";

export { RUNTIME_ANNOTATION };

/** Why a step's function cannot run when it does not exist at all: neither a Function object, nor a built-in, nor configured. */
export const NO_SUCH_FUNCTION = "is not in the repository (no Function object of that name)";
export const DEVELOPMENT_TARGET_ANNOTATION = "render.crossplane.io/runtime-development-target";
export const DEFAULT_DEVELOPMENT_TARGET = "localhost:9443";

/** What the runner needs from a `pkg.crossplane.io` Function manifest. */
export interface FunctionManifest {
  name: string;
  package?: string;
  annotations: Record<string, string>;
  /** The runtime annotation was set by the caller (`render -a`), not by the repository. */
  runtimeByCaller?: boolean;
  /** The flags its package runs with (its DeploymentRuntimeConfig's), when the repository says. */
  args?: string[];
}

export interface RuntimeOptions {
  /** `functions:` of `.composition-ci.yaml`. */
  functions: Record<string, FunctionConfig>;
  /** Where relative module paths and process working directories resolve. */
  root: string;
  /** Repository code (process, module, Docker) runs only when true. */
  allowExec: boolean;
  startTimeoutMs?: number;
  /** The project function a Function name stands for (built from `functions/<folder>/`), if it does. */
  embeddedFunction?: (name: string) => EmbeddedFunction | undefined;
  /**
   * Development functions' addresses given by whoever runs composition-ci (flags, Action inputs),
   * by function name. The repository's own target annotation is followed only with allowExec: a
   * pull request must not choose where the run connects.
   */
  developmentTargets?: Record<string, string>;
  /**
   * Where function packages are pulled to and how; without it, functions without a built-in run
   * only in Docker (with allowExec).
   */
  packages?: PackageSettings;
  /** The config's `functions.trusted` (in pr mode, as far as the base ref's config allows). */
  trustedPackages?: string[];
  /**
   * Functions with a built-in to run from their real package instead (diff: a change moves them to
   * another version), where the package is trusted and can be had; the built-in otherwise. What
   * happened is told to `ran`.
   */
  realPackages?: Map<string, { ran?: boolean; why?: string }>;
}

const EXEC_FIX = "run with --allow-exec (Action input allow-exec: true) if you trust the repository";

const CONFIG_FIX = "give it a built-in, a command or a module under functions: in .composition-ci.yaml";
const CONFIGURE_FIX = `${CONFIG_FIX}, or serve it yourself, annotate its Function ${RUNTIME_ANNOTATION}: Development and name its address with --development-target`;

/**
 * Chooses how each function runs: the config's `functions:` entry first, then the runtime
 * annotation (Development, Docker), then a built-in for the package, then its package pulled and
 * run as a process (when trusted), then Docker as `crossplane render` runs it (with allowExec). A function with no Function object runs as the
 * built-in it is usually named after (`function-patch-and-transform`,
 * `crossplane-contrib-function-auto-ready`).
 */
export function runtimeFor(fn: FunctionManifest | undefined, name: string, options: RuntimeOptions): FunctionRuntime {
  const configured = options.functions[name];
  if (configured) return configuredRuntime(name, configured, options);
  if (!fn) return runtimeWithoutManifest(name, options);
  const runtime = fn.annotations[RUNTIME_ANNOTATION];
  if (runtime === "Development") return developmentBuiltin(name, fn, options) ?? developmentRuntime(name, fn, options);
  const builtin = runtime === "Docker" ? undefined : builtinFor(fn.package ?? "");
  const real = options.realPackages?.get(name);
  if (builtin && real && options.packages) return new PreferPackageRuntime(packageRuntime(fn, options), new BuiltinRuntime(builtin, fn.args), real);
  if (builtin) return new BuiltinRuntime(builtin, fn.args);
  if (runtime && runtime !== "Docker") return new UnavailableRuntime("Docker", `function ${name}: unknown runtime "${runtime}"`);
  return runtime === "Docker" ? dockerRuntime(fn, options) : packageRuntime(fn, options);
}

const TRUST_FIX =
  "add its repository to functions.trusted in .composition-ci.yaml (in the Action's pr mode, the base branch's), or run with --allow-exec if you trust the repository";

/** A trusted package runs from its image without Docker; an image that cannot run here falls back to Docker where it answers. */
function packageRuntime(fn: FunctionManifest, options: RuntimeOptions): FunctionRuntime {
  const settings = dockerSettings(fn.package ?? "", fn.annotations);
  if ("error" in settings) return new UnavailableRuntime("Docker", `function ${fn.name}: ${settings.error}`);
  if (!options.packages) return dockerRuntime(fn, options);
  if (!isTrustedPackage(settings.image, options.trustedPackages ?? [], options.allowExec)) {
    return new UnavailableRuntime("package", `would pull and run ${settings.image}, which is not a trusted package`, TRUST_FIX);
  }
  // Docker runs the same trusted image, but Docker images run only with allow-exec (SECURITY.md).
  const fallback = async (why: string) => (options.allowExec && (await dockerAnswers()) ? dockerFor(fn.name, settings, options, why) : undefined);
  return new PackageRuntime(fn.name, settings.image, settings.pullPolicy, options.packages, fallback);
}

function dockerFor(name: string, settings: DockerSettings, options: RuntimeOptions, why?: string): DockerRuntime {
  return new DockerRuntime(name, settings, options.startTimeoutMs ?? 60_000, why ? `${why}; ${CONFIGURE_FIX}` : CONFIGURE_FIX);
}

/**
 * A Development Function whose package or name is a built-in (a function's own repository keeps
 * `render.crossplane.io/runtime: Development` with a placeholder package for `crossplane render`)
 * renders built in, unless the caller names a target to connect to, allows connecting to the
 * annotated one, or set the annotation itself (`render -a`).
 */
function developmentBuiltin(name: string, fn: FunctionManifest, options: RuntimeOptions): FunctionRuntime | undefined {
  if (options.developmentTargets?.[name] || options.allowExec || fn.runtimeByCaller) return undefined;
  const builtin = builtinFor(fn.package ?? "") ?? builtinForUsualName(name);
  return builtin && new BuiltinRuntime(builtin);
}

function developmentRuntime(name: string, fn: FunctionManifest, options: RuntimeOptions): FunctionRuntime {
  const given = options.developmentTargets?.[name];
  if (given) return new DevelopmentRuntime(given);
  if (options.allowExec) return new DevelopmentRuntime(fn.annotations[DEVELOPMENT_TARGET_ANNOTATION] || DEFAULT_DEVELOPMENT_TARGET);
  return new UnavailableRuntime(
    "Development",
    "is a Development function; composition-ci connects only to targets its caller names, not to one the repository names",
    `give its address with --development-target ${name}=HOST:PORT (Action input development-targets), or run with --allow-exec if you trust the repository`,
  );
}

function runtimeWithoutManifest(name: string, options: RuntimeOptions): FunctionRuntime {
  const builtin = builtinForUsualName(name);
  if (builtin) return new BuiltinRuntime(builtin);
  const embedded = options.embeddedFunction?.(name);
  if (embedded) return projectRuntime(name, embedded, options);
  return new UnavailableRuntime("builtin", NO_SUCH_FUNCTION, `add its Function object to the repository, or ${CONFIG_FIX}`);
}

/**
 * The built-in a Function object-less step names by its usual name: the package's name
 * (`function-auto-ready`) or, as Upbound projects name their dependencies, the organisation and
 * the name (`crossplane-contrib-function-auto-ready`).
 */
export function builtinForUsualName(name: string): BuiltinFunction | undefined {
  const bare = name.replace(/^(crossplane-contrib|upbound)-(?=function-)/, "");
  return bare.startsWith("function-") ? builtinFor(`crossplane-contrib/${bare}`) : undefined;
}

function configuredRuntime(name: string, f: FunctionConfig, options: RuntimeOptions): FunctionRuntime {
  if (f.builtin) {
    const builtin = builtinByName(f.builtin);
    return builtin ? new BuiltinRuntime(builtin) : new UnavailableRuntime("builtin", `function ${name}: no built-in named "${f.builtin}"`);
  }
  if (f.module) {
    if (!options.allowExec) return new UnavailableRuntime("module", `would run the module ${f.module} from the repository`, EXEC_FIX);
    return new ModuleRuntime(name, path.resolve(options.root, f.module));
  }
  if (!options.allowExec) return new UnavailableRuntime("process", `would run \`${f.command!.join(" ")}\` from the repository`, EXEC_FIX);
  return new ProcessRuntime(name, {
    command: f.command!,
    cwd: options.root,
    startTimeoutMs: (f.startTimeout ?? 0) * 1000 || options.startTimeoutMs || 30_000,
  });
}

function dockerRuntime(fn: FunctionManifest, options: RuntimeOptions): FunctionRuntime {
  const settings = dockerSettings(fn.package ?? "", fn.annotations);
  if ("error" in settings) return new UnavailableRuntime("Docker", `function ${fn.name}: ${settings.error}`);
  if (!options.allowExec)
    return new UnavailableRuntime(
      "Docker",
      `would run the image ${settings.image}, which needs Docker and --allow-exec`,
      `${EXEC_FIX} and Docker is there, or ${CONFIGURE_FIX}`,
    );
  return dockerFor(fn.name, settings, options);
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

/**
 * The real package of a function that has a built-in, where it is trusted and can be pulled and
 * run; the built-in otherwise. `outcome` says which ran (and why not the package).
 */
class PreferPackageRuntime implements FunctionRuntime {
  readonly kind = "package";

  constructor(
    private readonly pkg: FunctionRuntime,
    private readonly builtin: BuiltinRuntime,
    private readonly outcome: { ran?: boolean; why?: string },
  ) {}

  async run(req: RunFunctionRequest, timeoutMs: number, call?: CallContext): Promise<RunFunctionResponse> {
    try {
      const rsp = await this.pkg.run(req, timeoutMs, call);
      if (this.outcome.ran === undefined) this.outcome.ran = true;
      return rsp;
    } catch (err) {
      if (!(err instanceof FunctionNotRunnable)) throw err;
      this.outcome.ran = false;
      this.outcome.why ??= err.message;
      return this.builtin.run(req, timeoutMs, call);
    }
  }

  async close(): Promise<void> {
    await this.pkg.close();
  }
}
