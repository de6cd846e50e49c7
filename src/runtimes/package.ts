import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { FunctionResponses } from "../cache/responses.js";
import { removeTree } from "../oci/unpack.js";
import { pullImage, PullError, type Platform, type PullPolicy, type PulledImage } from "../oci/image.js";
import { RegistryClient, type RegistryOptions } from "../oci/registry.js";
import { launchOf } from "./executable.js";
import { ProcessRuntime } from "./process.js";
import { closeStarted, FunctionFailure, FunctionNotRunnable, type FunctionRuntime, type RuntimeKind } from "./runtime.js";

/**
 * The package runtime: what Docker would do for a Function, without Docker. Its package (an OCI
 * image) is pulled from the registry into the cache, unpacked once per digest, and its entrypoint
 * runs as a process with `--insecure --address=127.0.0.1:<port>` (the image's Cmd is replaced, as
 * `crossplane render` replaces it), spoken to over RunFunction, stopped at the end of the run.
 * An image that cannot run here goes to `fallback` (Docker, where the run may use it), or says why.
 */

export interface PackageSettings {
  cacheDir: string;
  client: RegistryClient;
  offline?: boolean;
  platform?: Platform;
  /** Tags resolved in this run (shared by every package runtime of the run). */
  resolved: Map<string, string>;
  startTimeoutMs: number;
  onPull?: (reference: string) => void;
  /** What packages answered in earlier runs (none with --no-cache or COMPOSITION_CI_WORK_CACHE=0). */
  responses?: FunctionResponses;
}

export class PackageRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "package";
  private started: Promise<FunctionRuntime> | undefined;
  private pulled: Promise<PulledImage> | undefined;
  private home: string | undefined;

  constructor(
    readonly name: string,
    readonly image: string,
    private readonly pullPolicy: PullPolicy,
    private readonly settings: PackageSettings,
    private readonly fallback?: (why: string) => Promise<FunctionRuntime | undefined>,
    /** Set over the image's own (a project function's builder environment). */
    private readonly extraEnv: Record<string, string> = {},
    /**
     * What reaches the process besides the image and the request, when that is all its answer
     * follows from: then an answer is kept (see below). Undefined: none is, since a package may read
     * the network, the clock or what it fetches, which no key here sees.
     */
    private readonly identity?: string,
  ) {}

  /** Where the caller vouches for its inputs (`identity`), the same request to the same image digest is answered as an earlier run's process answered it, without starting one. */
  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    const responses = this.identity === undefined ? undefined : this.settings.responses;
    const key = responses?.key((await this.pull()).digest, this.identity!, req);
    const known = key === undefined ? undefined : responses!.get(key);
    if (known) return known;
    const runtime = await (this.started ??= this.start());
    const response = await runtime.run(req, timeoutMs);
    if (key !== undefined) responses!.set(key, response);
    return response;
  }

  private async start(): Promise<FunctionRuntime> {
    const image = await this.pull();
    const launch = launchOf(image.root, image.config);
    if ("cannot" in launch) {
      const why = `cannot run ${image.reference} here: ${launch.cannot}`;
      const fallback = await this.fallback?.(why);
      if (fallback) return fallback;
      throw new FunctionNotRunnable(why, "run where Docker is there with --allow-exec, or on a linux runner of the image's architecture");
    }
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), "cci-function-home-"));
    // Its working directory is its private HOME, not the (shared, read-only) unpacked image.
    return new ProcessRuntime(this.name, {
      command: launch.command,
      cwd: this.home,
      startTimeoutMs: this.settings.startTimeoutMs,
      env: this.environment(image),
    });
  }

  /** Pulls and unpacks the image into the cache without running it (`functions pull`). */
  async prefetch(): Promise<PulledImage> {
    return this.pull();
  }

  async prepare(): Promise<void> {
    await this.pull();
  }

  private pull(): Promise<PulledImage> {
    return (this.pulled ??= this.pullOnce());
  }

  private async pullOnce(): Promise<PulledImage> {
    try {
      return await pullImage(this.image, { ...this.settings, pullPolicy: this.pullPolicy });
    } catch (err) {
      if (!(err instanceof PullError)) throw err;
      if (err.kind === "offline")
        throw new FunctionNotRunnable(
          `is not in the package cache: ${err.message}`,
          "run `composition-ci functions pull` where the registry can be reached, and keep its cache (actions/cache)",
        );
      if (err.kind === "registry")
        throw new FunctionNotRunnable(
          `could not be pulled: ${err.message}`,
          "check the package reference and the registry's credentials (docker login), or run where the registry answers (`composition-ci functions pull` there fills the cache for --offline runs)",
        );
      throw new FunctionFailure(`function ${this.name}: ${err.message}`);
    }
  }

  /** The image's environment (and the extra one), with the host's PATH (the image's names container paths) and a private HOME. */
  private environment(image: PulledImage): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const entry of image.config.Env ?? []) {
      const eq = entry.indexOf("=");
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    Object.assign(env, this.extraEnv);
    env.PATH = process.env.PATH;
    env.HOME = this.home;
    env.TMPDIR = this.home;
    return env;
  }

  async close(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    await closeStarted(started);
    if (this.home) fs.rmSync(this.home, { recursive: true, force: true });
    this.home = undefined;
  }
}

export interface PackageSettingsOptions {
  /** The cache directory (its `oci/` holds the packages); null: a throw-away one for this run. */
  cacheDir: string | null;
  /** --offline; when not given, `COMPOSITION_CI_OFFLINE=1` in the environment means offline. */
  offline?: boolean;
  startTimeoutMs?: number;
  onPull?: (reference: string) => void;
  registry?: RegistryOptions;
}

/** The package settings of one run: one registry client, one map of resolved tags. */
export function packageSettings(options: PackageSettingsOptions): PackageSettings {
  const offline = options.offline ?? ["1", "true"].includes(process.env.COMPOSITION_CI_OFFLINE ?? "");
  return {
    cacheDir: options.cacheDir ?? throwAwayCache(),
    client: new RegistryClient(options.registry),
    offline,
    resolved: new Map(),
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    onPull: options.onPull,
    responses: options.cacheDir !== null && process.env.COMPOSITION_CI_WORK_CACHE !== "0" ? new FunctionResponses(options.cacheDir) : undefined,
  };
}

/** `--no-cache`: a cache for this process only, removed when it exits (it may hold whole images). */
const throwAway = new Set<string>();
function throwAwayCache(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-packages-"));
  if (throwAway.size === 0) process.once("exit", () => throwAway.forEach((d) => removeTree(d)));
  throwAway.add(dir);
  return dir;
}
