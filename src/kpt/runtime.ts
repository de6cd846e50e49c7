import { finishContained, signalContained, spawnContained } from "../runtimes/contain.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import semver from "semver";
import { listTags, pullImage, PullError, type PulledImage } from "../oci/image.js";
import { launchOf } from "../runtimes/executable.js";
import type { PackageSettings } from "../runtimes/package.js";
import { isTrustedPackage } from "../trust.js";
import { CATALOG_PREFIXES, KPT_BUILTINS } from "./functions/index.js";
import type { BuiltinFunction, ResourceList } from "./functions/types.js";
import { toYaml } from "./yaml.js";

/**
 * How each function of a Kptfile runs here. `image:` functions: a built-in when the image is one
 * of the catalog's that composition-ci implements (registry, tag and digest ignored), else the
 * image pulled with the OCI client and its entrypoint run as a process reading the ResourceList
 * on stdin and writing one on stdout, when the image is trusted. `exec:` functions: the program,
 * with --allow-exec only. What cannot run is `NotRunnable`: the package is not rendered, and the
 * reason and the fix are said once.
 */

export interface KptRuntimeOptions {
  allowExec: boolean;
  /** The config's `functions.trusted` globs. */
  trustedPackages?: string[];
  /** Where function images come from; none: images are not run (only built-ins). */
  packages?: PackageSettings;
  timeoutMs: number;
}

/** The catalog function images composition-ci trusts like the crossplane-contrib functions. */
/**
 * kpt catalog functions trusted by default: pure KRM transforms and checks, vetted one by one.
 * They run on the host without kpt's container (no --network none), so a function that fetches
 * (render-helm-chart), reads local paths or evaluates code (starlark) is not among them.
 */
const VETTED_KPT_FUNCTIONS =
  "{apply-setters,create-setters,search-replace,set-image,ensure-name-substring,remove-local-config-resources,set-enforcement-action,set-labels,set-annotations,set-namespace,apply-replacements}";
export const KPT_TRUSTED_IMAGES = [`ghcr.io/kptdev/krm-functions-catalog/${VETTED_KPT_FUNCTIONS}`, `gcr.io/kpt-fn/${VETTED_KPT_FUNCTIONS}`];

/** kpt's default prefix for an image given by its bare name (`set-labels`). */
export const DEFAULT_IMAGE_PREFIX = "ghcr.io/kptdev/krm-functions-catalog";

export class NotRunnable extends Error {
  constructor(
    message: string,
    readonly fix: string,
    /** The image is not trusted (nothing failed: composition-ci chose not to run it). */
    readonly untrusted = false,
  ) {
    super(message);
  }
}

/** What a function wrote and how it exited. */
export interface RunOutcome {
  /** The ResourceList a built-in returned. */
  list?: ResourceList;
  /** What a process wrote on stdout. */
  stdout?: string;
  stderr: string;
  exitCode: number;
}

export interface KrmRuntime {
  readonly kind: "builtin" | "image" | "exec";
  /** The function as kpt names it in results (`image:tag`, or the exec path). */
  readonly name: string;
  run(list: ResourceList, cwd: string): Promise<RunOutcome>;
}

/** kpt's image resolution: a bare name gets the catalog prefix; no tag or digest means `:latest`. */
export function resolveImage(image: string): string {
  let out = image.includes("/") ? image : `${DEFAULT_IMAGE_PREFIX}/${image}`;
  if (!hasTagOrDigest(out)) out += ":latest";
  return out;
}

function hasTagOrDigest(image: string): boolean {
  if (image.includes("@")) return true;
  const slash = image.lastIndexOf("/");
  return (slash < 0 ? image : image.slice(slash)).includes(":");
}

export function tagOf(image: string): string | undefined {
  const ref = image.replace(/@.*$/, "");
  const slash = ref.lastIndexOf("/");
  const colon = ref.indexOf(":", slash + 1);
  return colon < 0 ? undefined : ref.slice(colon + 1);
}

export function repositoryOf(image: string): string {
  return image.replace(/@.*$/, "").replace(/:[^/]*$/, "");
}

/** The built-in for a catalog image (by its last path segment), if composition-ci has one. */
export function builtinFor(image: string): { name: string; fn: BuiltinFunction } | undefined {
  const repository = repositoryOf(image.includes("/") ? image : `${DEFAULT_IMAGE_PREFIX}/${image}`).toLowerCase();
  const prefix = CATALOG_PREFIXES.find((p) => repository.startsWith(p));
  if (!prefix) return undefined;
  const name = repository.slice(prefix.length);
  const fn = Object.hasOwn(KPT_BUILTINS, name) ? KPT_BUILTINS[name] : undefined;
  return fn === undefined ? undefined : { name, fn };
}

export class KptRuntimes {
  private readonly homes: string[] = [];
  private readonly images = new Map<string, Promise<PulledImage>>();

  constructor(private readonly options: KptRuntimeOptions) {}

  /** The runtime for one step, or a NotRunnable that says why and what would let it run. */
  async runtimeFor(spec: { image?: string; exec?: string; tag?: string }): Promise<KrmRuntime> {
    if (spec.exec) return this.exec(spec.exec);
    const image = spec.image ?? "";
    const builtin = builtinFor(image);
    if (builtin) {
      const name = resolveImage(image);
      return { kind: "builtin", name, run: async (list) => builtinRun(builtin.fn, list, tagOf(name)) };
    }
    let resolved = resolveImage(image);
    if (!isTrustedPackage(resolved, [...KPT_TRUSTED_IMAGES, ...(this.options.trustedPackages ?? [])], this.options.allowExec)) {
      throw new NotRunnable(
        `is not trusted, so composition-ci does not pull and run it`,
        `add "${repositoryOf(resolved)}" to functions.trusted in .composition-ci.yaml (or run with --allow-exec, the Action's allow-exec: true)`,
        true,
      );
    }
    const settings = this.options.packages;
    if (!settings) throw new NotRunnable("is a function image, and this command does not pull images", "run composition-ci check or render --all");
    if (spec.tag) resolved = await this.resolveTag(image, spec.tag, settings);
    return this.imageRuntime(resolved, settings);
  }

  /**
   * Pulls a step's image into the package cache without running it (functions pull): the image
   * pulled, or "builtin" for a catalog function built in; NotRunnable when it would not run.
   */
  async prefetch(spec: { image?: string; exec?: string; tag?: string }): Promise<PulledImage | "builtin"> {
    const runtime = await this.runtimeFor(spec);
    if (runtime.kind === "builtin") return "builtin";
    if (runtime.kind === "exec") throw new NotRunnable("is an `exec:` function, not an image", "nothing to pull: install the program where the pipeline runs");
    return this.pull(runtime.name, this.options.packages!);
  }

  private exec(exec: string): KrmRuntime {
    if (!this.options.allowExec) {
      throw new NotRunnable(
        "is an `exec:` function: it runs a program of this machine, which kpt too runs only with --allow-exec",
        "run with --allow-exec (the Action's allow-exec: true) where the program is installed",
      );
    }
    const argv = shlexSplit(exec);
    if (!argv.length) throw new NotRunnable("has an empty exec", "name the program in exec:");
    return {
      kind: "exec",
      name: exec,
      run: async (list, cwd) => {
        try {
          return await runProcess(argv, { cwd, env: process.env }, toYaml(list), this.options.timeoutMs);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT")
            throw new NotRunnable(
              `cannot be started: ${argv[0]} is not installed here`,
              `install ${argv[0]} on the runner, or run the package's pipeline where it is`,
            );
          throw err;
        }
      },
    };
  }

  /** kpt's `tag:` field: an exact tag, or a semver constraint resolved against the registry's tags. */
  private async resolveTag(image: string, tag: string, settings: PackageSettings): Promise<string> {
    const repository = repositoryOf(image.includes("/") ? image : `${DEFAULT_IMAGE_PREFIX}/${image}`);
    if (semver.valid(tag.replace(/^v/, "")) && !/[<>=^~*x|\s]/.test(tag)) return `${repository}:${tag}`;
    const range = semver.validRange(tag);
    if (!range) return `${repository}:${tag}`;
    if (settings.offline)
      throw new NotRunnable(
        `has the version constraint "${tag}", which needs the registry's tags and this run is offline`,
        "pin the tag in the Kptfile, or run where the registry answers",
      );
    let tags: string[];
    try {
      tags = await listTags(repository, settings.client);
    } catch (err) {
      throw new NotRunnable(
        `could not list the tags of ${repository}: ${(err as Error).message}`,
        "check the image reference and the registry's credentials, or pin the tag",
      );
    }
    const best = tags
      .filter((t) => semver.valid(t.replace(/^v/, "")) && semver.satisfies(t.replace(/^v/, ""), range))
      .sort((a, b) => semver.rcompare(a.replace(/^v/, ""), b.replace(/^v/, "")))[0];
    if (!best) throw new NotRunnable(`has no tag that satisfies "${tag}" in ${repository}`, "fix the constraint in the Kptfile's tag:");
    return `${repository}:${best}`;
  }

  private imageRuntime(reference: string, settings: PackageSettings): KrmRuntime {
    return {
      kind: "image",
      name: reference,
      run: async (list) => {
        const image = await this.pull(reference, settings);
        const entrypoint = [...(image.config.Entrypoint ?? []), ...(image.config.Cmd ?? [])];
        const launch = launchOf(image.root, { ...image.config, Entrypoint: entrypoint });
        if ("cannot" in launch)
          throw new NotRunnable(
            `cannot run ${image.reference} here: ${launch.cannot}`,
            "run where the image's platform matches (a linux runner of its architecture)",
          );
        const home = fs.mkdtempSync(path.join(os.tmpdir(), "cci-krm-home-"));
        this.homes.push(home);
        const env: NodeJS.ProcessEnv = {};
        for (const entry of image.config.Env ?? []) {
          const eq = entry.indexOf("=");
          if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
        env.PATH = process.env.PATH;
        env.HOME = home;
        env.TMPDIR = home;
        return runProcess(launch.command, { cwd: launch.cwd, env }, toYaml(list), this.options.timeoutMs);
      },
    };
  }

  private pull(reference: string, settings: PackageSettings): Promise<PulledImage> {
    let pending = this.images.get(reference);
    if (!pending) {
      pending = pullImage(reference, { ...settings, pullPolicy: "IfNotPresent" }).catch((err: unknown) => {
        if (!(err instanceof PullError)) throw err;
        if (err.kind === "offline")
          throw new NotRunnable(
            `is not in the package cache: ${err.message}`,
            "run composition-ci check once where the registry can be reached (it fills the cache), and keep the cache (actions/cache)",
          );
        if (err.kind === "registry")
          throw new NotRunnable(
            `could not be pulled: ${err.message}`,
            "check the image reference and the registry's credentials (docker login), or run where the registry answers",
          );
        throw err;
      });
      this.images.set(reference, pending);
    }
    return pending;
  }

  close(): void {
    for (const home of this.homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  }
}

function builtinRun(fn: BuiltinFunction, list: ResourceList, tag: string | undefined): RunOutcome {
  const outcome = fn(list, tag);
  return { list: outcome.list, stderr: outcome.stderr ?? "", exitCode: outcome.ok ? 0 : 1 };
}

const STDOUT_LIMIT = 256 * 1024 * 1024;
const STDERR_TAIL = 4096;

/**
 * Runs a function process: the ResourceList on stdin, stdout collected, the stderr tail kept, killed
 * at the timeout. It runs in its own process group with a tagged environment, and whatever it
 * started and left running is killed when it ends (src/render/runner/contain.ts).
 */
function runProcess(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, stdin: string, timeoutMs: number): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const contained = spawnContained(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    const child = contained.child as import("node:child_process").ChildProcessWithoutNullStreams;
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = "";
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      signalContained(contained, "SIGKILL");
      reject(new Error(`timed out after ${timeoutMs / 1000}s`));
    }, timeoutMs);
    timer.unref();
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > STDOUT_LIMIT) {
        signalContained(contained, "SIGKILL");
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    child.on("error", (err) => {
      finishContained(contained);
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    });
    // Its output is complete when it exits: what it left running (holding stdout open or not) is killed.
    child.on("exit", () => signalContained(contained, "SIGKILL"));
    child.on("close", (code, signal) => {
      finishContained(contained);
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outBytes > STDOUT_LIMIT) return reject(new Error(`wrote more than ${STDOUT_LIMIT} bytes`));
      resolve({ stdout: Buffer.concat(out).toString("utf8"), stderr: stderr.trim(), exitCode: code ?? (signal ? 128 : 1) });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}

/** google/shlex as kpt splits `exec:`: whitespace, quotes and backslashes, no expansion. */
export function shlexSplit(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < text.length) cur += text[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < text.length) {
      cur += text[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else if (c === "#" && !cur && !has) {
      break;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}
