import { describe, expect, it } from "vitest";
import { XAPP_EXAMPLE, XAPP_XRD, xappComposition } from "../fixtures/project.js";
import { diffAfterChange } from "../helpers.js";
import { inlineTemplateStep, KRO_PLATFORM_COPY_STEP } from "../fixtures/compositions.js";

type Changes = { changes: { name: string; status: string }[] };
const statuses = (report: Changes) => report.changes.map((c) => `${c.name} ${c.status}`);

/**
 * diff: function-go-templating's FileSystem templates are files its sources render from. A change
 * to one must change the sources (it said "passes · 0 sources changed").
 */

const composition = (dirPath: string) =>
  xappComposition(`    - step: t
      functionRef: {name: function-go-templating}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: FileSystem
        fileSystem: {dirPath: ${dirPath}}
`);

const TEMPLATE =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    {{ setResourceNameAnnotation "cm" }}\ndata:\n  size: {{ .observed.composite.resource.spec.size | quote }}\n';

async function changedSources(files: Record<string, string>, template: string) {
  const report = await diffAfterChange<Changes>(
    { "apis/xrd.yaml": XAPP_XRD, "examples/xr.yaml": XAPP_EXAMPLE, ...files },
    { [template]: TEMPLATE.replace("size:", "sizing:") },
  );
  return statuses(report);
}

describe("FileSystem templates are dependencies of their sources", () => {
  it("a directory mounted by templateMounts", async () => {
    const files = {
      "apis/composition.yaml": composition("/templates"),
      ".composition-ci.yaml": "templateMounts:\n  /templates: platform/templates\n",
      "platform/templates/cm.yaml.gotmpl": TEMPLATE,
    };
    expect(await changedSources(files, "platform/templates/cm.yaml.gotmpl")).toEqual(["shop changed"]);
  });

  it("a directory relative to the Composition", async () => {
    const files = { "apis/composition.yaml": composition("templates"), "apis/templates/cm.yaml.gotmpl": TEMPLATE };
    expect(await changedSources(files, "apis/templates/cm.yaml.gotmpl")).toEqual(["shop changed"]);
  });
});

describe("objects a step selects are dependencies of their sources", () => {
  it("an EnvironmentConfig function-environment-configs selects", async () => {
    const composition = xappComposition(`    - step: env
      functionRef: {name: function-environment-configs}
      input:
        apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
        kind: Input
        spec:
          environmentConfigs:
            - {type: Reference, ref: {name: shared}}
${inlineTemplateStep(
  "t",
  `            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations:
                {{ setResourceNameAnnotation "cm" }}
            data:
              region: {{ index .context "apiextensions.crossplane.io/environment" "region" | quote }}
`,
)}`);
    const env = (region: string) =>
      `apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: shared}\ndata: {region: ${region}}\n`;
    const files = { "apis/xrd.yaml": XAPP_XRD, "apis/composition.yaml": composition, "env/shared.yaml": env("east"), "examples/xr.yaml": XAPP_EXAMPLE };
    expect(statuses(await diffAfterChange<Changes>(files, { "env/shared.yaml": env("west") }))).toEqual(["shop changed"]);
  });
});

describe("objects a step asks for when it runs", () => {
  const configMap = (tier: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: platform, namespace: default}\ndata: {tier: ${tier}}\n`;
  async function changesAfterConfigMapChange(composition: string) {
    const files = {
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": composition,
      "config/platform.yaml": configMap("gold"),
      "examples/xr.yaml": XAPP_EXAMPLE,
    };
    const report = await diffAfterChange<Changes & { unrenderedFiles?: string[] }>(files, { "config/platform.yaml": configMap("bronze") });
    return { changes: statuses(report), unrendered: report.unrenderedFiles ?? [] };
  }

  it("a ConfigMap a go-templating template requests (ExtraResources) is a file its source renders from", async () => {
    const composition = xappComposition(
      inlineTemplateStep(
        "t",
        `            apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1
            kind: ExtraResources
            requirements:
              platform: {apiVersion: v1, kind: ConfigMap, matchName: platform, namespace: default}
            ---
            {{- with index (.extraResources | default dict) "platform" }}
            {{- with .items }}
            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations:
                {{ setResourceNameAnnotation "copy" }}
            data:
              tier: {{ (index . 0).resource.data.tier | quote }}
            {{- end }}
            {{- end }}
`,
      ),
    );
    const { changes, unrendered } = await changesAfterConfigMapChange(composition);
    expect(changes).toEqual(["shop changed"]);
    expect(unrendered).toEqual([]);
  });

  it("a ConfigMap a function-kro externalRef names is a file its source renders from", async () => {
    const composition = xappComposition(KRO_PLATFORM_COPY_STEP);
    const { changes } = await changesAfterConfigMapChange(composition);
    expect(changes).toEqual(["shop changed"]);
  });
});

describe("a Composition's own environment (Crossplane v1)", () => {
  it("the EnvironmentConfigs it selects are dependencies of its sources", async () => {
    const composition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  environment:
    environmentConfigs:
      - {type: Reference, ref: {name: shared}}
  resources:
    - name: cm
      base: {apiVersion: v1, kind: ConfigMap, data: {region: unknown}}
      patches:
        - {type: FromEnvironmentFieldPath, fromFieldPath: region, toFieldPath: data.region}
`;
    const env = (region: string) =>
      `apiVersion: apiextensions.crossplane.io/v1alpha1\nkind: EnvironmentConfig\nmetadata: {name: shared}\ndata: {region: ${region}}\n`;
    const files = { "apis/xrd.yaml": XAPP_XRD, "apis/composition.yaml": composition, "env/shared.yaml": env("east"), "examples/xr.yaml": XAPP_EXAMPLE };
    expect(statuses(await diffAfterChange<Changes>(files, { "env/shared.yaml": env("west") }))).toEqual(["shop changed"]);
  });
});

describe("what a change alters, known without rendering", () => {
  it("objects of one name kept side by side in several folders are compared folder by folder", async () => {
    const xrd = (field: string) => XAPP_XRD.replace("size: {type: string}", `${field}: {type: string}`);
    const changed = { "b/xrd.yaml": xrd("tier").replace("tier: {type: string}", "tier: {type: string}, zone: {type: string}") };
    const report = await diffAfterChange<{ definitions?: { file: string }[] }>({ "a/xrd.yaml": xrd("size"), "b/xrd.yaml": xrd("tier") }, changed);
    const definitions = report.definitions ?? [];
    expect(definitions.map((d) => d.file)).toEqual(["b/xrd.yaml"]);
  });
});
