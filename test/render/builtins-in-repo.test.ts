import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { runCli, tempRepo } from "../helpers.js";

/** The built-in functions in a repository: templates read from its files, EnvironmentConfigs from its objects. */

const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions:
    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: string}}}}}}}
`;

const composition = (input: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
    - step: env
      functionRef: {name: function-environment-configs}
      input:
        apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
        kind: Input
        spec:
          environmentConfigs:
            - {type: Reference, ref: {name: platform}}
    - step: templates
      functionRef: {name: function-go-templating}
      input:
${input}`;

const template = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .observed.composite.resource.metadata.name }}-settings
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: settings
data:
  size: {{ .observed.composite.resource.spec.size | quote }}
  region: {{ index .context "apiextensions.crossplane.io/environment" "region" | quote }}
`;

const files = (input: string, extra: Record<string, string> = {}) => ({
  "apis/xrd.yaml": xrd,
  "apis/composition.yaml": composition(input),
  "apis/templates/settings.yaml.gotmpl": template,
  "environment.yaml": "apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: EnvironmentConfig\nmetadata: {name: platform}\ndata: {region: eu-west-1}\n",
  "examples/app.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: shop, namespace: default}\nspec: {size: large}\n",
  ...extra,
});

async function rendered(repo: Record<string, string>): Promise<{ configMap?: Record<string, unknown>; stderr: string; code: number }> {
  const { stdout, stderr, code } = await runCli(["render", "--all", "."], tempRepo(repo));
  const docs = YAML.parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, unknown>);
  return { configMap: docs.find((d) => d.kind === "ConfigMap"), stderr, code };
}

describe("built-in functions read what the repository holds", () => {
  it("FileSystem templates relative to the Composition, and the repository's EnvironmentConfigs", async () => {
    const input =
      "        apiVersion: gotemplating.fn.crossplane.io/v1beta1\n        kind: GoTemplate\n        source: FileSystem\n        fileSystem: {dirPath: templates}\n";
    const { configMap, stderr, code } = await rendered(files(input));
    expect(stderr).toContain("rendered 1 of 1 sources");
    expect(code).toBe(0);
    expect(configMap).toMatchObject({ metadata: { name: "shop-settings" }, data: { size: "large", region: "eu-west-1" } });
  });

  it("an absolute dirPath is read through the config's templateMounts", async () => {
    const input =
      "        apiVersion: gotemplating.fn.crossplane.io/v1beta1\n        kind: GoTemplate\n        source: FileSystem\n        fileSystem: {dirPath: /templates}\n";
    const { configMap } = await rendered(files(input, { ".composition-ci.yaml": "templateMounts: {/templates: apis/templates}\n" }));
    expect(configMap).toMatchObject({ data: { size: "large" } });
  });

  it("a dirPath that leads outside the repository is refused", async () => {
    const input =
      "        apiVersion: gotemplating.fn.crossplane.io/v1beta1\n        kind: GoTemplate\n        source: FileSystem\n        fileSystem: {dirPath: ../../../../etc}\n";
    const { configMap, stderr } = await rendered(files(input));
    expect(configMap).toBeUndefined();
    expect(stderr).toContain("render/function-fatal");
    expect(stderr).not.toContain("root:x:0:0");
  });
});
