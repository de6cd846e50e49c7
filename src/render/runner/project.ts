import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { runGoTemplating } from "../functions/go-templating/function.js";
import { directoryFileSystem } from "../functions/go-templating/filesystem.js";
import { contentKey } from "../../cache/store.js";
import { removeTree } from "../../oci/unpack.js";
import { staysInside } from "../../manifest/discover.js";
import { isTrustedPackage } from "../../trust.js";
import {
  BASE_IMAGES,
  LANGUAGE_NAMES,
  SOURCE_MOUNT,
  builderEnvironment,
  projectFunctionLanguage,
  rewriteImage,
  type EmbeddedFunction,
} from "../../project/index.js";
import { BuiltinRuntime } from "./builtin.js";
import { prefillKclModules } from "./kcl-modules.js";
import { PackageRuntime, type PackageSettings } from "../../runtimes/package.js";
import {
  closeStarted,
  FunctionFailure,
  FunctionNotRunnable,
  UnavailableRuntime,
  type CallContext,
  type FunctionRuntime,
  type RuntimeKind,
} from "../../runtimes/runtime.js";
import { ProcessRuntime } from "../../runtimes/process.js";

/**
 * A project's embedded function without a build, where its builder is no build at all
 * (crossplane/cli internal/project/functions): go-templating is the built-in with the folder as
 * its default source; KCL is the function-kcl package (trusted like any package) run as a process
 * with the builder's environment pointing at a read-only copy of the folder; Go is compiled with
 * the runner's go, only with --allow-exec. Python is a real build (pip in a container): not
 * rendered, saying what would render it.
 */
export interface ProjectRuntimeOptions {
  root: string;
  allowExec: boolean;
  startTimeoutMs?: number;
  packages?: PackageSettings;
  trustedPackages?: string[];
}

const SERVE_FIX =
  "or build and serve it yourself (`crossplane project build`, `up project build`), annotate a Function object of that name render.crossplane.io/runtime: Development and give its address with --development-target";

export function projectRuntime(name: string, fn: EmbeddedFunction, options: ProjectRuntimeOptions): FunctionRuntime {
  const where = `is a function of the project ${fn.project.file}`;
  if (fn.source === "Tarball")
    return new UnavailableRuntime(
      "builtin",
      `${where}, supplied as pre-built image tarballs; composition-ci does not load image tarballs`,
      `push the image and name it in a Function object, ${SERVE_FIX}`,
    );
  const dir = path.resolve(options.root, fn.dir);
  // A folder named by the project file (a pull request's head may write it) is read only inside the repository.
  if (!staysInside(options.root, fn.dir))
    return new UnavailableRuntime(
      "builtin",
      `${where}, built from ${fn.dir}, which leads outside the repository; not read`,
      `keep the function's folder inside the repository, ${SERVE_FIX}`,
    );
  if (!fs.existsSync(dir))
    return new UnavailableRuntime(
      "builtin",
      `${where}, built from ${fn.dir}, which is not in the repository`,
      `add the function's source folder ${fn.dir}, ${SERVE_FIX}`,
    );
  const language = projectFunctionLanguage(dir);
  if (language === "go-templating") return new ProjectGoTemplating(dir);
  if (language === "kcl") return kclRuntime(name, fn, dir, options);
  if (language === "go") return goRuntime(name, fn, dir, options);
  const what = language
    ? `a ${LANGUAGE_NAMES[language]} function`
    : "a function no builder recognises (no kcl.mod, pyproject.toml with function/, go.mod, or only .gotmpl/.tmpl templates)";
  const build =
    language === "python" ? "a Python function is built (pip in a container)" : language === "go" ? "a Go function is compiled" : "it cannot be built";
  return new UnavailableRuntime(
    "builtin",
    `${where}, built from ${fn.dir}: ${what}; ${build}, and composition-ci does not build functions`,
    `give it a command or module under functions: ${name} in .composition-ci.yaml, ${SERVE_FIX}`,
  );
}

function kclRuntime(name: string, fn: EmbeddedFunction, dir: string, options: ProjectRuntimeOptions): FunctionRuntime {
  const base = rewriteImage(BASE_IMAGES.kcl!, fn.project.imageConfigs);
  const repository = base.replace(/[:@][^/]*$/, "");
  if (!isTrustedPackage(base, options.trustedPackages ?? [], options.allowExec)) {
    return new UnavailableRuntime(
      "package",
      `is a KCL function of the project ${fn.project.file}, built from ${fn.dir}: it runs on ${base} (the CLI's base image for KCL), which is not a trusted package, and the folder is repository code`,
      `add one line to .composition-ci.yaml (in the Action's pr mode, the base branch's): functions: {trusted: ["${repository}"]}, or run with --allow-exec if you trust the repository`,
    );
  }
  if (!options.packages)
    return new UnavailableRuntime(
      "package",
      `is a KCL function of the project, built from ${fn.dir}: it runs on ${base}, and this run pulls no packages`,
      "run check, render or diff (they pull trusted packages), not a command given only a functions file",
    );
  return new ProjectPackageRuntime(name, base, "kcl", dir, options.packages);
}

/**
 * A Go function compiled with the runner's `go` (the CLI builds it with ko, the same compiler) and
 * run as a process: repository code, so only with --allow-exec.
 */
function goRuntime(name: string, fn: EmbeddedFunction, dir: string, options: ProjectRuntimeOptions): FunctionRuntime {
  if (!options.allowExec) {
    return new UnavailableRuntime(
      "process",
      `is a Go function of the project ${fn.project.file}, built from ${fn.dir}: composition-ci compiles it with the runner's go only when it may run repository code`,
      `run with --allow-exec (Action input allow-exec: true) if you trust the repository and go is on PATH, ${SERVE_FIX}`,
    );
  }
  return new GoBuildRuntime(name, dir, options.startTimeoutMs ?? 60_000);
}

/** Go's own settings a build reads from the environment (no credentials): where modules and the build cache are, which proxy. */
const GO_BUILD_ENV = ["GOPATH", "GOCACHE", "GOMODCACHE", "GOPROXY", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOFLAGS", "GOTOOLCHAIN", "GOROOT"];
const GO_BUILD_TIMEOUT_MS = 300_000;

/**
 * A runtime started on first use from a copy of a function's folder in a work directory of its
 * own: closing stops what started and removes the directory (the copy with it).
 */
abstract class FolderRuntime implements FunctionRuntime {
  abstract readonly kind: RuntimeKind;
  private work: string | undefined;
  private started: Promise<FunctionRuntime> | undefined;

  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    const runtime = await (this.started ??= this.start());
    return runtime.run(req, timeoutMs);
  }

  protected abstract start(): Promise<FunctionRuntime>;

  /** The work directory, made on first use. */
  protected workDir(prefix: string): string {
    return (this.work ??= fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  }

  async close(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    await closeStarted(started);
    if (this.work) removeTree(this.work);
    this.work = undefined;
  }
}

/**
 * `go build` of a copy of the folder into a binary of the run's own, then the binary as a process
 * function (`--insecure --address`, as function-sdk-go serves). The build gets PATH, HOME and Go's
 * own settings; the function gets PATH and a private HOME, like a pulled package.
 */
class GoBuildRuntime extends FolderRuntime {
  readonly kind = "process";

  constructor(
    readonly name: string,
    private readonly dir: string,
    private readonly startTimeoutMs: number,
  ) {
    super();
  }

  protected async start(): Promise<ProcessRuntime> {
    const work = this.workDir("cci-go-fn-");
    const source = copyFolder(this.dir, path.join(work, "src"), { readOnly: true });
    const binary = path.join(work, "function");
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, CGO_ENABLED: "0" };
    for (const key of GO_BUILD_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
    const built = await new Promise<{ code: number | null; output: string; error?: string }>((resolve) => {
      execFile("go", ["build", "-o", binary, "."], { cwd: source, env, timeout: GO_BUILD_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? ((err as NodeJS.ErrnoException).code === "ENOENT" ? null : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim(), error: err?.message });
      });
    });
    if (built.code === null)
      throw new FunctionNotRunnable(
        "is a Go function of the project; go is not on PATH to build it",
        "install Go on the runner (actions/setup-go), or build and serve the function yourself",
      );
    if (built.code !== 0) throw new FunctionFailure(`function ${this.name}: go build failed`, built.output.slice(-4096) || built.error);
    const home = fs.mkdtempSync(path.join(work, "cci-function-home-"));
    return new ProcessRuntime(this.name, {
      command: [binary],
      cwd: home,
      startTimeoutMs: this.startTimeoutMs,
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
    });
  }
}

/**
 * The base package run as a process with the builder's environment naming a private copy of the
 * folder (the image has it at /src, writable by the function: kpm writes its settings and
 * kcl.mod.lock there, and downloads the kcl.mod dependencies there unless they are present, which
 * the copy's are when the package cache has them). The copy is made on first use and removed on
 * close, so the function never writes into the repository.
 */
export class ProjectPackageRuntime extends FolderRuntime {
  readonly kind = "package";
  private readonly base: PackageRuntime;

  constructor(
    readonly name: string,
    readonly image: string,
    private readonly language: "kcl",
    private readonly dir: string,
    private readonly settings: PackageSettings,
  ) {
    super();
    this.base = new PackageRuntime(name, image, "IfNotPresent", settings);
  }

  async prepare(): Promise<void> {
    await this.base.prepare();
  }

  /** Pulls the base into the cache without running it (`functions pull`). */
  prefetch() {
    return this.base.prefetch();
  }

  /** Pulls the folder's kcl.mod dependencies into the cache (`functions pull`): the modules pulled. */
  async prefetchModules(): Promise<string[]> {
    try {
      return (await prefillKclModules(this.copy(), { ...this.settings, offline: false })).modules.filter((m) => !m.endsWith("@folder"));
    } finally {
      await this.close();
    }
  }

  protected async start(): Promise<PackageRuntime> {
    const copy = this.copy();
    const { modules, pinned } = await prefillKclModules(copy, this.settings).catch((err: Error) => {
      if (err instanceof FunctionFailure) throw err;
      throw new FunctionFailure(`function ${this.name}: putting kcl.mod's modules in place: ${err.message}`);
    });
    // The copy's path changes each run; what the function reads there does not, unless the folder
    // or a module changed. A dependency the function fetches itself may change unseen: no answer is kept.
    const identity = pinned ? `${this.language}:${folderKey(this.dir)}:${modules.join(",")}` : undefined;
    return new PackageRuntime(this.name, this.image, "IfNotPresent", this.settings, undefined, builderEnvironment(this.language, copy), identity);
  }

  private copy(): string {
    const copy = path.join(this.workDir("cci-project-fn-"), "src");
    if (!fs.existsSync(copy)) copyFolder(this.dir, copy, { readOnly: false });
    return copy;
  }
}

/** A copy of the folder (regular files and directories only: links are not followed out of it); read-only: files 0444 and directories 0555. */
function copyFolder(dir: string, target: string, { readOnly }: { readOnly: boolean }): string {
  const copy = (from: string, to: string) => {
    fs.mkdirSync(to);
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      if (e.isDirectory()) copy(path.join(from, e.name), path.join(to, e.name));
      else if (e.isFile()) {
        fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
        fs.chmodSync(path.join(to, e.name), readOnly ? 0o444 : 0o644);
      }
    }
    fs.chmodSync(to, readOnly ? 0o555 : 0o755);
  };
  copy(dir, target);
  return target;
}

/** The content of a folder as the copy has it: each regular file's path and bytes, in a fixed order. */
function folderKey(dir: string): string {
  const parts: (string | Uint8Array)[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${rel}${e.name}/`);
      else if (e.isFile()) parts.push(`${rel}${e.name}`, fs.readFileSync(path.join(d, e.name)));
    }
  };
  walk(dir, "");
  return contentKey(...parts);
}

/**
 * A project's go-templating function: the built-in function-go-templating with the folder as its
 * default source (`/src`, as the CLI's image has it), in-process.
 */
class ProjectGoTemplating implements FunctionRuntime {
  readonly kind = "builtin";

  constructor(private readonly dir: string) {}

  async run(req: RunFunctionRequest, timeoutMs: number, call?: CallContext): Promise<RunFunctionResponse> {
    const context: CallContext = { root: call?.root ?? this.dir, base: call?.base ?? this.dir, mounts: { ...(call?.mounts ?? {}), [SOURCE_MOUNT]: this.dir } };
    const builtin = new BuiltinRuntime((r, c) =>
      runGoTemplating(r, { defaultSource: SOURCE_MOUNT, ...(c ? { fileSystem: directoryFileSystem({ root: c.root, base: c.base, mounts: c.mounts }) } : {}) }),
    );
    return builtin.run(req, timeoutMs, context);
  }

  async close(): Promise<void> {}
}
