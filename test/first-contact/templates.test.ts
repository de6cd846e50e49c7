import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

/** Issue 31, principle 2: templates that parse as YAML are their tool's input, not manifests. */

const DEPLOYMENT = (name: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec: {replicas: many}\n`;

async function check(files: Record<string, string>) {
  const { stdout } = await runCli(["check", ".", "--format", "json"], tempRepo(files));
  return JSON.parse(stdout).findings as { rule: string; severity: string; file?: string; message: string }[];
}

describe("template files are skipped with one info each, whatever their language", () => {
  it("ytt annotations and _ytt_lib libraries, Backstage skeletons, nunjucks tags, a Helm chart's quoted actions", async () => {
    const findings = await check({
      "ytt/app.yaml": `#@ load("@ytt:data", "data")\n${DEPLOYMENT("ytt")}`,
      "ytt/_ytt_lib/lib/base.yaml": DEPLOYMENT("lib"),
      "backstage/skeleton/app.yaml": DEPLOYMENT("${{ values.name }}"),
      "backstage/skeleton/quoted.yaml": DEPLOYMENT('"${{ values.name }}"'),
      "cnoe/skeleton/kustomization.yaml": "{%- if values.bucket %}\nresources:\n{%- endif %}\n  - ../base/\n",
      "cnoe/skeleton/app.yaml": `{%- if values.x %}\n${DEPLOYMENT("x")}{%- endif %}\n`,
      "chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
      "chart/templates/deploy.yaml": DEPLOYMENT('"{{ .Release.Name }}"'),
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    const templated = findings.filter((f) => f.rule === "file/templated").map((f) => `${f.file} ${/a (\S+) template|template markers/.exec(f.message)?.[0]}`);
    expect(templated.sort()).toEqual([
      "backstage/skeleton/app.yaml template markers",
      "backstage/skeleton/quoted.yaml a Backstage template",
      "chart/templates/deploy.yaml a Helm template",
      "cnoe/skeleton/app.yaml template markers",
      "cnoe/skeleton/kustomization.yaml template markers",
      "ytt/_ytt_lib/lib/base.yaml a ytt template",
      "ytt/app.yaml a ytt template",
    ]);
  });

  it("the same objects outside a template are checked: a Composition's inline go-template, {{ }} outside a chart, a workflow's ${{ }}", async () => {
    const findings = await check({
      "app.yaml": DEPLOYMENT('"{{ .name }}"'),
      "not-a-chart/templates/deploy.yaml": DEPLOYMENT("plain"),
      ".github/workflows/ci.yaml": "on: push\njobs:\n  a:\n    runs-on: ${{ matrix.os }}\n    steps: [{run: echo}]\n",
    });
    expect(findings.filter((f) => f.rule === "file/templated")).toEqual([]);
    expect(
      findings
        .filter((f) => f.rule === "schema/type")
        .map((f) => f.file)
        .sort(),
    ).toEqual(["app.yaml", "not-a-chart/templates/deploy.yaml"]);
  });
});

describe("tools' own objects are not cluster objects", () => {
  it("a kpt function's local-config ConfigMap, Backstage entities, a kind cluster config and a kubeconfig: no schema finding", async () => {
    const findings = await check({
      "fn-config.yaml":
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n  annotations: {config.kubernetes.io/local-config: "true"}\ndata: {replicas: 27}\n',
      "catalog-info.yaml": "apiVersion: backstage.io/v1alpha1\nkind: Component\nmetadata: {name: app}\nspec: {type: service}\n",
      "template.yaml": "apiVersion: scaffolder.backstage.io/v1beta3\nkind: Template\nmetadata: {name: t}\nspec: {steps: []}\n",
      "kind.yaml": "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nnodes: [{role: control-plane}]\n",
      "kubeconfig.yaml": "apiVersion: v1\nkind: Config\nclusters: []\n",
    });
    expect(findings.filter((f) => f.severity !== "info")).toEqual([]);
  });

  it("the same ConfigMap without the annotation is applied, and its number is a fault", async () => {
    const findings = await check({ "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: setters}\ndata: {replicas: 27}\n" });
    expect(findings.map((f) => f.rule)).toEqual(["schema/type"]);
  });
});

describe("a sample's placeholders to fill in", () => {
  it("{your-account} that breaks the YAML skips the file; a fill-in value is an info, not an error", async () => {
    const findings = await check({
      "broken.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - image: {your-docker-account}/orders:latest\n    name: orders\n",
      "env.yaml":
        "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - name: c\n    image: i\n    env:\n    - name: DOMAIN\n      value: {your-cluster-domain}\n    - name: DEST\n      value: {provide name of destination} # to be updated\n",
      "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  CLIENT_ID: >-\n    <YOUR CLIENT ID - BASE64 ENCODED>\n",
    });
    expect(findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(findings.filter((f) => f.rule === "file/templated").map((f) => f.file)).toEqual(["broken.yaml"]);
    expect(
      findings
        .filter((f) => /placeholder to fill in/.test(f.message))
        .map((f) => f.file)
        .sort(),
    ).toEqual(["env.yaml", "env.yaml", "secret.yaml"]);
  });

  it("the same value written as an object is still a fault", async () => {
    const findings = await check({
      "env.yaml":
        "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - name: c\n    image: i\n    env:\n    - name: DOMAIN\n      value: {domain: example.org}\n",
    });
    expect(findings.map((f) => `${f.severity} ${f.rule}`)).toEqual(["error schema/type"]);
  });
});

describe("duplicate keys in a file a kustomization reads", () => {
  it("are an error there (kustomize refuses the file), a warning elsewhere", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: one\n  k: two\n";
    const findings = await check({
      "base/kustomization.yaml": "resources: [cm.yaml]\n",
      "base/cm.yaml": cm,
      "other/cm.yaml": cm.replace("name: a", "name: b"),
    });
    expect(
      findings
        .filter((f) => f.rule === "yaml/duplicate-key")
        .map((f) => `${f.severity} ${f.file}`)
        .sort(),
    ).toEqual(["error base/cm.yaml", "warning other/cm.yaml"]);
  });
});

describe("a file a test applies can also be the package's own", () => {
  it("a chainsaw Test's own fixtures are test data; the package's XRD it applies from outside its directory is still a manifest", async () => {
    const test =
      "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: e2e}\nspec:\n  steps:\n    - try:\n        - apply: {file: ../../package/xrd.yaml}\n        - apply: {file: claim.yaml}\n";
    const badXrd =
      "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xapps.example.org}\nspec:\n  group: example.org\n  names: {kind: XApp, plural: xapps}\n  versions: [{name: v1, served: true, referenceable: true, schma: {}}]\n";
    const findings = await check({
      "tests/e2e/chainsaw-test.yaml": test,
      "tests/e2e/claim.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: partial}\n",
      "package/xrd.yaml": badXrd,
    });
    expect(findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}`)).toEqual(["schema/unknown-field package/xrd.yaml"]);
    expect(findings.filter((f) => f.rule === "file/not-applied").map((f) => f.message)).toEqual([expect.stringContaining("tests/e2e/claim.yaml")]);
  });
});

describe("KubeVela addons", () => {
  it("an addon's template.yaml beside its metadata.yaml is the Application vela addon enable completes: not applied as written", async () => {
    const template = "apiVersion: core.oam.dev/v1beta1\nkind: Application\nmetadata: {name: fluxcd, namespace: vela-system}\nspec: {components: []}\n";
    const findings = await check({
      "addons/fluxcd/metadata.yaml": "name: fluxcd\nversion: 1.0.0\n",
      "addons/fluxcd/template.yaml": template,
      "apps/template.yaml": template.replace("fluxcd", "app"),
    });
    expect(findings.filter((f) => f.rule === "file/not-applied").map((f) => f.file)).toEqual(["addons/fluxcd/template.yaml"]);
  });
});
