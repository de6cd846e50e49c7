import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { runGoTemplating } from "../functions/go-templating/function.js";
import { directoryFileSystem } from "../functions/go-templating/filesystem.js";
import { removeTree } from "../../oci/unpack.js";
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
import { PackageRuntime, type PackageSettings } from "../../runtimes/package.js";
import { UnavailableRuntime, type CallContext, type FunctionRuntime } from "../../runtimes/runtime.js";

/**
 * A project's embedded function without a build, where its builder is no build at all
 * (crossplane/cli internal/project/functions): go-templating is the built-in with the folder as
 * its default source; KCL is the function-kcl package (trusted like any package) run as a process
 * with the builder's environment pointing at a read-only copy of the folder. Python and Go are
 * real builds: not rendered, saying what would render them.
 */
export interface ProjectRuntimeOptions {
  root: string;
  allowExec: boolean;
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
  if (!fs.existsSync(dir))
    return new UnavailableRuntime(
      "builtin",
      `${where}, built from ${fn.dir}, which is not in the repository`,
      `add the function's source folder ${fn.dir}, ${SERVE_FIX}`,
    );
  const language = projectFunctionLanguage(dir);
  if (language === "go-templating") return new ProjectGoTemplating(dir);
  if (language === "kcl") return kclRuntime(name, fn, dir, options);
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
 * The base package run as a process with the builder's environment naming a read-only copy of the
 * folder (the image has it at /src; here the copy's path stands in for it). The copy is made on
 * first use and removed on close, so the function never writes into the repository.
 */
export class ProjectPackageRuntime implements FunctionRuntime {
  readonly kind = "package";
  private copy: string | undefined;
  private runtime: PackageRuntime | undefined;

  constructor(
    readonly name: string,
    readonly image: string,
    private readonly language: "kcl",
    private readonly dir: string,
    private readonly settings: PackageSettings,
  ) {}

  async prepare(): Promise<void> {
    await this.package().prepare();
  }

  /** Pulls the base into the cache without running it (`functions pull`). */
  prefetch() {
    return this.package().prefetch();
  }

  run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    return this.package().run(req, timeoutMs);
  }

  private package(): PackageRuntime {
    if (this.runtime) return this.runtime;
    this.copy = readOnlyCopy(this.dir);
    this.runtime = new PackageRuntime(this.name, this.image, "IfNotPresent", this.settings, undefined, builderEnvironment(this.language, this.copy));
    return this.runtime;
  }

  async close(): Promise<void> {
    await this.runtime?.close();
    this.runtime = undefined;
    if (this.copy) removeTree(path.dirname(this.copy));
    this.copy = undefined;
  }
}

/** A copy of the folder (regular files and directories only: links are not followed out of it), files 0444 and directories 0555. */
function readOnlyCopy(dir: string): string {
  const target = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cci-project-fn-")), "src");
  const copy = (from: string, to: string) => {
    fs.mkdirSync(to);
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      if (e.isDirectory()) copy(path.join(from, e.name), path.join(to, e.name));
      else if (e.isFile()) {
        fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
        fs.chmodSync(path.join(to, e.name), 0o444);
      }
    }
    fs.chmodSync(to, 0o555);
  };
  copy(dir, target);
  return target;
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
