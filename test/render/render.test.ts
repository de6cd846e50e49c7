import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { notRenderedFindings } from "../../src/render/not-rendered.js";
import * as grpc from "@grpc/grpc-js";
import { FunctionRunnerServiceService, type RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { renderComposite } from "../../src/render/crossplane/render.js";
import { renderRepo, type RenderedXr } from "../../src/render/crossplane/repo.js";
import { runAutoReady } from "../../src/render/functions/auto-ready.js";
import { runPatchAndTransform } from "../../src/render/functions/patch-and-transform/function.js";
import type { JsonObject } from "../../src/core/json.js";
import { BuiltinRuntime, builtinNames } from "../../src/render/runner/builtin.js";
import { packagePath } from "../../src/manifest/package-ref.js";
import { GrpcFunctionClient } from "../../src/runtimes/grpc.js";
import { serveBuiltin } from "../../src/render/runner/serve.js";
import { loadPath } from "../../src/manifest/load.js";
import type { Manifest } from "../../src/manifest/manifest.js";
import { REPO, runCli, SHARED, tempRepo, describeShared } from "../helpers.js";

const FIXTURES = path.join(REPO, "test/fixtures/functions");

function manifestsIn(dir: string): Manifest[] {
  const out: Manifest[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (/\.ya?ml$/.test(e.name)) out.push(...loadPath(abs, path.relative(dir, abs)).manifests);
    }
  };
  walk(dir);
  return out;
}

const cli = (argv: string[], cwd = REPO) => runCli(argv, cwd);

const composedOf = (s: RenderedXr, resourceName: string) =>
  s.rendered!.composed.find((o) => (o.metadata as any).annotations["crossplane.io/composition-resource-name"] === resourceName) as any;

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: { name: xbuckets.example.org }
spec:
  group: example.org
  names: { kind: XBucket, plural: xbuckets }
  scope: Namespaced
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              location: { type: string, default: EU }
              size: { type: integer }
`;

const ptStep = (resources: string) => `  - step: pt
    functionRef: { name: function-patch-and-transform }
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
${resources}`;

const BUCKET_RESOURCE = `      - name: bucket
        base: { apiVersion: s3.aws.upbound.io/v1beta1, kind: Bucket, spec: { forProvider: {} } }
        patches:
        - fromFieldPath: spec.location
          toFieldPath: spec.forProvider.region
          transforms: [{ type: map, map: { EU: eu-north-1, US: us-east-2 } }]
        - type: CombineFromComposite
          combine:
            variables: [{ fromFieldPath: metadata.name }, { fromFieldPath: spec.location }]
            strategy: string
            string: { fmt: "%s-%s" }
          toFieldPath: metadata.labels[example.org/id]
`;

const composition = (steps: string, name = "buckets") => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: { name: ${name} }
spec:
  compositeTypeRef: { apiVersion: example.org/v1, kind: XBucket }
  mode: Pipeline
  pipeline:
${steps}`;

const FUNCTIONS = `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: { name: function-patch-and-transform }
spec: { package: xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.9.0 }
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: { name: function-auto-ready }
spec: { package: xpkg.upbound.io/crossplane-contrib/function-auto-ready:v0.5.0 }
`;

const xr = (name: string, extra = "") => `apiVersion: example.org/v1
kind: XBucket
metadata: { name: ${name}, namespace: team-a }
spec: { size: 3${extra} }
`;

describe("package references", () => {
  it("ignores registry, tag and digest", () => {
    expect(packagePath("xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.9.0")).toBe("crossplane-contrib/function-patch-and-transform");
    expect(packagePath("localhost:5000/crossplane-contrib/function-auto-ready@sha256:abcd")).toBe("crossplane-contrib/function-auto-ready");
    expect(packagePath("crossplane-contrib/function-auto-ready")).toBe("crossplane-contrib/function-auto-ready");
  });
});

describe("render with built-in functions", () => {
  it("renders a P&T + auto-ready pipeline with XRD defaults, names, labels, owner and readiness", async () => {
    const dir = tempRepo({
      "xrd.yaml": XRD,
      "composition.yaml": composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`),
      "functions.yaml": FUNCTIONS,
      "xr.yaml": xr("photos"),
    });
    const [s] = await renderRepo(manifestsIn(dir), { functions: {}, root: dir, allowExec: false, timeoutMs: 5000 });
    expect(s!.findings).toEqual([]);
    const bucket = composedOf(s!, "bucket");
    expect(bucket.spec.forProvider.region).toBe("eu-north-1"); // from the XRD default location: EU
    expect(bucket.metadata.labels).toEqual({ "crossplane.io/composite": "photos", "example.org/id": "photos-EU" });
    expect(bucket.metadata.generateName).toBe("photos-");
    expect(bucket.metadata.name).toMatch(/^photos-[0-9a-f]{12}$/); // the reconciler's ChildName (render-engine.test.ts)
    expect(bucket.metadata.namespace).toBe("team-a");
    expect(bucket.metadata.ownerReferences).toEqual([
      {
        apiVersion: "example.org/v1",
        blockOwnerDeletion: true,
        controller: true,
        kind: "XBucket",
        name: "photos",
        uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      },
    ]);
    const conditions = (s!.rendered!.xr!.status as any).conditions;
    expect(conditions.map((c: any) => c.type)).toEqual(["Responsive", "Synced", "Ready"]);
    expect(conditions[2]).toMatchObject({ type: "Ready", status: "False", reason: "Creating", message: "Unready resources: bucket" });
  });

  it("takes names and readiness from observed resources", async () => {
    const observed = {
      apiVersion: "s3.aws.upbound.io/v1beta1",
      kind: "Bucket",
      metadata: { name: "photos-x7k2p", namespace: "team-a", annotations: { "crossplane.io/composition-resource-name": "bucket" } },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    };
    const comp = YAML.parse(composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`));
    const rendered = await renderComposite({
      xr: YAML.parse(xr("photos", ", location: US")),
      composition: comp,
      runtime: (n) => new BuiltinRuntime(n === "function-auto-ready" ? runAutoReady : runPatchAndTransform),
      observedResources: [observed],
      timeoutMs: 1000,
      includeFunctionResults: true,
    });
    expect(rendered.ok).toBe(true);
    const bucket = rendered.composed[0] as any;
    expect(bucket.metadata.name).toBe("photos-x7k2p");
    expect(bucket.spec.forProvider.region).toBe("us-east-2");
    expect((rendered.xr!.status as any).conditions.find((c: any) => c.type === "Ready")).toMatchObject({ status: "True", reason: "Available" });
  });

  it("refuses a Composition for another type, and converts mode: Resources with a warning", async () => {
    const runtime = () => new BuiltinRuntime(runPatchAndTransform);
    const other = YAML.parse(composition(ptStep(BUCKET_RESOURCE)).replace("kind: XBucket", "kind: XQueue"));
    const mismatch = await renderComposite({ xr: YAML.parse(xr("a", ", location: EU")), composition: other, runtime, timeoutMs: 1000 });
    expect(mismatch.ok).toBe(false);
    expect(mismatch.problems[0]!.rule).toBe("render/composition-mismatch");

    const legacy = {
      apiVersion: "apiextensions.crossplane.io/v1",
      kind: "Composition",
      metadata: { name: "legacy" },
      spec: {
        compositeTypeRef: { apiVersion: "example.org/v1", kind: "XBucket" },
        resources: [
          {
            name: "bucket",
            base: { apiVersion: "s3.aws.upbound.io/v1beta1", kind: "Bucket" },
            patches: [{ fromFieldPath: "spec.location", toFieldPath: "spec.forProvider.region" }],
          },
        ],
      },
    };
    const converted = await renderComposite({ xr: YAML.parse(xr("a", ", location: EU")), composition: legacy, runtime, timeoutMs: 1000 });
    expect(converted.ok).toBe(true);
    expect(converted.problems.map((p) => p.rule)).toContain("render/legacy-mode");
    expect((converted.composed[0] as any).spec.forProvider.region).toBe("EU");
  });

  it("reports a fatal function result with the step, and a patch error as P&T words it", async () => {
    const bad = `      - name: bucket
        base: { apiVersion: s3.aws.upbound.io/v1beta1, kind: Bucket }
        patches:
        - fromFieldPath: spec.location
          toFieldPath: spec.forProvider.region
          transforms: [{ type: math, math: { type: Multiply, multiply: 2 } }]
`;
    const rendered = await renderComposite({
      xr: YAML.parse(xr("a", ", location: EU")),
      composition: YAML.parse(composition(ptStep(bad))),
      runtime: () => new BuiltinRuntime(runPatchAndTransform),
      timeoutMs: 1000,
    });
    expect(rendered.ok).toBe(false);
    expect(rendered.problems[0]).toMatchObject({ rule: "render/function-fatal", step: "pt" });
    expect(rendered.problems[0]!.message).toBe(
      'pipeline step "pt" returned a fatal result: cannot render composed resource "bucket" "FromCompositeFieldPath" patch at index 0: transform at index 0 returned error: math transform could not resolve: input is required to be a number for math transformer, got string',
    );
  });

  it("prints the crossplane render stream from the CLI, with results", async () => {
    const dir = tempRepo({
      "composition.yaml": composition(ptStep(BUCKET_RESOURCE)),
      "functions.yaml": FUNCTIONS,
      "xr.yaml": xr("photos", ", location: US"),
    });
    const { code, stdout } = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "-r"], dir);
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(["XBucket", "Bucket", "Result", "Result"]);
    expect(docs[0].metadata).toEqual({ name: "photos", namespace: "team-a" });
    expect(docs[1].spec.forProvider.region).toBe("us-east-2");
    // -r prints the reconciler's events (v2.3+): the composition it selected, the resource not yet ready.
    expect(docs.slice(2).map((d) => `${d.severity} ${d.reason}: ${d.message}`)).toEqual([
      "Normal SelectComposition: Successfully selected composition: buckets",
      'Normal ComposeResources: Composed resource "bucket" is not yet ready',
    ]);
  });
});

describeShared("render the shared corpus examples", () => {
  const corpus = path.join(SHARED, "corpus");

  it("patch-and-transform-examples: the bucket's region is patched through the map", async () => {
    const dir = path.join(corpus, "patch-and-transform-examples");
    const { code, stdout } = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(code).toBe(0);
    const [xrDoc, bucket] = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
    expect(xrDoc.metadata.name).toBe("example-xr");
    expect(bucket).toMatchObject({
      apiVersion: "s3.aws.upbound.io/v1beta1",
      kind: "Bucket",
      metadata: {
        annotations: { "crossplane.io/composition-resource-name": "bucket" },
        generateName: "example-xr-",
        labels: { "crossplane.io/composite": "example-xr" },
      },
      spec: { forProvider: { region: "us-east-2" } },
    });
  });

  it("multistep (P&T, then function-go-templating): both built in, rendered with no exec", async () => {
    const dir = path.join(corpus, "patch-and-transform-examples/multistep");
    const { code, stdout, stderr } = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(YAML.parseAllDocuments(stdout).map((d) => d.toJS().kind)).toEqual(["XR", "Bucket", "BucketACL"]);
  });

  it("auto-ready examples render their go-templating steps with the built-in; a Development function that is a built-in renders built in, never connected to unasked", async () => {
    const basic = await cli(["render", "xr.yaml", "composition-k8s.yaml", "functions.yaml"], path.join(corpus, "auto-ready-examples/basic"));
    expect(basic.stderr).toBe("");
    expect(basic.code).toBe(0);
    // This example develops function-auto-ready itself: its Function says runtime Development,
    // with the default target (localhost:9443), where nothing listens here.
    const dev = await cli(
      ["render", "xr.yaml", "composition.yaml", "functions.yaml", "-e", "extra-resources.yaml", "-o", "observed.yaml"],
      path.join(corpus, "auto-ready-examples/cel-healthcheck"),
    );
    expect(dev.stderr).not.toContain("render/not-rendered");
    expect(dev.code).toBe(0);
    expect(YAML.parseAllDocuments(dev.stdout).length).toBeGreaterThan(1);
  });
});

describe("function runtimes", () => {
  let devServer: grpc.Server;
  let devPort = 0;
  let beta: grpc.Server;
  let betaPort = 0;

  beforeAll(async () => {
    ({ server: devServer, port: devPort } = await serveBuiltin(runAutoReady, "127.0.0.1:0"));
    beta = new grpc.Server();
    const v1 = FunctionRunnerServiceService.runFunction;
    beta.addService({ runFunction: { ...v1, path: v1.path.replace(".v1.", ".v1beta1.") } } as any, {
      runFunction: (call: grpc.ServerUnaryCall<RunFunctionRequest, unknown>, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, { ...runAutoReady(call.request), results: [{ severity: 3, message: "served by v1beta1" }] }),
    });
    betaPort = await new Promise((resolve, reject) =>
      beta.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  });

  afterAll(() => {
    devServer.forceShutdown();
    beta.forceShutdown();
  });

  it("falls back to v1beta1 when the server does not implement v1", async () => {
    const client = new GrpcFunctionClient(`127.0.0.1:${betaPort}`);
    const rsp = await client.runFunction(
      {
        meta: { tag: "", capabilities: [] },
        observed: undefined,
        desired: undefined,
        extraResources: {},
        credentials: {},
        requiredResources: {},
        requiredSchemas: {},
      },
      2000,
    );
    client.close();
    expect(rsp.results[0]!.message).toBe("served by v1beta1");
  });

  const config = (functions: string) => `functions:\n${functions}`;
  const labelFn = `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: { name: add-label }
spec: { package: example.org/add-label:v1.0.0 }
`;

  function repoWith(extraFunctions: string, steps: string, configText: string, xrs = xr("one")) {
    return tempRepo({
      "xrd.yaml": XRD,
      "composition.yaml": composition(steps),
      "functions.yaml": FUNCTIONS + "---\n" + extraFunctions,
      "xrs.yaml": xrs,
      ".composition-ci.yaml": configText,
    });
  }

  const labelStep = "  - step: label\n    functionRef: { name: add-label }\n";

  it("runs an SDK function as a process, in one pipeline with the built-in P&T", async () => {
    const dir = repoWith(
      labelFn,
      ptStep(BUCKET_RESOURCE) + labelStep,
      config(`  add-label: { command: [node, ${path.join(FIXTURES, "label-function.mjs")}] }\n`),
      xr("one") + "---\n" + xr("two"),
    );
    const { code, stdout, stderr } = await cli(["render", "--all", ".", "--allow-exec"], dir);
    expect(stderr).toContain("rendered 2 of 2 sources");
    expect(code).toBe(0);
    const buckets = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .filter((d) => d.kind === "Bucket");
    expect(buckets).toHaveLength(2);
    for (const b of buckets) expect(b.metadata.labels).toMatchObject({ "rendered-by": "sdk-function", "example.org/id": expect.stringMatching(/-EU$/) });
  });

  it("refuses repository code without --allow-exec, with a finding that says so", async () => {
    const dir = repoWith(
      labelFn,
      ptStep(BUCKET_RESOURCE) + labelStep,
      config(`  add-label: { command: [node, ${path.join(FIXTURES, "label-function.mjs")}] }\n`),
    );
    const sources = await renderRepo(manifestsIn(dir), {
      functions: { "add-label": { command: ["node", "x.mjs"] } },
      root: dir,
      allowExec: false,
      timeoutMs: 2000,
    });
    expect(sources[0]!.ok).toBe(false);
    expect(sources[0]!.findings).toEqual([]);
    const [finding] = notRenderedFindings(sources);
    expect(finding).toMatchObject({ rule: "render/not-rendered", severity: "warning", file: "functions.yaml" });
    expect(finding!.message).toContain("function add-label (step label) would run `node x.mjs` from the repository. To render it: run with --allow-exec");
  });

  it("turns a crashing and a hanging function into findings and goes on", async () => {
    const crashFn = labelFn.replace("add-label", "crash");
    const hangFn = labelFn.replace("add-label", "hang");
    const dir = tempRepo({
      "xrd.yaml": XRD,
      "functions.yaml": FUNCTIONS + "---\n" + crashFn + "---\n" + hangFn,
    });
    const xrs = ["a", "b", "c"].map((n) => ({ n, comp: n === "a" ? "crash" : n === "b" ? "hang" : "ok" }));
    const compositions = {
      crash: YAML.parse(composition("  - step: boom\n    functionRef: { name: crash }\n", "crash")),
      hang: YAML.parse(composition("  - step: wait\n    functionRef: { name: hang }\n", "hang")),
      ok: YAML.parse(composition(ptStep(BUCKET_RESOURCE), "ok")),
    };
    const { RuntimePool } = await import("../../src/render/runner/select.js");
    const { functionManifests } = await import("../../src/render/crossplane/repo.js");
    const pool = new RuntimePool(functionManifests(manifestsIn(dir)), {
      root: dir,
      allowExec: true,
      functions: {
        crash: { command: ["node", path.join(FIXTURES, "crash-function.mjs")] },
        hang: { command: ["node", path.join(FIXTURES, "label-function.mjs")] },
      },
    });
    process.env.FIXTURE_MODE = "hang";
    try {
      const results = [];
      for (const { n, comp } of xrs) {
        results.push(
          await renderComposite({
            xr: YAML.parse(xr(n, ", location: EU")),
            composition: compositions[comp as keyof typeof compositions],
            runtime: (name) => pool.get(name),
            timeoutMs: 700,
          }),
        );
      }
      expect(results[0]!.problems[0]).toMatchObject({ rule: "render/function-failed", step: "boom", functionName: "crash" });
      expect(results[0]!.problems[0]!.message).toContain("exited with code 3");
      expect(results[0]!.problems[0]!.detail).toContain("panic: cannot load config: boom");
      expect(results[1]!.problems[0]).toMatchObject({ rule: "render/function-failed", step: "wait" });
      expect(results[1]!.problems[0]!.message).toContain("timeout");
      expect(results[2]!.ok).toBe(true);
    } finally {
      delete process.env.FIXTURE_MODE;
      await pool.close();
    }
  }, 20_000);

  it("uses a Development function at the target the caller names, or with --allow-exec at its annotated one (our own `function serve`)", async () => {
    const dev = FUNCTIONS.replace(
      "metadata: { name: function-auto-ready }",
      `metadata:\n  name: function-auto-ready\n  annotations:\n    render.crossplane.io/runtime: Development\n    render.crossplane.io/runtime-development-target: 127.0.0.1:${devPort}`,
    );
    const dir = tempRepo({
      "composition.yaml": composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`),
      "functions.yaml": dev,
      "xr.yaml": xr("photos", ", location: US"),
      "observed.yaml": `apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata: { name: photos-abc, namespace: team-a, annotations: { crossplane.io/composition-resource-name: bucket } }
status: { conditions: [{ type: Ready, status: "True" }] }
`,
    });
    const args = ["render", "xr.yaml", "composition.yaml", "functions.yaml", "--observed-resources", "observed.yaml"];
    // Unasked, a Development function that is a built-in renders built in ...
    const builtin = await cli(args, dir);
    expect(builtin.stderr).toBe("");
    expect(builtin.code).toBe(0);
    // ... and one that is not is never connected to.
    fs.writeFileSync(
      path.join(dir, "functions.yaml"),
      dev.replace(/package: [^ }]*function-auto-ready[^ }]*/, "package: example.com/acme/function-ready-check:v1"),
    );
    fs.writeFileSync(
      path.join(dir, "composition.yaml"),
      composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`).replace(
        /function-auto-ready/g,
        "function-ready-check",
      ),
    );
    fs.writeFileSync(
      path.join(dir, "functions.yaml"),
      fs.readFileSync(path.join(dir, "functions.yaml"), "utf8").replace(/name: function-auto-ready/, "name: function-ready-check"),
    );
    const refused = await cli(args, dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is a Development function; composition-ci connects only to targets its caller names, not to one the repository names");
    fs.writeFileSync(path.join(dir, "functions.yaml"), dev);
    fs.writeFileSync(
      path.join(dir, "composition.yaml"),
      composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`),
    );
    for (const flags of [["--allow-exec"], ["--development-target", `function-auto-ready=127.0.0.1:${devPort}`]]) {
      const { code, stdout, stderr } = await cli([...args, ...flags], dir);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const [xrDoc] = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
      expect(xrDoc.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({ type: "Ready", status: "True", reason: "Available" });
    }
  });

  it("a Development target that does not answer as a function gets one message, whatever listens there", async () => {
    const dir = tempRepo({
      "composition.yaml": composition(`${ptStep(BUCKET_RESOURCE)}  - step: ready\n    functionRef: { name: function-auto-ready }\n`),
      "functions.yaml": FUNCTIONS.replace(
        "metadata: { name: function-auto-ready }",
        "metadata:\n  name: function-auto-ready\n  annotations:\n    render.crossplane.io/runtime: Development",
      ),
      "xr.yaml": xr("photos", ", location: US"),
    });
    const listen = (server: import("node:net").Server) =>
      new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as import("node:net").AddressInfo).port)));
    const web = http.createServer((_req, res) => res.writeHead(404).end("not found"));
    const closer = net.createServer((socket) => socket.destroy());
    const gone = net.createServer();
    const refusedPort = await listen(gone);
    await new Promise((r) => gone.close(r));
    const [webPort, closerPort] = [await listen(web), await listen(closer)];
    try {
      const messages: string[] = [];
      for (const port of [webPort, closerPort, refusedPort]) {
        const { stderr, code } = await cli(
          ["render", "xr.yaml", "composition.yaml", "functions.yaml", "--timeout", "5s", "--development-target", `function-auto-ready=127.0.0.1:${port}`],
          dir,
        );
        expect(code).toBe(1);
        messages.push(stderr.replaceAll(String(port), "PORT"));
      }
      expect(messages[0]).toContain("could not get a RunFunction answer from 127.0.0.1:PORT");
      expect(new Set(messages).size, messages.join("\n")).toBe(1);
    } finally {
      web.close();
      closer.close();
    }
  });

  it("runs a module function in-process with --allow-exec", async () => {
    const dir = repoWith(
      labelFn.replace("add-label", "configmap"),
      "  - step: cm\n    functionRef: { name: configmap }\n",
      config(`  configmap: { module: ${path.join(FIXTURES, "module-function.mjs")} }\n`),
    );
    const { code, stdout } = await cli(["render", "--all", ".", "--allow-exec"], dir);
    expect(code).toBe(0);
    const cm = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d.kind === "ConfigMap");
    expect(cm.data).toEqual({ owner: "one" });
  });

  it("--context-files, --context-values and --function-credentials reach the function; bad ones are usage errors", async () => {
    const dir = tempRepo({
      "xr.yaml": "apiVersion: example.org/v1\nkind: XBucket\nmetadata: { name: one, namespace: default }\nspec: { location: EU }\n",
      "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: { name: echo }
spec:
  compositeTypeRef: { apiVersion: example.org/v1, kind: XBucket }
  mode: Pipeline
  pipeline:
  - step: echo
    functionRef: { name: echo }
    credentials:
    - { name: db, source: Secret, secretRef: { namespace: crossplane-system, name: db-creds } }
`,
      "functions.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: { name: echo }\nspec: { package: example.org/echo:v1 }\n",
      "creds.yaml":
        "apiVersion: v1\nkind: Secret\nmetadata: { name: db-creds, namespace: crossplane-system }\ndata: { password: " +
        Buffer.from("s3cret").toString("base64") +
        " }\nstringData: { user: admin }\n",
      "env.json": JSON.stringify({ region: "eu-north-1" }),
      ".composition-ci.yaml": `functions:\n  echo: { module: ${path.join(FIXTURES, "echo-function.mjs")} }\n`,
    });
    const args = ["render", "xr.yaml", "composition.yaml", "functions.yaml", "--allow-exec", "--function-credentials", "creds.yaml"];
    const { code, stdout, stderr } = await cli(
      [...args, "--context-files", "apiextensions.crossplane.io/environment=env.json", "--context-values", 'team={"name":"platform"}'],
      dir,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const cm = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d.kind === "ConfigMap");
    expect(JSON.parse(cm.data.context)).toEqual({ "apiextensions.crossplane.io/environment": { region: "eu-north-1" }, team: { name: "platform" } });
    expect(JSON.parse(cm.data.credentials)).toEqual({ db: { password: "s3cret", user: "admin" } });
    const badValue = await cli([...args, "--context-values", "team={not json"], dir);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toContain("--context-values team: not JSON");
    expect((await cli([...args, "--context-values", "novalue"], dir)).stderr).toContain("--context-values takes KEY=VALUE");
    const noCreds = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "--allow-exec"], dir);
    expect(noCreds.code).toBe(1);
    expect(noCreds.stderr).toContain('cannot get credentials "db": Secret crossplane-system/db-creds not found in the function credentials');
  });

  it("answers required schemas from the repository's schemas (render --all) and from --required-schemas", async () => {
    const dir = repoWith(
      labelFn.replace("add-label", "schema"),
      "  - step: schema\n    functionRef: { name: schema }\n",
      config(`  schema: { module: ${path.join(FIXTURES, "schema-function.mjs")} }\n`),
    );
    const all = await cli(["render", "--all", ".", "--allow-exec"], dir);
    expect(all.code).toBe(0);
    const cm = YAML.parseAllDocuments(all.stdout)
      .map((d) => d.toJS())
      .find((d) => d.kind === "ConfigMap");
    expect(cm.data.fields).toBe("crossplane,location,size");
    fs.writeFileSync(path.join(dir, "xr.yaml"), xr("solo"));
    const one = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "--allow-exec", "--required-schemas", "xrd.yaml"], dir);
    expect(one.stderr).toBe("");
    expect(
      YAML.parseAllDocuments(one.stdout)
        .map((d) => d.toJS())
        .find((d) => d.kind === "ConfigMap").data.fields,
    ).toBe("crossplane,location,size");
    // -s with a directory of OpenAPI v3 documents, as kubectl get --raw /openapi/v3/apis/<group>/<version> writes them.
    const openapi = {
      openapi: "3.0.0",
      components: {
        schemas: {
          "org.example.v1.XBucket": {
            type: "object",
            properties: { spec: { type: "object", properties: { alpha: { type: "string" }, beta: { type: "integer" } } } },
            "x-kubernetes-group-version-kind": [{ group: "example.org", version: "v1", kind: "XBucket" }],
          },
        },
      },
    };
    fs.mkdirSync(path.join(dir, "openapi"));
    fs.writeFileSync(path.join(dir, "openapi/example.org_v1.json"), JSON.stringify(openapi));
    const fromDir = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "--allow-exec", "-s", "openapi"], dir);
    expect(fromDir.stderr).toBe("");
    expect(
      YAML.parseAllDocuments(fromDir.stdout)
        .map((d) => d.toJS())
        .find((d) => d.kind === "ConfigMap").data.fields,
    ).toBe("alpha,beta");
  });

  it("-e, --required-resources and --extra-resources give function-environment-configs its EnvironmentConfigs", async () => {
    const dir = tempRepo({
      "xr.yaml": "apiVersion: example.org/v1\nkind: XBucket\nmetadata: {name: one}\nspec: {location: EU}\n",
      "composition.yaml": composition(
        `  - step: env
    functionRef: {name: function-environment-configs}
    input:
      apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
      kind: Input
      spec:
        environmentConfigs:
        - {type: Reference, ref: {name: cfg}}
`,
        "c",
      ),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-environment-configs}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.2.0}\n",
      "req/env.yaml": "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: cfg}\ndata: {region: eu}\n",
    });
    for (const flag of ["-e", "--required-resources", "--extra-resources"]) {
      for (const where of ["req", "req/env.yaml"]) {
        const run = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "-c", flag, where], dir);
        expect(run.code, `${flag} ${where}: ${run.stderr}`).toBe(0);
        const context = YAML.parseAllDocuments(run.stdout)
          .map((d) => d.toJS())
          .find((d) => d.kind === "Context");
        expect(context.fields["apiextensions.crossplane.io/environment"]).toMatchObject({ region: "eu" });
      }
    }
    const without = await cli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "-c"], dir);
    expect(without.code).not.toBe(0); // a Reference to an EnvironmentConfig nobody gave is required by default
  });

  it("render --help names every built-in function", async () => {
    const help = await cli(["render", "--help"], REPO);
    for (const name of builtinNames()) expect(help.stdout).toContain(name);
  });

  it("`function run` answers a RunFunctionRequest in protobuf JSON", async () => {
    const request = {
      observed: { composite: { resource: { apiVersion: "example.org/v1", kind: "XBucket", metadata: { name: "x" }, spec: { location: "EU" } } } },
      input: YAML.parse(
        BUCKET_RESOURCE.replace(/^ {6}/gm, "")
          .replace(/^/, "resources:\n")
          .replace(/\n(?=.)/g, "\n  "),
      ),
    };
    const { code, stdout } = await runCli(["function", "run", "function-patch-and-transform"], REPO, JSON.stringify(request));
    expect(code).toBe(0);
    const rsp = JSON.parse(stdout) as JsonObject & { desired: any };
    expect(rsp.desired.resources.bucket.resource.spec.forProvider.region).toBe("eu-north-1");
    expect(rsp.meta).toMatchObject({ ttl: "60s" }); // a Duration in protobuf JSON, as the Go function prints it
  });
});

describe("check renders and validates the rendered objects", () => {
  it("reports a rendered Deployment that breaks its schema at its template, naming the XR, and honours --no-render", async () => {
    const deployment = `      - name: app
        base:
          apiVersion: apps/v1
          kind: Deployment
          spec:
            selector: { matchLabels: { app: x } }
            template: { metadata: { labels: { app: x } }, spec: { containers: [{ name: x, image: nginx:1.27 }] } }
        patches:
        - fromFieldPath: spec.location
          toFieldPath: spec.replicas
`;
    const dir = tempRepo({
      "xrd.yaml": XRD,
      "composition.yaml": composition(ptStep(deployment)),
      "functions.yaml": FUNCTIONS,
      "xr.yaml": xr("web"),
    });
    const { code, stdout } = await cli(["check", ".", "--format", "json", "--no-cache"], dir);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    const f = report.findings.find((x: any) => x.rule === "render/schema");
    expect(f).toMatchObject({ file: "composition.yaml", severity: "error", path: "spec.replicas" });
    const lines = fs.readFileSync(path.join(dir, "composition.yaml"), "utf8").split("\n");
    expect(lines[f.line - 1]).toContain("base:");
    expect(f.message).toContain('rendered Deployment "app" (Composition buckets, rendering XBucket web from xr.yaml)');
    const plain = await cli(["check", ".", "--format", "json", "--no-cache", "--no-render"], dir);
    expect(plain.code).toBe(0);
  });
});

describe("check --output-dir", () => {
  it("writes the rendered streams (secrets masked) and the JSON and SARIF reports, and says where", async () => {
    const secret = `      - name: creds
        base:
          apiVersion: v1
          kind: Secret
          stringData: { password: hunter2-not-for-logs }
`;
    const dir = tempRepo({ "xrd.yaml": XRD, "composition.yaml": composition(ptStep(secret)), "functions.yaml": FUNCTIONS, "xr.yaml": xr("web") });
    const { code, stderr } = await cli(["check", ".", "--no-cache", "--output-dir", "out"], dir);
    expect(code).toBe(0);
    const files = fs.readdirSync(path.join(dir, "out", "rendered")).filter((f) => !f.startsWith("."));
    expect(files).toHaveLength(1);
    const stream = fs.readFileSync(path.join(dir, "out", "rendered", files[0]!), "utf8");
    const docs = YAML.parseAllDocuments(stream).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual([docs[0].kind, "Secret"]);
    expect(stream).not.toContain("hunter2-not-for-logs");
    expect(docs[1].stringData.password).toMatch(/^<masked sha256:[0-9a-f]{8}>$/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "out", "report.json"), "utf8")).summary).toBeDefined();
    expect(JSON.parse(fs.readFileSync(path.join(dir, "out", "report.sarif"), "utf8")).version).toBe("2.1.0");
    expect(stderr).toContain("wrote out/rendered/ (1 YAML stream");
    expect(stderr).toMatch(/next: .*out\/rendered\//);
  });

  it("a later run removes the streams it wrote for sources that are gone, and nothing it did not write", async () => {
    const dir = tempRepo({
      "xrd.yaml": XRD,
      "composition.yaml": composition(ptStep(BUCKET_RESOURCE)),
      "functions.yaml": FUNCTIONS,
      "a.yaml": xr("a"),
      "b.yaml": xr("b"),
    });
    const streams = () =>
      fs
        .readdirSync(path.join(dir, "out"))
        .filter((f) => !f.startsWith("."))
        .sort();
    await cli(["render", "--all", ".", "--output-dir", "out"], dir);
    expect(streams()).toHaveLength(2);
    fs.writeFileSync(path.join(dir, "out", "notes.yaml"), "mine\n");
    fs.rmSync(path.join(dir, "b.yaml"));
    const again = await cli(["render", "--all", ".", "--output-dir", "out"], dir);
    expect(streams()).toHaveLength(2);
    expect(streams()).toContain("notes.yaml");
    expect(again.stderr).toMatch(/removed 1 stream an earlier run wrote into out that this run did not render: .*-b\.yaml/);
  });

  it("never writes through a symbolic link in the directory, nor removes what its list names unless it is a stream it wrote", async () => {
    const dir = tempRepo({ "xrd.yaml": XRD, "composition.yaml": composition(ptStep(BUCKET_RESOURCE)), "functions.yaml": FUNCTIONS, "a.yaml": xr("a") });
    const outside = tempRepo({ "victim.txt": "keep me\n" });
    fs.mkdirSync(path.join(dir, "out"));
    fs.writeFileSync(path.join(dir, "out", "notes.yaml"), "mine\n");
    fs.symlinkSync(path.join(outside, "victim.txt"), path.join(dir, "out", ".composition-ci-written"));
    await cli(["render", "--all", ".", "--output-dir", "out"], dir);
    expect(fs.readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("keep me\n");
    fs.writeFileSync(path.join(dir, "out", ".composition-ci-written"), "notes.yaml\n");
    await cli(["render", "--all", ".", "--output-dir", "out"], dir);
    expect(fs.readFileSync(path.join(dir, "out", "notes.yaml"), "utf8")).toBe("mine\n");
  });
});
