import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";
import { inlineTemplateStep, KRO_PLATFORM_COPY_STEP, pipelineComposition } from "../fixtures/compositions.js";

/**
 * Issue 31's function classes: a function is what its package is, whoever publishes the build,
 * and a `crossplane render` configuration is not a cluster object.
 */

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xbuckets.example.org}
spec:
  group: example.org
  names: {kind: XBucket, plural: xbuckets}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {region: {type: string}}}}}}
`;

const COMPOSITION = (fn: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xbuckets}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
    - step: render
      functionRef: {name: ${fn}}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: Inline
        inline:
          template: |
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: {{ .observed.composite.resource.metadata.name }}
              annotations:
                gotemplating.fn.crossplane.io/composition-resource-name: cm
            data:
              region: {{ .observed.composite.resource.spec.region }}
`;

const XR = "apiVersion: example.org/v1\nkind: XBucket\nmetadata: {name: photos, namespace: default}\nspec: {region: eu}\n";

async function check(files: Record<string, string>) {
  const { code, stdout, stderr } = await runCli(["check", ".", "--format", "json"], tempRepo(files));
  return { code, stderr, findings: JSON.parse(stdout).findings as { rule: string; severity: string; file?: string; message: string }[] };
}

describe("functions on first contact", () => {
  it("Upbound's build of a crossplane-contrib function is that function: built in, rendered offline", async () => {
    const { findings, stderr } = await check({
      "xrd.yaml": XRD,
      "composition.yaml": COMPOSITION("upbound-function-go-templating"),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: upbound-function-go-templating}\nspec: {package: xpkg.upbound.io/upbound/function-go-templating:v0.11.0}\n",
      "xr.yaml": XR,
    });
    expect(findings.filter((f) => f.rule.startsWith("render/"))).toEqual([]);
    expect(stderr).toContain("rendered 1 of 1 sources");
  });

  it("a Development Function with a placeholder package configures crossplane render: no schema finding on it, and a built-in renders built in", async () => {
    const { findings, stderr } = await check({
      "xrd.yaml": XRD,
      "composition.yaml": COMPOSITION("function-go-templating"),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-go-templating\n  annotations: {render.crossplane.io/runtime: Development}\nspec: {package: function-go-templating}\n",
      "xr.yaml": XR,
    });
    expect(findings.filter((f) => f.file === "functions.yaml")).toEqual([]);
    expect(stderr).toContain("rendered 1 of 1 sources");
  });

  it("the same placeholder without the annotation is still a fault: v2 needs a fully qualified package", async () => {
    const { findings } = await check({
      "xrd.yaml": XRD,
      "functions.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: function-go-templating}\n",
    });
    expect(findings.filter((f) => f.severity === "error").map((f) => f.rule)).toEqual(["schema/cel"]);
  });

  it("a function's input is decoded by the function: another group, or what a stricter schema refuses, is a warning", async () => {
    const { findings } = await check({
      "xrd.yaml": XRD,
      "composition.yaml": COMPOSITION("function-go-templating")
        .replace("gotemplating.fn.crossplane.io/v1beta1", "example.org/v1")
        .replace("template: |", "tmpl: x\n          template: |"),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.0}\n",
    });
    expect(findings.filter((f) => f.rule === "function/input-invalid").map((f) => f.severity)).toEqual(["warning"]);
    const strict = await check({
      "xrd.yaml": XRD,
      "composition.yaml": COMPOSITION("function-go-templating").replace("template: |", "templat: x\n          template: |"),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.0}\n",
    });
    expect(strict.findings.filter((f) => f.rule === "function/input-invalid").map((f) => f.severity)).toEqual(["warning"]);
  });

  it("a fork published elsewhere under a built-in's name has its own input: never checked against the original's schema", async () => {
    const fork = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xbuckets}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
    - step: conditional
      functionRef: {name: function-conditional-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: cm
            condition: observed.composite.resource.spec.region == "eu"
            base: {apiVersion: v1, kind: ConfigMap}
`;
    const { findings } = await check({
      "xrd.yaml": XRD,
      "composition.yaml": fork,
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-conditional-patch-and-transform}\nspec: {package: xpkg.upbound.io/someorg/function-patch-and-transform:v0.1.0}\n",
    });
    expect(findings.filter((f) => f.rule === "function/input-invalid" || f.rule.startsWith("pt/"))).toEqual([]);
  });
});

describe("function credentials", () => {
  const withCredentials = COMPOSITION("function-go-templating").replace(
    "      functionRef: {name: function-go-templating}\n",
    "      functionRef: {name: function-go-templating}\n      credentials:\n        - {name: creds, source: Secret, secretRef: {namespace: crossplane-system, name: fn-creds}}\n",
  );
  const files = {
    "xrd.yaml": XRD,
    "composition.yaml": withCredentials,
    "functions.yaml":
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.0}\n",
    "xr.yaml": XR,
  };

  it("are the repository's Secret beside the Composition", async () => {
    const { stderr, findings } = await check({
      ...files,
      "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: fn-creds, namespace: crossplane-system}\nstringData: {token: abc}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(stderr).toContain("rendered 1 of 1 sources");
  });

  it("a Secret only the cluster holds leaves the source not rendered, with the fix; never failed", async () => {
    const { findings } = await check(files);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "render/not-rendered").map((f) => (f as { message: string }).message)).toEqual([
      expect.stringContaining("needs Secret crossplane-system/fn-creds"),
    ]);
  });
});

describe("required resources only the cluster holds", () => {
  const composition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xbuckets}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
    - step: environment
      functionRef: {name: function-environment-configs}
      input:
        apiVersion: environmentconfigs.fn.crossplane.io/v1beta1
        kind: Input
        spec:
          environmentConfigs:
            - {type: Reference, ref: {name: shared}}
`;
  const files = {
    "xrd.yaml": XRD,
    "composition.yaml": composition,
    "functions.yaml":
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-environment-configs}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.6.0}\n",
    "xr.yaml": XR,
  };

  it("an EnvironmentConfig the repository holds renders", async () => {
    const { stderr, findings } = await check({
      ...files,
      "env.yaml": "apiVersion: apiextensions.crossplane.io/v1beta1\nkind: EnvironmentConfig\nmetadata: {name: shared}\ndata: {region: eu}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(stderr).toContain("rendered 1 of 1 sources");
  });

  it("one asked for by name that only the cluster holds leaves the source not rendered, naming it; never failed", async () => {
    const { findings } = await check(files);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "render/not-rendered").map((f) => f.message)).toEqual([
      expect.stringContaining("needs EnvironmentConfig shared, which the repository does not hold"),
    ]);
  });
});

describe("required resources the repository holds, of any kind", () => {
  const composition = (namespace: string) =>
    pipelineComposition(
      "xbuckets",
      "XBucket",
      `    - step: fetch
      functionRef: {name: function-extra-resources}
      input:
        apiVersion: extra-resources.fn.crossplane.io/v1beta1
        kind: Input
        spec:
          extraResources:
            - {apiVersion: v1, kind: ConfigMap, into: settings, type: Reference, ref: {name: settings}${namespace}}
${inlineTemplateStep(
  "compose",
  `            {{- $cm := index .context "apiextensions.crossplane.io/extra-resources" "settings" 0 }}
            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations:
                {{ setResourceNameAnnotation "copy" }}
            data:
              tier: {{ $cm.data.tier | quote }}
`,
)}`,
    );
  const configMaps = {
    "config/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {tier: gold}\n",
    "config/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: other}\ndata: {tier: bronze}\n",
  };

  it("a ConfigMap asked for by name in its namespace is the one the function gets", async () => {
    const dir = tempRepo({ "xrd.yaml": XRD, "composition.yaml": composition(", namespace: default"), "xr.yaml": XR, ...configMaps });
    const { stdout } = await runCli(["render", "--all", "."], dir);
    expect(stdout).toContain("tier: gold");
    expect(stdout).not.toContain("bronze");
  });

  it("one a function goes on without (a function-kro externalRef) is a warning saying what the render lacks", async () => {
    const kro = pipelineComposition("xbuckets", "XBucket", KRO_PLATFORM_COPY_STEP);
    const fn =
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kro}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-kro:v0.3.0}\n";
    const { findings } = await check({ "xrd.yaml": XRD, "composition.yaml": kro, "functions.yaml": fn, "xr.yaml": XR });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "render/required-missing").map((f) => `${f.severity} ${f.message}`)).toEqual([
      expect.stringMatching(/^warning step "graph" asked for ConfigMap default\/platform, which the repository does not hold/),
    ]);
    const held = await check({
      "xrd.yaml": XRD,
      "composition.yaml": kro,
      "functions.yaml": fn,
      "xr.yaml": XR,
      "platform.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: platform, namespace: default}\ndata: {tier: gold}\n",
    });
    expect(held.findings.filter((f) => f.rule === "render/required-missing")).toEqual([]);
    // A cluster-scoped kind: function-kro asks in the XR's namespace, which Crossplane ignores for it.
    const storage = kro
      .replace(
        "externalRef: {apiVersion: v1, kind: ConfigMap, metadata: {name: platform}}",
        "externalRef: {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: platform}}",
      )
      .replace("platform.data.tier", "platform.provisioner");
    expect(storage).toContain("StorageClass");
    const sc = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: platform}\nprovisioner: ebs.csi.aws.com\n";
    const cluster = await check({ "xrd.yaml": XRD, "composition.yaml": storage, "functions.yaml": fn, "xr.yaml": XR, "sc.yaml": sc });
    expect(cluster.findings.filter((f) => f.rule === "render/required-missing")).toEqual([]);
  });

  it("asked for by name without a namespace, it reaches no namespaced object, as in Crossplane: not rendered, saying where the repository holds it", async () => {
    const { findings } = await check({ "xrd.yaml": XRD, "composition.yaml": composition(""), "xr.yaml": XR, ...configMaps });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "render/not-rendered").map((f) => f.message)).toEqual([
      expect.stringContaining("needs ConfigMap settings, which the repository holds only in namespaces default, other"),
    ]);
  });
});

describe("noise", () => {
  it("patch-and-transform's 'not adding new composed resource' on a first render is an info, not a warning", async () => {
    const composition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xbuckets}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XBucket}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: cm
            base: {apiVersion: v1, kind: ConfigMap}
            patches:
              - {fromFieldPath: status.endpoint, toFieldPath: data.endpoint, policy: {fromFieldPath: Required}}
`;
    const { findings } = await check({ "xrd.yaml": XRD, "composition.yaml": composition, "xr.yaml": XR });
    const result = findings.filter((f) => f.rule === "render/function-result");
    expect(result.map((f) => f.severity)).toEqual(["info"]);
    expect(result[0]!.message).toContain("not adding new composed resource");
  });
});
