import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { gitRepo, REPO, runCli, tempRepo } from "../helpers.js";

const DUMMY = fs.readFileSync(path.join(REPO, "test/fixtures/functions/dummy-function.mjs"), "utf8");
const FUNCTIONS =
  "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-dummy}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-dummy:v0.4.1}\n";
const CONFIG = "functions:\n  function-dummy: {module: ./dummy.mjs}\n";

const step = (name: string, resources: string, extra = "") => `  - step: ${name}
    functionRef: {name: function-dummy}
    input:
      apiVersion: dummy.fn.crossplane.io/v1beta1
      kind: Response
      response:
        desired:
          resources:
${resources}${extra}`;

const cm = (key: string, name: string) =>
  `            ${key}:\n              resource: {apiVersion: v1, kind: ConfigMap, metadata: {namespace: default, name: ${name}}, data: {by: ${key}}}\n`;

const OPERATION = `apiVersion: ops.crossplane.io/v1alpha1
kind: Operation
metadata: {name: multi-step}
spec:
  mode: Pipeline
  pipeline:
${step("first", cm("b", "map-b"), "        output: {created: 1}\n        results: [{severity: SEVERITY_NORMAL, message: step one ran}]\n")}${step("second", cm("a", "map-a"), "        output: {created: 2}\n")}`;

function repo(files: Record<string, string>) {
  return tempRepo({ ".composition-ci.yaml": CONFIG, "dummy.mjs": DUMMY, "functions.yaml": FUNCTIONS, ...files });
}

const docs = (stdout: string) => YAML.parseAllDocuments(stdout).map((d) => d.toJS());

describe("render op: Operations as crossplane operation render prints them", () => {
  it("the Operation with its controller's status (conditions, step outputs, applied refs sorted), then the applied resources", async () => {
    const dir = repo({ "operation.yaml": OPERATION });
    const { code, stdout, stderr } = await runCli(["render", "op", "operation.yaml", "functions.yaml", "--allow-exec", "-r"], dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const [op, ...rest] = docs(stdout);
    expect(op).toEqual({
      apiVersion: "ops.crossplane.io/v1alpha1",
      kind: "Operation",
      metadata: { name: "multi-step", resourceVersion: "999" },
      spec: YAML.parse(OPERATION).spec,
      status: {
        conditions: [
          { type: "Succeeded", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "PipelineSuccess" },
          { type: "ValidPipeline", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "ValidPipeline" },
          { type: "Synced", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "ReconcileSuccess" },
        ],
        pipeline: [
          { step: "first", output: { created: 1 } },
          { step: "second", output: { created: 2 } },
        ],
        appliedResourceRefs: [
          { apiVersion: "v1", kind: "ConfigMap", name: "map-a", namespace: "default" },
          { apiVersion: "v1", kind: "ConfigMap", name: "map-b", namespace: "default" },
        ],
      },
    });
    // The controller's events (v2.3+): the step named in the message, reason RunPipelineStep.
    expect(rest.map((d) => `${d.kind}/${d.metadata?.name ?? `${d.severity} ${d.reason}: ${d.message}`}`)).toEqual([
      "ConfigMap/map-a",
      "ConfigMap/map-b",
      'Result/Normal RunPipelineStep: Pipeline step "first": step one ran',
    ]);
  });

  it("v2.2 (crossplane alpha render op): no conditions, refs and outputs always, the spec only with -o, Results with their step", async () => {
    const dir = repo({ "operation.yaml": OPERATION });
    const { code, stdout } = await runCli(["render", "op", "operation.yaml", "functions.yaml", "--allow-exec", "-r", "--crossplane-version", "v2.2"], dir);
    expect(code).toBe(0);
    const [op, ...rest] = docs(stdout);
    expect(op).toEqual({
      apiVersion: "ops.crossplane.io/v1alpha1",
      kind: "Operation",
      metadata: { name: "multi-step" },
      status: {
        appliedResourceRefs: [
          { apiVersion: "v1", kind: "ConfigMap", name: "map-a", namespace: "default" },
          { apiVersion: "v1", kind: "ConfigMap", name: "map-b", namespace: "default" },
        ],
        pipeline: [
          { step: "first", output: { created: 1 } },
          { step: "second", output: { created: 2 } },
        ],
      },
    });
    expect(rest.at(-1)).toEqual({
      apiVersion: "render.crossplane.io/v1beta1",
      kind: "Result",
      message: "step one ran",
      severity: "SEVERITY_NORMAL",
      step: "first",
    });
    const full = await runCli(["render", "op", "operation.yaml", "functions.yaml", "--allow-exec", "-o", "--crossplane-version", "v2.2"], dir);
    expect(docs(full.stdout)[0].spec.pipeline).toHaveLength(2);
    const none = await runCli(
      ["render", "op", "operation.yaml", "functions.yaml", "--allow-exec", "--crossplane-version", "v2.2"],
      repo({ "operation.yaml": OPERATION.replace(/ {6}response:[\s\S]*/, "      response: {}\n").replace(/  - step: second[\s\S]*/, "") }),
    );
    expect(docs(none.stdout)[0].status).toEqual({ appliedResourceRefs: [], pipeline: [] });
  });

  it("a CronOperation renders the Operation it creates, named after it", async () => {
    const cron = `apiVersion: ops.crossplane.io/v1alpha1
kind: CronOperation
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  operationTemplate:
    spec:
      mode: Pipeline
      pipeline:
${step("only", cm("x", "from-cron")).replace(/^/gm, "    ")}`;
    const dir = repo({ "cron.yaml": cron });
    const { code, stdout } = await runCli(["render", "op", "cron.yaml", "functions.yaml", "--allow-exec"], dir);
    expect(code).toBe(0);
    const [op, cmap] = docs(stdout);
    expect(op.kind).toBe("Operation");
    expect(op.metadata.name).toBe("nightly");
    expect(cmap.metadata.name).toBe("from-cron");
  });

  it("a WatchOperation's watched resource reaches every step as ops.crossplane.io/watched-resource", async () => {
    const watch = `apiVersion: ops.crossplane.io/v1alpha1
kind: WatchOperation
metadata: {name: on-change}
spec:
  watch: {apiVersion: example.org/v1, kind: XApp}
  operationTemplate:
    spec:
      mode: Pipeline
      pipeline:
${step("only", cm("x", "noted")).replace(/^/gm, "    ")}`;
    const dir = repo({ "watch.yaml": watch, "watched.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: the-app, namespace: default}\n" });
    const { code, stdout } = await runCli(["render", "op", "watch.yaml", "functions.yaml", "--allow-exec", "-w", "watched.yaml"], dir);
    expect(code).toBe(0);
    const seen = docs(stdout).find((d) => d.metadata?.name === "seen");
    expect(seen.data.required).toBe("ops.crossplane.io/watched-resource=the-app");
    expect((await runCli(["render", "op", "watch.yaml", "functions.yaml", "--allow-exec", "-w", "functions.yaml,functions.yaml"], dir)).code).not.toBe(0);
  });

  it("a fatal result fails the render with the step's words", async () => {
    const fatal = OPERATION.replace(
      "results: [{severity: SEVERITY_NORMAL, message: step one ran}]",
      "results: [{severity: SEVERITY_FATAL, message: cannot operate}]",
    );
    const dir = repo({ "operation.yaml": fatal });
    const { code, stderr } = await runCli(["render", "op", "operation.yaml", "functions.yaml", "--allow-exec"], dir);
    expect(code).toBe(1);
    expect(stderr).toContain('pipeline step "first" returned a fatal result: cannot operate');
  });

  it("check renders the repository's Operations as sources, and a WatchOperation watches what the repository has", async () => {
    const watch = `apiVersion: ops.crossplane.io/v1alpha1
kind: WatchOperation
metadata: {name: on-change}
spec:
  watch: {apiVersion: v1, kind: ConfigMap, matchLabels: {watched: "yes"}}
  operationTemplate:
    spec:
      mode: Pipeline
      pipeline:
${step("only", cm("x", "noted")).replace(/^/gm, "    ")}`;
    const dir = repo({
      "operation.yaml": OPERATION,
      "watch.yaml": watch,
      "cms.yaml":
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: marked, namespace: default, labels: {watched: "yes"}}\n',
    });
    const { code, stderr } = await runCli(["check", ".", "--allow-exec", "--no-cache", "--output-dir", "out"], dir);
    expect(code).toBe(0);
    expect(stderr).toContain("rendered 2 of 2 sources");
    const stream = fs.readFileSync(path.join(dir, "out/rendered/watchoperation-on-change.yaml"), "utf8");
    expect(stream).toContain("required: ops.crossplane.io/watched-resource=marked");
  });
});

describe("diff: an Operation's step outputs", () => {
  it("a changed output is a changed Operation, though what it applies is the same", async () => {
    const files = { ".composition-ci.yaml": CONFIG, "dummy.mjs": DUMMY, "functions.yaml": FUNCTIONS, "operation.yaml": OPERATION };
    const repo = gitRepo(files);
    fs.writeFileSync(path.join(repo.dir, "operation.yaml"), OPERATION.replace("output: {created: 2}", "output: {created: 3}"));
    const { stdout } = await runCli(["diff", "--base", "main", ".", "--format", "json", "--allow-exec"], repo.dir);
    const report = JSON.parse(stdout) as { changes: { status: string; objects: { kind: string; status: string; diff?: string }[] }[] };
    expect(report.changes.map((c) => c.status)).toEqual(["changed"]);
    const changed = report.changes[0]!.objects.filter((o) => o.status !== "unchanged");
    expect(changed.map((o) => o.kind)).toEqual(["Operation"]);
    expect(changed[0]!.diff).toMatch(/\+ +created: 3/);
  });
});
