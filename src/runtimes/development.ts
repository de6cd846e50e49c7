import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import type { GrpcFunctionClient } from "./grpc.js";
import { loadGrpc } from "./load-grpc.js";
import { type FunctionRuntime, type RuntimeKind } from "./runtime.js";

/** A function someone already runs (crossplane render's Development runtime). */
export class DevelopmentRuntime implements FunctionRuntime {
  readonly kind: RuntimeKind = "Development";
  private client: Promise<GrpcFunctionClient> | undefined;

  constructor(readonly target: string) {}

  async run(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    this.client ??= loadGrpc().then((grpc) => new grpc.GrpcFunctionClient(this.target));
    try {
      return await (await this.client).runFunction(req, timeoutMs);
    } catch (err) {
      throw (await loadGrpc()).developmentFailure(err, this.target, timeoutMs);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    (await client)?.close();
  }
}
