import { execFile } from "node:child_process";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import type { GrpcFunctionClient } from "./grpc.js";
import { loadGrpc } from "./load-grpc.js";
import { freePort } from "./process.js";
import { FunctionFailure, FunctionNotRunnable, type FunctionRuntime, type RuntimeKind } from "./runtime.js";

/**
 * The Docker runtime, as `crossplane render` runs it: the function's image (its package, or the
 * `render.crossplane.io/runtime-docker-image` annotation) started with `--insecure`, its port 9443
 * published on a free 127.0.0.1 port; pulled per `runtime-docker-pull-policy` (IfNotPresent by
 * default); after the run the container is removed, stopped or left running per
 * `runtime-docker-cleanup` (Remove by default). Driven through the `docker` CLI, which honours
 * DOCKER_HOST and the other standard variables.
 */

export const DOCKER_IMAGE_ANNOTATION = "render.crossplane.io/runtime-docker-image";
export const DOCKER_PULL_POLICY_ANNOTATION = "render.crossplane.io/runtime-docker-pull-policy";
export const DOCKER_CLEANUP_ANNOTATION = "render.crossplane.io/runtime-docker-cleanup";

const PULL_POLICIES = ["Always", "Never", "IfNotPresent"] as const;
const CLEANUPS = ["Remove", "Stop", "Orphan"] as const;
type PullPolicy = (typeof PULL_POLICIES)[number];
type Cleanup = (typeof CLEANUPS)[number];

export interface DockerSettings {
  image: string;
  pullPolicy: PullPolicy;
  cleanup: Cleanup;
}

/** The Docker settings of a Function from its annotations, or why they are invalid. */
export function dockerSettings(pkg: string, annotations: Record<string, string>): DockerSettings | { error: string } {
  const pull = annotations[DOCKER_PULL_POLICY_ANNOTATION] || "IfNotPresent";
  const cleanup = annotations[DOCKER_CLEANUP_ANNOTATION] || "Remove";
  if (!PULL_POLICIES.includes(pull as PullPolicy))
    return { error: `unsupported "${DOCKER_PULL_POLICY_ANNOTATION}" annotation value "${pull}" (unknown pull policy)` };
  if (!CLEANUPS.includes(cleanup as Cleanup))
    return { error: `unsupported "${DOCKER_CLEANUP_ANNOTATION}" annotation value "${cleanup}" (unknown cleanup policy)` };
  const image = annotations[DOCKER_IMAGE_ANNOTATION] || pkg;
  if (!image) return { error: "no image: the Function has no spec.package and no runtime-docker-image annotation" };
  return { image, pullPolicy: pull as PullPolicy, cleanup: cleanup as Cleanup };
}

function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("docker", args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout.trim());
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(new Error(missing ? "the docker CLI is not installed" : (stderr || err.message).trim()));
    });
  });
}

/** Whether a Docker engine answers (the CLI is there and reaches its daemon). */
export async function dockerAnswers(): Promise<boolean> {
  try {
    await docker(["version", "--format", "{{.Server.Version}}"], 15_000);
    return true;
  } catch {
    return false;
  }
}

export class DockerRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "Docker";
  private starting: Promise<GrpcFunctionClient> | undefined;
  private client: GrpcFunctionClient | undefined;
  private container: string | undefined;

  constructor(
    readonly name: string,
    private readonly settings: DockerSettings,
    private readonly startTimeoutMs: number,
    private readonly hint: string,
  ) {}

  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    const client = await (this.starting ??= this.start());
    try {
      return await client.runFunction(req, timeoutMs);
    } catch (err) {
      throw new FunctionFailure((await loadGrpc()).grpcFailure(err, `function ${this.name}`, timeoutMs).message, await this.logs());
    }
  }

  private async start(): Promise<GrpcFunctionClient> {
    const { image, pullPolicy } = this.settings;
    try {
      await docker(["version", "--format", "{{.Server.Version}}"], 15_000);
    } catch (err) {
      throw new FunctionNotRunnable(
        `needs Docker to run ${image}, and no Docker engine answers (${(err as Error).message.split("\n")[0]})`,
        `run where a Docker engine answers, or ${this.hint}`,
      );
    }
    await this.pull(image, pullPolicy);
    const port = await freePort();
    try {
      this.container = await docker(["create", "--publish", `127.0.0.1:${port}:9443/tcp`, image, "--insecure"]);
      await docker(["start", this.container]);
    } catch (err) {
      throw new FunctionFailure(`function ${this.name}: cannot start a container of ${image}: ${(err as Error).message}`);
    }
    const client = new (await loadGrpc()).GrpcFunctionClient(`127.0.0.1:${port}`);
    this.client = client;
    try {
      await client.waitForReady(this.startTimeoutMs);
    } catch {
      throw new FunctionFailure(`function ${this.name} (${image}) did not accept connections within ${this.startTimeoutMs / 1000}s`, await this.logs());
    }
    return client;
  }

  private async pull(image: string, policy: PullPolicy): Promise<void> {
    if (policy === "Never") return;
    if (
      policy === "IfNotPresent" &&
      (await docker(["image", "inspect", "--format", "{{.Id}}", image]).then(
        () => true,
        () => false,
      ))
    )
      return;
    try {
      await docker(["pull", image], 600_000);
    } catch (err) {
      throw new FunctionFailure(`function ${this.name}: cannot pull Docker image ${image}: ${(err as Error).message}`);
    }
  }

  private async logs(): Promise<string | undefined> {
    if (!this.container) return undefined;
    return docker(["logs", "--tail", "50", this.container], 10_000).then(
      (text) => text || undefined,
      () => undefined,
    );
  }

  async close(): Promise<void> {
    this.client?.close();
    const id = this.container;
    this.container = undefined;
    if (!id || this.settings.cleanup === "Orphan") return;
    await docker(["stop", id], 60_000).catch(() => {});
    if (this.settings.cleanup === "Remove") await docker(["rm", id], 60_000).catch(() => {});
  }
}
