import * as grpc from "@grpc/grpc-js";
import { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { FunctionFailure } from "./runtime.js";

/**
 * Crossplane's RunFunction over gRPC: `apiextensions.fn.proto.v1.FunctionRunnerService`, falling
 * back to `v1beta1` (same messages) when the server answers UNIMPLEMENTED. Messages are encoded
 * with the generated types of @crossplane-org/function-sdk-typescript.
 */
export const RUN_FUNCTION_PATHS = [
  "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
  "/apiextensions.fn.proto.v1beta1.FunctionRunnerService/RunFunction",
];

const serialize = (req: RunFunctionRequest) => Buffer.from(RunFunctionRequest.encode(req).finish());
const deserialize = (buf: Buffer) => RunFunctionResponse.decode(buf);

export class GrpcFunctionClient {
  private readonly client: grpc.Client;
  private pathIndex = 0;

  constructor(readonly target: string) {
    this.client = new grpc.Client(target, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
      "grpc.max_send_message_length": 64 * 1024 * 1024,
    });
  }

  /** Resolves when the channel is connected, rejects at the deadline. */
  waitForReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve()));
    });
  }

  async runFunction(req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    for (;;) {
      try {
        return await this.call(RUN_FUNCTION_PATHS[this.pathIndex]!, req, timeoutMs);
      } catch (err) {
        const unimplemented = (err as grpc.ServiceError).code === grpc.status.UNIMPLEMENTED;
        if (!unimplemented || this.pathIndex === RUN_FUNCTION_PATHS.length - 1) throw err;
        this.pathIndex++;
      }
    }
  }

  private call(path: string, req: RunFunctionRequest, timeoutMs: number): Promise<RunFunctionResponse> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(path, serialize, deserialize, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, response) =>
        err || !response ? reject(err ?? new Error("empty response")) : resolve(response),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

/** Describes a gRPC failure the way a user can act on it. */
export function grpcFailure(err: unknown, target: string, timeoutMs: number): FunctionFailure {
  const e = err as grpc.ServiceError;
  if (e?.code === grpc.status.DEADLINE_EXCEEDED) {
    return new FunctionFailure(`no response from ${target} within ${timeoutMs / 1000}s (timeout)`);
  }
  if (e?.code === grpc.status.UNAVAILABLE) return new FunctionFailure(`cannot reach ${target}: ${e.details || e.message}`);
  if (e?.code === grpc.status.INTERNAL && /deserializ|parse|invalid wire/i.test(e.details ?? "")) {
    return new FunctionFailure(`malformed response from ${target}: ${e.details}`);
  }
  return new FunctionFailure(`RunFunction on ${target} failed: ${e?.details || e?.message || String(err)}`);
}

/**
 * A Development target is an address someone named: the finding says the same thing whatever
 * answered there (a refused port, another protocol, a TLS server), so that a run cannot be used
 * to probe what listens where (the function's own log says why it failed).
 */
export function developmentFailure(err: unknown, target: string, timeoutMs: number): FunctionFailure {
  const e = err as grpc.ServiceError;
  if (e?.code === grpc.status.DEADLINE_EXCEEDED) return new FunctionFailure(`no response from ${target} within ${timeoutMs / 1000}s (timeout)`);
  return new FunctionFailure(`could not get a RunFunction answer from ${target}: is the function running there (crossplane render's Development runtime)?`);
}
