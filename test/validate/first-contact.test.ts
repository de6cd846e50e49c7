import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

/** Regressions from running on public repositories: minimal reproductions of each class of false finding. */

type Finding = { rule: string; severity: string; file?: string; line?: number; message: string };

async function validate(files: Record<string, string>, ...args: string[]): Promise<{ findings: Finding[]; code: number }> {
  const { stdout, code } = await runCli(["validate", ".", "--format", "json", "--no-cache", ...args], tempRepo(files));
  return { findings: (JSON.parse(stdout) as { findings: Finding[] }).findings, code };
}

const rules = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.rule} ${f.file ?? ""}`.trim());

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n";

describe("files that are not manifests", () => {
  it("a JSON file that does not parse and is no manifest (comments, a BOM) is one info", async () => {
    const bundle =
      '\uFEFF// Configure bundling\n[\n  {\n    "outputFileName": "wwwroot/css/site.min.css",\n    // An array of relative input file paths.\n    "inputFiles": ["wwwroot/css/site.css"]\n  }\n]\n';
    const { findings } = await validate({ "bundleconfig.json": bundle, "cm.yaml": configMap });
    expect(rules(findings)).toEqual(["info file/not-a-manifest bundleconfig.json"]);
  });

  it("a file that looks like a manifest and does not parse stays an error, reported once", async () => {
    const { findings } = await validate({ "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 'c}\ndata:\n  a: b\n  c: d\n" });
    expect(rules(findings)).toEqual(["error yaml/syntax cm.yaml"]);
  });

  it("JSON with comments that looks like a manifest is an error, not a mangled clean", async () => {
    const { findings } = await validate({ "cm.json": '{\n  // a comment\n  "apiVersion": "v1",\n  "kind": "ConfigMap",\n  "metadata": {"name": "c"}\n}\n' });
    expect(findings.some((f) => f.severity === "error" && f.rule === "yaml/syntax")).toBe(true);
  });

  it("tools' own files (Kustomization, kuttl and chainsaw tests, Upbound projects) need no schema", async () => {
    const { findings } = await validate({
      "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
      "upbound.yaml": "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata: {name: p}\nspec: {repository: xpkg.upbound.io/acme/p}\n",
      "tests/01-step.yaml": "apiVersion: kuttl.dev/v1beta1\nkind: TestStep\ncommands: [{command: 'true'}]\n",
      "cm.yaml": configMap,
    });
    expect(findings).toEqual([]);
  });

  it("strategic-merge patches a kustomization names are partial objects, not manifests", async () => {
    const { findings } = await validate({
      "config/crd/kustomization.yaml": "resources: [crd.yaml]\npatchesStrategicMerge:\n- patches/cainjection.yaml\n",
      "config/crd/patches/cainjection.yaml":
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations: {cert-manager.io/inject-ca-from: x}\n  name: apps.example.org\n",
      "config/crd/patches/webhook.yaml":
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: apps.example.org}\nspec:\n  conversion: {strategy: Webhook}\n",
      "cm.yaml": configMap,
    });
    expect(rules(findings)).toEqual(["info file/not-applied config/crd/patches/cainjection.yaml"]);
  });
});

describe("test assertions and templates are not manifests", () => {
  it("kuttl assert files hold partial objects", async () => {
    const xrd =
      "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata: {name: xnets.example.org}\nstatus:\n  conditions: [{type: Established, status: 'True'}]\n";
    const { findings } = await validate({ "tests/00-assert.yaml": xrd, "tests/01-assert-net.yaml": xrd, "cm.yaml": configMap });
    expect(rules(findings)).toEqual(["info file/not-applied tests/00-assert.yaml"]);
    expect(findings[0]!.message).toContain("2 files (tests/00-assert.yaml, tests/01-assert-net.yaml) hold test assertions");
  });

  it("the same objects outside a test directory, with no spec or spec: null, are an error at their line naming what spec needs", async () => {
    const { findings } = await validate({
      "xrd.yaml": "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata: {name: xnets.example.org}\nspec: null\n",
      "fn.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: f}\n",
    });
    const missing = findings.filter((f) => f.message.startsWith("missing `spec`")).map((f) => `${f.severity} ${f.rule} ${f.file}:${f.line} ${f.message}`);
    expect(missing.sort()).toEqual([
      "error schema/required fn.yaml:1 missing `spec`: a Function needs spec.package",
      "error schema/required xrd.yaml:1 missing `spec`: a CompositeResourceDefinition needs spec.group, spec.names, spec.versions",
    ]);
  });

  it("an object with neither a name nor a generateName is an error at its line; a generateName is enough", async () => {
    const { findings } = await validate({
      "noname.yaml": "apiVersion: v1\nkind: Secret\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n",
      "generated.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: cm-}\n",
    });
    expect(
      findings.filter((f) => f.message.startsWith("missing required field `metadata.name`")).map((f) => `${f.severity} ${f.rule} ${f.file}:${f.line}`),
    ).toEqual(["error schema/required noname.yaml:1", "error schema/required noname.yaml:6"]);
  });

  it("status is not checked: the API server drops what a manifest says there before it validates", async () => {
    const crd =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.example.org}\nspec:\n  group: example.org\n  scope: Cluster\n  names: {kind: Thing, plural: things}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      subresources: {status: {}}\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec: {type: object, properties: {size: {type: integer}}}\n            status: {type: object, required: [succeeded], properties: {succeeded: {type: boolean}}}\n";
    const { findings } = await validate({
      "crd.yaml": crd,
      "thing.yaml": "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: two}\nstatus: {phase: Done}\n",
    });
    expect(findings.map((f) => `${f.rule} ${f.file}:${f.line}`)).toEqual(["schema/type thing.yaml:4"]);
  });

  it("files a chainsaw Test applies or asserts are templates filled from bindings", async () => {
    const test =
      "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\nspec:\n  steps:\n    - try:\n        - apply: {file: ../common/install.yaml}\n        - assert: {file: check.yaml}\n";
    const install = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: (join('-', ['db', $provider]))\ndata: {size: ($size)}\n";
    const { findings } = await validate({
      "tests/aws/chainsaw-test.yaml": test,
      "tests/common/install.yaml": install,
      "tests/aws/check.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  (a): b\n",
    });
    expect(rules(findings)).toEqual(["info file/not-applied tests/aws/check.yaml"]);
    expect(findings[0]!.message).toContain("are used by chainsaw Tests");
  });

  it("crossplane render output (golden files) is neither validated nor rendered", async () => {
    const golden = [
      "apiVersion: example.org/v1\nkind: XNet\nmetadata: {name: n}\nstatus:\n  conditions: [{type: Ready, status: 'False', reason: Creating}]\n",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations: {crossplane.io/composition-resource-name: cm}\n  generateName: n-\n",
    ].join("---\n");
    const { findings } = await validate({ "tests/render/golden/n.yaml": golden, "cm.yaml": configMap });
    expect(rules(findings)).toEqual(["info file/not-applied tests/render/golden/n.yaml"]);
  });

  it("envsubst placeholders in names are a templated file, not invalid names", async () => {
    const { findings } = await validate({
      "claim.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: $CLAIM_NAME\n  namespace: ${NAMESPACE}\n",
      "cm.yaml": configMap,
    });
    expect(rules(findings)).toEqual(["info file/templated claim.yaml"]);
  });
});

describe("YAML as Kubernetes tools read it", () => {
  it("a quoted string continued at its key's indentation (generated CRDs) is read as go-yaml reads it", async () => {
    const cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  description: 'APIVersion defines the versioned schema\n  of an object. Servers should convert'\n  other: \"a\n  b\"\n";
    const { findings } = await validate({ "cm.yaml": cm });
    expect(rules(findings)).toEqual(["info yaml/lenient cm.yaml"]);
  });

  it("a null annotations map is unset, as ObjectMeta decoding makes it", async () => {
    const fn =
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-kcl\n  annotations:\n    # render.crossplane.io/runtime: Development\nspec:\n  package: xpkg.upbound.io/crossplane-contrib/function-kcl:v0.12.1\n";
    // Offline (as tests run), the package's own schemas are one warning; nothing else.
    expect((await validate({ "fn.yaml": fn })).findings.map((f) => f.rule)).toEqual(["package/unavailable"]);
  });
});

describe("nothing is not clean", () => {
  it("a tree with no manifest is a warning that says so", async () => {
    const { findings } = await validate({ "values.yaml": "replicas: 3\n" });
    expect(rules(findings)).toEqual(["warning file/no-manifests"]);
    expect(findings[0]!.message).toBe("nothing to check: none of the 1 files below . holds a Kubernetes object (a document with apiVersion and kind)");
  });

  it("a directory named on the command line is read even when a .gitignore above it ignores it, and says so", async () => {
    const dir = tempRepo({ ".gitignore": "rendered/\n", "rendered/cm.yaml": configMap });
    fs.mkdirSync(path.join(dir, ".git"));
    const { stdout } = await runCli(["validate", "rendered", "--format", "json", "--no-cache"], dir);
    const report = JSON.parse(stdout) as { summary: { documents: number }; findings: Finding[] };
    expect(report.summary.documents).toBe(1);
    expect(rules(report.findings)).toEqual(["info file/ignored"]);
    expect(report.findings[0]!.message).toBe("rendered is ignored by .gitignore; read anyway because it was named");
  });
});

describe("Crossplane v1 forms against the v2 schemas", () => {
  const provider =
    "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: p}\nspec:\n  package: crossplane-contrib/provider-aws:v0.1.0\n  controllerConfigRef: {name: x}\n";

  it("say what v2 removed and what to use instead", async () => {
    const all = (await validate({ "p.yaml": provider })).findings;
    // Nothing here is v2-only: the repository is said once to be written for v1, and each form is a warning.
    expect(all.filter((f) => f.rule === "crossplane/v1-repository").map((f) => f.message)).toEqual([
      expect.stringContaining("2 other forms Crossplane v2 removed"),
    ]);
    const findings = all.filter((f) => f.rule !== "crossplane/v1-repository");
    expect(findings.map((f) => f.severity)).toEqual(["warning", "warning"]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringContaining("Crossplane v2 has no default registry"),
      expect.stringContaining("removed in Crossplane v2 with ControllerConfig: use a DeploymentRuntimeConfig"),
    ]);
    for (const f of findings) expect(f.message).toContain("set crossplaneVersion: 1 in .composition-ci.yaml");
  });

  it("crossplaneVersion: 1 validates a v1 repository", async () => {
    const { findings } = await validate({ "p.yaml": provider, ".composition-ci.yaml": "crossplaneVersion: 1\n" });
    expect(findings).toEqual([]);
  });
});

describe("noise", () => {
  it("a missing schema is said once per kind in text output, and once per document in JSON", async () => {
    const bucket = (n: number) => `apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata: {name: b${n}}\n`;
    const dir = tempRepo({ "a.yaml": bucket(1), "b.yaml": bucket(2), "c.yaml": bucket(3) });
    const text = (await runCli(["validate", ".", "--no-cache"], dir)).stdout;
    expect(text.match(/no schema for s3\.aws\.upbound\.io\/v1beta1 Bucket/g)).toHaveLength(1);
    expect(text).toContain("(and 2 more like it)");
    expect(text).toContain("0 errors, 3 warnings");
    const json = JSON.parse((await runCli(["validate", ".", "--no-cache", "--format", "json"], dir)).stdout) as { findings: Finding[] };
    expect(json.findings).toHaveLength(3);
  });

  it("templated files are said once in text output, with the count", async () => {
    const templated = (n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name${n} }}\n`;
    const dir = tempRepo({ "t/a.yaml": templated(1), "t/b.yaml": templated(2), "t/c.yaml": templated(3), "cm.yaml": configMap });
    const text = (await runCli(["validate", ".", "--no-cache"], dir)).stdout;
    expect(text.match(/file\/templated/g)).toHaveLength(1);
    expect(text).toContain("(and 2 more like it)  file/templated");
  });
});
