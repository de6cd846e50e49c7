/**
 * Render benchmark, one run, printed side by side:
 *  1. XRs rendered per second through the built-in function-patch-and-transform, for a
 *     10-resource composition with patches, transforms and a patch set (target >= 2,000/s on one
 *     core; the render loop is single-threaded, so this is one core).
 *  2. The mean per-call overhead of the process runtime: the same request sent over gRPC on
 *     loopback to a function started with --insecure --address, after start, minus the time the
 *     function itself takes in-process (target < 2 ms per call).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { renderComposite } from "../src/render/crossplane/render.js";
import { runPatchAndTransform } from "../src/render/functions/patch-and-transform/function.js";
import { BuiltinRuntime } from "../src/render/runner/builtin.js";
import { ProcessRuntime } from "../src/render/runner/process.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const resources = Array.from({ length: 10 }, (_, i) => ({
  name: `bucket-${i}`,
  base: { apiVersion: "s3.aws.upbound.io/v1beta1", kind: "Bucket", spec: { forProvider: { tags: { index: String(i) } } } },
  patches: [
    { type: "PatchSet", patchSetName: "common" },
    { fromFieldPath: "spec.location", toFieldPath: "spec.forProvider.region", transforms: [{ type: "map", map: { EU: "eu-north-1", US: "us-east-2" } }] },
    { fromFieldPath: "spec.size", toFieldPath: "spec.forProvider.sizeGb", transforms: [{ type: "math", math: { type: "Multiply", multiply: 10 } }] },
    {
      type: "CombineFromComposite",
      combine: { variables: [{ fromFieldPath: "metadata.name" }, { fromFieldPath: "spec.location" }], strategy: "string", string: { fmt: `%s-%s-${i}` } },
      toFieldPath: "metadata.labels[example.org/id]",
      transforms: [{ type: "string", string: { type: "Convert", convert: "ToLower" } }],
    },
  ],
}));
const composition = {
  apiVersion: "apiextensions.crossplane.io/v1",
  kind: "Composition",
  metadata: { name: "bench" },
  spec: {
    compositeTypeRef: { apiVersion: "example.org/v1", kind: "XBucket" },
    mode: "Pipeline",
    pipeline: [
      {
        step: "pt",
        functionRef: { name: "function-patch-and-transform" },
        input: {
          apiVersion: "pt.fn.crossplane.io/v1beta1",
          kind: "Resources",
          patchSets: [{ name: "common", patches: [{ fromFieldPath: "metadata.labels", toFieldPath: "metadata.labels", policy: { toFieldPath: "MergeObjects" } }] }],
          resources,
        },
      },
    ],
  },
};
const xr = (i: number) => ({
  apiVersion: "example.org/v1",
  kind: "XBucket",
  metadata: { name: `xr-${i}`, namespace: "team-a", labels: { team: "a" } },
  spec: { location: i % 2 ? "EU" : "US", size: i % 7 },
});

async function rendersPerSecond(): Promise<number> {
  const runtime = new BuiltinRuntime(runPatchAndTransform);
  const once = (i: number) => renderComposite({ xr: xr(i), composition, runtime: () => runtime, timeoutMs: 60_000 });
  for (let i = 0; i < 300; i++) await once(i); // warm-up
  const n = 3000;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await once(i);
    if (!r.ok || r.composed.length !== 10) throw new Error("bench render failed");
  }
  return n / ((performance.now() - start) / 1000);
}

function request(): RunFunctionRequest {
  return {
    meta: { tag: "", capabilities: [] },
    observed: { composite: { resource: xr(1), connectionDetails: {}, ready: 0 }, resources: {} },
    desired: { composite: undefined, resources: {} },
    input: composition.spec.pipeline[0]!.input,
    context: undefined,
    extraResources: {},
    credentials: {},
    requiredResources: {},
    requiredSchemas: {},
  };
}

async function meanMs(fn: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < 50; i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - start) / n;
}

async function processOverheadMs(): Promise<{ overGrpc: number; inProcess: number }> {
  const runtime = new ProcessRuntime("label", {
    command: [process.execPath, path.join(here, "../test/fixtures/functions/label-function.mjs")],
    cwd: here,
    startTimeoutMs: 30_000,
  });
  try {
    const req = request();
    const overGrpc = await meanMs(() => runtime.run(req, 10_000), 1000);
    const fixture = (await import("@crossplane-org/function-sdk-typescript")) as { to: (r: RunFunctionRequest) => unknown };
    const inProcess = await meanMs(async () => fixture.to(structuredClone(req)), 1000);
    return { overGrpc, inProcess };
  } finally {
    await runtime.close();
  }
}

const rate = await rendersPerSecond();
const { overGrpc, inProcess } = await processOverheadMs();
const overhead = overGrpc - inProcess;
console.log("render benchmark (one run)");
console.log(`  built-in P&T, 10-resource composition: ${rate.toFixed(0)} XRs/s on one core (target >= 2000): ${rate >= 2000 ? "met" : "NOT met"}`);
console.log(`  process runtime: ${overGrpc.toFixed(3)} ms per call over loopback gRPC vs ${inProcess.toFixed(3)} ms for the same work in-process`);
console.log(`  process runtime per-call overhead: ${overhead.toFixed(3)} ms (target < 2 ms): ${overhead < 2 ? "met" : "NOT met"}`);
console.log(`  ratio gRPC call / in-process call: ${(overGrpc / inProcess).toFixed(1)}x`);
