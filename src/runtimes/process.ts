import net from "node:net";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import type { GrpcFunctionClient } from "./grpc.js";
import { loadGrpc } from "./load-grpc.js";
import { FunctionFailure, type FunctionRuntime, type RuntimeKind } from "./runtime.js";
import { endContained, spawnContained, type Contained } from "./contain.js";

const STDERR_TAIL_BYTES = 4096;

export interface ProcessOptions {
  command: string[];
  cwd: string;
  /** How long the process may take to accept connections. */
  startTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** A free TCP port on 127.0.0.1 (the port is released just before the function binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A function started from a configured command with the standard function flags
 * (`--insecure --address=127.0.0.1:<port>`), started on first use, reused for every call and
 * stopped by close(). Its stderr tail is kept for failure messages.
 */
export class ProcessRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "process";
  private child: Contained | undefined;
  private client: GrpcFunctionClient | undefined;
  private starting: Promise<GrpcFunctionClient> | undefined;
  private stderr = "";
  private exit: string | undefined;

  constructor(
    readonly name: string,
    private readonly options: ProcessOptions,
  ) {}

  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    const client = await (this.starting ??= this.start());
    try {
      return await client.runFunction(req, timeoutMs);
    } catch (err) {
      const failure = (await loadGrpc()).grpcFailure(err, `function ${this.name}`, timeoutMs);
      throw new FunctionFailure(this.exit ? `${failure.message} (process ${this.exit})` : failure.message, this.stderrTail());
    }
  }

  private async start(): Promise<GrpcFunctionClient> {
    const port = await freePort();
    const [cmd, ...args] = this.options.command;
    if (!cmd) throw new FunctionFailure(`function ${this.name}: empty command`);
    // Its own process group, its environment tagged: stopping it stops whatever it started too (a
    // shell, an interpreter, a daemon it detached).
    const contained = spawnContained(cmd, [...args, "--insecure", `--address=127.0.0.1:${port}`], {
      cwd: this.options.cwd,
      env: this.options.env ?? process.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const child = contained.child;
    this.child = contained;
    child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    const exited = new Promise<never>((_, reject) => {
      child.once("error", (err) => {
        this.exit = `could not start: ${err.message}`;
        reject(new FunctionFailure(`function ${this.name} ${this.exit}`, this.stderrTail()));
      });
      child.once("exit", (code, signal) => {
        this.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
        reject(new FunctionFailure(`function ${this.name} ${this.exit} before it was ready`, this.stderrTail()));
      });
    });
    exited.catch(() => {});
    const client = new (await loadGrpc()).GrpcFunctionClient(`127.0.0.1:${port}`);
    this.client = client;
    try {
      await Promise.race([client.waitForReady(this.options.startTimeoutMs), exited]);
    } catch (err) {
      if (err instanceof FunctionFailure) throw err;
      throw new FunctionFailure(`function ${this.name} did not accept connections within ${this.options.startTimeoutMs / 1000}s`, this.stderrTail());
    }
    return client;
  }

  private stderrTail(): string | undefined {
    return this.stderr.trim() || undefined;
  }

  async close(): Promise<void> {
    this.client?.close();
    const contained = this.child;
    this.child = undefined;
    // Even when it has exited: what it started may still run.
    if (contained) await endContained(contained);
  }
}
