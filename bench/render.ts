/**
 * Render benchmark, one run, printed side by side:
 *  1. XRs rendered per second through the built-in function-patch-and-transform, for a
 *     10-resource composition with patches, transforms and a patch set (target >= 2,000/s on one
 *     core; the render loop is single-threaded, so this is one core).
 *  2. XRs rendered per second through the built-in function-go-templating, for a template of 10
 *     resources (a range loop with toYaml, printf, default, quote, arithmetic; target >= 1,000/s
 *     on one core). The template is parsed once and reused, as the function caches it by text.
 *  3. The mean per-call overhead of the process runtime: the same request sent over gRPC on
 *     loopback to a function started with --insecure --address, after start, minus the time the
 *     function itself takes in-process (target < 2 ms per call).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { renderComposite } from "../src/render/crossplane/render.js";
import { runPatchAndTransform } from "../src/render/functions/patch-and-transform/function.js";
import { runGoTemplating } from "../src/render/functions/go-templating/function.js";
import { BuiltinRuntime } from "../src/render/runner/builtin.js";
import { ProcessRuntime } from "../src/runtimes/process.js";

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
          patchSets: [
            { name: "common", patches: [{ fromFieldPath: "metadata.labels", toFieldPath: "metadata.labels", policy: { toFieldPath: "MergeObjects" } }] },
          ],
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

const TEMPLATE = `{{- $xr := .observed.composite.resource }}
{{- range $i := until 10 }}
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  annotations:
    {{ setResourceNameAnnotation (printf "bucket-%d" $i) }}
  labels:
    {{- toYaml $xr.metadata.labels | nindent 4 }}
    example.org/id: {{ printf "%s-%s-%d" $xr.metadata.name $xr.spec.location $i | lower | quote }}
spec:
  forProvider:
    region: {{ if eq $xr.spec.location "EU" }}eu-north-1{{ else }}us-east-2{{ end }}
    sizeGb: {{ mul $xr.spec.size 10 }}
    tags:
      index: {{ $i | quote }}
      team: {{ default "none" $xr.metadata.labels.team | quote }}
{{- end }}
`;

const goTemplatingComposition = {
  ...composition,
  spec: {
    ...composition.spec,
    pipeline: [
      {
        step: "templates",
        functionRef: { name: "function-go-templating" },
        input: { apiVersion: "gotemplating.fn.crossplane.io/v1beta1", kind: "GoTemplate", source: "Inline", inline: { template: TEMPLATE } },
      },
    ],
  },
};

async function goTemplatingRendersPerSecond(): Promise<number> {
  const runtime = new BuiltinRuntime((req) => runGoTemplating(req));
  const once = (i: number) => renderComposite({ xr: xr(i), composition: goTemplatingComposition, runtime: () => runtime, timeoutMs: 60_000 });
  for (let i = 0; i < 300; i++) await once(i); // warm-up
  const n = 3000;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await once(i);
    if (!r.ok || r.composed.length !== 10) throw new Error("go-templating bench render failed");
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
const goRate = await goTemplatingRendersPerSecond();
const { overGrpc, inProcess } = await processOverheadMs();
const overhead = overGrpc - inProcess;
console.log("render benchmark (one run)");
console.log(`  built-in P&T, 10-resource composition: ${rate.toFixed(0)} XRs/s on one core (target >= 2000): ${rate >= 2000 ? "met" : "NOT met"}`);
console.log(`  built-in go-templating, 10-resource template: ${goRate.toFixed(0)} XRs/s on one core (target >= 1000): ${goRate >= 1000 ? "met" : "NOT met"}`);
console.log(`  process runtime: ${overGrpc.toFixed(3)} ms per call over loopback gRPC vs ${inProcess.toFixed(3)} ms for the same work in-process`);
console.log(`  process runtime per-call overhead: ${overhead.toFixed(3)} ms (target < 2 ms): ${overhead < 2 ? "met" : "NOT met"}`);
console.log(`  ratio gRPC call / in-process call: ${(overGrpc / inProcess).toFixed(1)}x`);
