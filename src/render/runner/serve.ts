import * as grpc from "@grpc/grpc-js";
import { FunctionRunnerServiceService, type RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import type { BuiltinFunction } from "./builtin.js";

/**
 * Serves a built-in function over gRPC (v1 and v1beta1 service names), so `crossplane render`
 * can use it as a Development-mode function.
 */
export async function serveBuiltin(fn: BuiltinFunction, address: string): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  const v1 = FunctionRunnerServiceService.runFunction;
  const handler: grpc.handleUnaryCall<RunFunctionRequest, unknown> = (call, callback) => {
    try {
      callback(null, fn(call.request));
    } catch (err) {
      callback({ code: grpc.status.INTERNAL, details: (err as Error).message });
    }
  };
  for (const servicePath of [v1.path, v1.path.replace(".v1.", ".v1beta1.")]) {
    server.addService({ runFunction: { ...v1, path: servicePath } } as unknown as grpc.ServiceDefinition, { runFunction: handler });
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { server, port };
}
