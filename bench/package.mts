/**
 * Package runtime benchmark, one run, printed side by side: a function image assembled here and
 * served by a registry on 127.0.0.1 (the test registry), then
 *  1. the first call of the package function: pull (manifest, token, blobs), unpack, start the
 *     entrypoint, wait for it to serve, one RunFunction call;
 *  2. a warm call of the same running function;
 *  3. a second run's first call: everything from the cache (no registry request), start, call;
 *  4. a built-in call (function-auto-ready in-process), for scale.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { BuiltinRuntime, builtinByName } from "../src/render/runner/builtin.js";
import { PackageRuntime, packageSettings } from "../src/runtimes/package.js";
import { TestRegistry } from "../test/oci/registry-server.js";
import { pushGreetFunction } from "../test/oci/function-image.js";

const request = RunFunctionRequest.fromJSON({
  meta: { tag: "bench" },
  observed: {
    composite: { resource: { apiVersion: "example.org/v1", kind: "XGreeting", metadata: { name: "b" }, spec: { greeting: "hej" } }, connectionDetails: {} },
    resources: {},
  },
  desired: { composite: { resource: { apiVersion: "example.org/v1", kind: "XGreeting", metadata: { name: "b" } }, connectionDetails: {} }, resources: {} },
  context: {},
});

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await f();
  return [value, performance.now() - start];
}

const registry = new TestRegistry();
await registry.start();
await pushGreetFunction(registry, "crossplane-contrib/function-greet", "v1.0.0");
const reference = `${registry.host}/crossplane-contrib/function-greet:v1.0.0`;
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-pkg-"));
const settings = () => packageSettings({ cacheDir, offline: false, startTimeoutMs: 30_000 });

const first = new PackageRuntime("function-greet", reference, "IfNotPresent", settings());
const [, cold] = await timed(() => first.run(request, 30_000));
const warmRuns = 50;
const [, warmTotal] = await timed(async () => {
  for (let i = 0; i < warmRuns; i++) await first.run(request, 30_000);
});
await first.close();

const requestsBefore = registry.requests.length;
const second = new PackageRuntime("function-greet", reference, "IfNotPresent", settings());
const [, cached] = await timed(() => second.run(request, 30_000));
const cachedRequests = registry.requests.length - requestsBefore;
await second.close();

const builtin = new BuiltinRuntime(builtinByName("function-auto-ready")!);
const builtinRuns = 2000;
const [, builtinTotal] = await timed(async () => {
  for (let i = 0; i < builtinRuns; i++) await builtin.run(request, 30_000);
});
await registry.stop();

const warm = warmTotal / warmRuns;
console.log("package runtime benchmark (one run; registry on 127.0.0.1)");
console.log(`  first call (pull, unpack, start, call): ${cold.toFixed(0)} ms`);
console.log(`  second run's first call (cache, start, call): ${cached.toFixed(0)} ms, ${cachedRequests} registry requests`);
console.log(`  warm call over gRPC: ${warm.toFixed(3)} ms`);
console.log(`  built-in call in-process: ${(builtinTotal / builtinRuns).toFixed(3)} ms`);
console.log(
  `  ratios: first / warm ${(cold / warm).toFixed(0)}x, cached first / warm ${(cached / warm).toFixed(0)}x, warm / built-in ${(warm / (builtinTotal / builtinRuns)).toFixed(0)}x`,
);
