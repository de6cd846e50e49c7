import { parseArgs } from "node:util";
import { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { responseToJson } from "../render/functions/protojson.js";
import { builtinByName, builtinNames } from "../render/runner/builtin.js";
import { serveBuiltin } from "../render/runner/serve.js";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";

export const FUNCTION_HELP = `Usage: composition-ci function run <name>
       composition-ci function serve <name> [--address HOST:PORT] [--insecure]

run     reads a RunFunctionRequest (protobuf JSON mapping) on stdin and writes the
        RunFunctionResponse as JSON on stdout.
serve   serves the built-in function over gRPC (default address 0.0.0.0:9443), for use as a
        Development-mode function by crossplane render. Only --insecure serving is supported.

Built-in functions: ${builtinNames().join(", ")}
`;

export interface FunctionIO extends CommandIO {
  readStdin: () => Promise<string> /** Resolves when the server should stop (SIGINT/SIGTERM in the CLI). */;
  untilStopped?: () => Promise<void>;
}

export async function functionCommand(argv: string[], io: FunctionIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { address: { type: "string" }, insecure: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [action, name] = positionals;
  if (values.help || !action) {
    io.stdout(FUNCTION_HELP);
    return 0;
  }
  const fn = name ? builtinByName(name) : undefined;
  if (!fn) throw new UsageError(`function ${action}: unknown built-in "${name ?? ""}" (built-ins: ${builtinNames().join(", ")})`);
  if (action === "run") {
    let req: RunFunctionRequest;
    try {
      req = RunFunctionRequest.fromJSON(JSON.parse(await io.readStdin()));
    } catch (err) {
      throw new UsageError(`stdin is not a RunFunctionRequest in JSON: ${(err as Error).message}`);
    }
    io.stdout(`${JSON.stringify(responseToJson(fn(req)), null, 2)}\n`);
    return 0;
  }
  if (action === "serve") {
    // As a function SDK's binary: serving without TLS is asked for, never a default.
    if (values.insecure !== true)
      throw new UsageError("function serve needs --insecure: composition-ci serves without TLS only (crossplane render's Development functions are called so)");
    const address = values.address ?? "0.0.0.0:9443";
    const { server, port } = await serveBuiltin(fn, address);
    io.stderr(`serving ${name} on ${address.replace(/:\d+$/, `:${port}`)} (insecure)\n`);
    await (io.untilStopped ?? waitForSignal)();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    return 0;
  }
  throw new UsageError(`unknown function action "${action}"; use run or serve`);
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
}

export async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
