import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emptyConfig, parseConfig } from "../../src/config/config.js";
import { main } from "../../src/main.js";
import { validateRepo } from "../../src/run/validate.js";
import { REPO, SHARED, runCli, tempRepo, describeShared } from "../helpers.js";

const FIXTURES = path.join(REPO, "test/fixtures/rules");
const fixture = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel), "utf8");

/** A repo with the shared Bucket context and one fixture's composition, plus files. */
function bucketRepo(composition: string, files: Record<string, string> = {}): string {
  return tempRepo({ "context.yaml": fixture("_shared/bucket.yaml"), "composition.yaml": composition, ...files });
}

async function run(argv: string[], cwd: string) {
  let stdout = "";
  const code = await main(argv, { cwd, stdout: (t) => (stdout += t), stderr: () => {}, isTTY: false });
  return { code, report: JSON.parse(stdout) as { findings: { rule: string; severity: string; suppressed?: boolean }[]; summary: Record<string, number> } };
}

describe("rule severities and suppression", () => {
  const bad = fixture("pt/from-field-path/fail.yaml");

  it("an ignore annotation with a family pattern suppresses the rule on that object: counted, not failing", async () => {
    const annotated = bad.replace("  name: buckets\n", '  name: buckets\n  annotations:\n    composition-ci.dev/ignore: "composition/pipeline, pt/*"\n');
    const { code, report } = await run(["validate", ".", "--format", "json"], bucketRepo(annotated));
    const pt = report.findings.filter((f) => f.rule.startsWith("pt/"));
    expect(pt.length).toBe(2);
    expect(pt.every((f) => f.suppressed)).toBe(true);
    expect(report.summary.suppressed).toBe(2);
    expect(code).toBe(0);
  });

  it("without the annotation the same findings fail the run", async () => {
    const { code, report } = await run(["validate", ".", "--format", "json"], bucketRepo(bad));
    expect(report.findings.filter((f) => f.rule === "pt/from-field-path" && !f.suppressed)).toHaveLength(2);
    expect(code).toBe(1);
  });

  it("config rules: levels by id or family, off drops; --fail-on applies after", async () => {
    const repo = bucketRepo(bad, { ".composition-ci.yaml": "rules:\n  pt/*: warning\n" });
    const warned = await run(["validate", ".", "--format", "json"], repo);
    expect(warned.report.findings.filter((f) => f.rule === "pt/from-field-path").map((f) => f.severity)).toEqual(["warning", "warning"]);
    expect(warned.code).toBe(0);
    expect((await run(["validate", ".", "--format", "json", "--fail-on", "warning"], repo)).code).toBe(1);
    const off = bucketRepo(bad, { ".composition-ci.yaml": "rules:\n  pt/from-field-path: off\n" });
    const dropped = await run(["validate", ".", "--format", "json", "--fail-on", "warning"], off);
    expect(dropped.report.findings.filter((f) => f.rule.startsWith("pt/"))).toEqual([]);
    expect(dropped.code).toBe(0);
  });

  it("crossplaneVersion: 1 makes mode: Resources a warning", async () => {
    const legacy = fixture("composition/mode-resources/fail.yaml");
    const v2 = await validateRepo({ root: bucketRepo(legacy), paths: ["."], config: emptyConfig(), cacheDir: null });
    expect(v2.findings.find((f) => f.rule === "composition/mode-resources")?.severity).toBe("error");
    const config = parseConfig("crossplaneVersion: 1\n", ".composition-ci.yaml");
    const v1 = await validateRepo({ root: bucketRepo(legacy), paths: ["."], config, cacheDir: null });
    expect(v1.findings.find((f) => f.rule === "composition/mode-resources")?.severity).toBe("warning");
  });

  it("clusterDefinitions silence definition-missing for definitions installed in the cluster", async () => {
    const app = fixture("vela/definition-missing/fail.yaml");
    const repo = tempRepo({ "ctx.yaml": fixture("_shared/vela.yaml"), "app.yaml": app });
    const before = await validateRepo({ root: repo, paths: ["."], config: emptyConfig(), cacheDir: null });
    expect(before.findings.filter((f) => f.rule === "vela/definition-missing")).toHaveLength(2);
    const config = parseConfig("clusterDefinitions: [nighty, scaling]\n", ".composition-ci.yaml");
    const after = await validateRepo({ root: repo, paths: ["."], config, cacheDir: null });
    expect(after.findings.filter((f) => f.rule === "vela/definition-missing")).toEqual([]);
  });

  it("parameterSchemas: a config-provided JSON schema validates properties", async () => {
    const app = fixture("vela/properties/pass.yaml").replace("type: nightly", "type: cron").replace("image: shop/report:2.0.0", "image: 42");
    const repo = tempRepo({
      "ctx.yaml": fixture("_shared/vela.yaml"),
      "app.yaml": app,
      "cron.json": '{"type":"object","properties":{"image":{"type":"string"}}}',
    });
    const config = parseConfig("clusterDefinitions: [cron]\nparameterSchemas: {cron: cron.json}\n", ".composition-ci.yaml");
    const result = await validateRepo({ root: repo, paths: ["."], config, cacheDir: null });
    expect(result.findings.filter((f) => f.rule === "vela/properties").map((f) => f.message)).toEqual([
      'properties of component "report" (cron): `image` must be a string, not an integer (42)',
    ]);
  });
});

describe("the XRD a Composition is checked against", () => {
  const xrd = (served: boolean) =>
    `apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xbuckets.example.org}\nspec:\n  group: example.org\n  names: {kind: XBucket, plural: xbuckets}\n  versions:\n    - name: v1\n      served: ${served}\n      referenceable: true\n      schema: {openAPIV3Schema: {type: object}}\n`;
  const composition = (name: string) =>
    `apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: ${name}}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}\n  mode: Pipeline\n  pipeline:\n    - step: ready\n      functionRef: {name: function-auto-ready}\n`;

  it("is the one under the deepest directory both share, else the first in file order", async () => {
    const root = tempRepo({
      "teams/a/xrd.yaml": xrd(false),
      "teams/b/xrd.yaml": xrd(true),
      "teams/a/nested/composition.yaml": composition("near-a"),
      "teams/b/composition.yaml": composition("near-b"),
      "other/composition.yaml": composition("far"),
    });
    const result = await validateRepo({ root, paths: ["."], config: emptyConfig(), cacheDir: null });
    const notServed = result.findings.filter((f) => f.rule === "composition/xrd-version").map((f) => `${f.name}: ${f.severity} ${f.message}`);
    // Only an XRD in the Composition's own directory chain (or package) is certain; a cousin's is a guess.
    expect(notServed).toEqual([
      "far: warning version v1 is not served (XRD xbuckets.example.org in teams/a/xrd.yaml, in a sibling directory: it may never be installed with this Composition)",
      "near-a: error version v1 is not served (XRD xbuckets.example.org in teams/a/xrd.yaml)",
    ]);
  });
});

describe("an XR that several Compositions could render", () => {
  it("names the first five candidates and counts the rest", async () => {
    const xrd = `apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xbuckets.example.org}\nspec:\n  group: example.org\n  names: {kind: XBucket, plural: xbuckets}\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema: {openAPIV3Schema: {type: object}}\n`;
    const files: Record<string, string> = { "xrd.yaml": xrd, "xr.yaml": "apiVersion: example.org/v1\nkind: XBucket\nmetadata: {name: b}\nspec: {}\n" };
    for (let i = 1; i <= 7; i++) {
      files[`c${i}.yaml`] =
        `apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c${i}}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}\n  mode: Pipeline\n  pipeline:\n    - step: ready\n      functionRef: {name: function-auto-ready}\n`;
    }
    const { stdout } = await runCli(["check", ".", "--format", "json"], tempRepo(files));
    const ambiguous = (JSON.parse(stdout) as { findings: { rule: string; message: string }[] }).findings.find((f) => f.rule === "render/not-rendered");
    expect(ambiguous?.message).toBe(
      "1 source (XBucket b) was not rendered: 7 Compositions (c1, c2, c3, c4, c5 and 2 more) could render example.org/v1 XBucket and Crossplane would pick one at random. To render it: set compositionRef or compositionSelector on the XR, or a defaultCompositionRef on its XRD",
    );
  });
});

describeShared("rules on the shared corpus", () => {
  /** Rule findings by rule id, with the files they are in (relative to the corpus directory). */
  async function ruleFindings(dir: string) {
    const root = path.join(SHARED, "corpus", dir);
    const result = await validateRepo({ root, paths: ["."], config: emptyConfig(), cacheDir: null });
    return result.findings.filter((f) => !f.rule.startsWith("schema/") && !f.rule.startsWith("yaml/")).map((f) => `${f.rule} ${f.file}:${f.line}`);
  }

  it("oam-runtime-examples: only the findings the issue note justifies", async () => {
    const found = await ruleFindings("oam-runtime-examples");
    expect(found.filter((f) => f.startsWith("oam/trait-not-applicable"))).toEqual(["oam/trait-not-applicable component-versioning/versioning-demo-app.yaml:9"]);
    // ContainerizedWorkload and ManualScalerTrait definitions ship with the runtime's install, not these examples.
    expect(found.filter((f) => !f.startsWith("oam/trait-not-applicable")).every((f) => f.startsWith("oam/definition-missing"))).toBe(true);
    expect(found).toHaveLength(16);
  });

  it("crossplane-e2e: only the findings the issue note justifies", async () => {
    const found = await ruleFindings("crossplane-e2e");
    const rules = [...new Set(found.map((f) => f.split(" ")[0]))].sort();
    // (The Function whose metadata repeats `name` with the same value is read as kubectl reads it, so nothing refers to an unread file.)
    expect(rules).toEqual(["composition/function-missing", "composition/mode-resources", "composition/pipeline", "xrd/names"]);
    expect(found.filter((f) => f.startsWith("composition/pipeline")).map((f) => f.split(" ")[1]!.split("/").pop())).toEqual([
      "composition-invalid-duplicate-pipeline-steps.yaml:14",
      "composition-invalid-empty-pipeline.yaml:10",
      "composition-invalid-missing-pipeline.yaml:5",
    ]);
    expect(found).toHaveLength(16);
  });
});
