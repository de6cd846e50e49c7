import { describe, expect, it } from "vitest";
import { migrateConnectionDetail, migratePatch, migrateTransform, toPipelineComposition } from "../../src/render/crossplane/convert.js";
import { runCli, tempRepo } from "../helpers.js";

/**
 * `crossplane beta convert pipeline-composition` as crossplane v1.20 does it. The cases are the
 * upstream converter tests (converter_test.go at crossplane 6ea3b7353f5a, the last commit with the
 * command), written down here as data.
 */

const bucket = { apiVersion: "s3.aws.upbound.io/v1beta1", kind: "Bucket", spec: { forProvider: { region: "us-east-2" } } };
const fromEnv = { type: "FromEnvironmentFieldPath", fromFieldPath: "someFieldInTheEnvironment", toFieldPath: "spec.forProvider.someFieldFromTheEnvironment" };
const toEnv = { type: "ToEnvironmentFieldPath", fromFieldPath: "status.someOtherFieldInTheResource", toFieldPath: "someOtherFieldInTheEnvironment" };
const p1 = { type: "FromCompositeFieldPath", fromFieldPath: "envVal", toFieldPath: "spec.val" };
const p2 = {
  type: "ToCompositeFieldPath",
  fromFieldPath: "envVal",
  toFieldPath: "spec.val",
  policy: { fromFieldPath: "optional", mergeOptions: { keepMapValues: true } },
};
const p2Converted = { ...p2, policy: { fromFieldPath: "optional", toFieldPath: "MergeObjects" } };

const legacy = (extra: Record<string, unknown> = {}) => ({
  apiVersion: "apiextensions.crossplane.io/v1",
  kind: "Composition",
  metadata: { name: "foo" },
  spec: {
    compositeTypeRef: { apiVersion: "example.crossplane.io/v1", kind: "XR" },
    mode: "Resources",
    ...extra,
    resources: [
      { name: "bucket", base: bucket, patches: [fromEnv, toEnv] },
      { base: bucket, patches: [fromEnv, { fromFieldPath: toEnv.fromFieldPath, toFieldPath: toEnv.toFieldPath }] },
    ],
  },
});

const convertedResources = [
  { name: "bucket", base: bucket, patches: [fromEnv, toEnv] },
  {
    name: "resource-1",
    base: bucket,
    patches: [fromEnv, { type: "FromCompositeFieldPath", fromFieldPath: toEnv.fromFieldPath, toFieldPath: toEnv.toFieldPath }],
  },
];

const pipeline = (input: Record<string, unknown>) => [
  {
    step: "patch-and-transform",
    functionRef: { name: "function-patch-and-transform" },
    input: { apiVersion: "pt.fn.crossplane.io/v1beta1", kind: "Resources", ...input },
  },
];

describe("convert pipeline-composition (upstream TestConvertPnTToPipeline)", () => {
  it("SuccessWithNoEnvironment", () => {
    const out = toPipelineComposition(legacy({ patchSets: [{ name: "patchset-0", patches: [p1, p2] }] }));
    expect(out.spec).toEqual({
      compositeTypeRef: { apiVersion: "example.crossplane.io/v1", kind: "XR" },
      mode: "Pipeline",
      pipeline: pipeline({ patchSets: [{ name: "patchset-0", patches: [p1, p2Converted] }], resources: convertedResources }),
    });
  });

  it("SuccessWithEnvironmentPatches (then the environment step, as the command runs it)", () => {
    const environment = {
      defaultData: { foo: "bar" },
      environmentConfigs: [{ type: "Reference", ref: { name: "example-config" } }],
      patches: [
        { type: "ToCompositeFieldPath", fromFieldPath: "someFieldInTheEnvironment", toFieldPath: "status.someFieldFromTheEnvironment" },
        { fromFieldPath: "spec.someFieldInTheXR", toFieldPath: "someFieldFromTheXR" },
      ],
    };
    const out = toPipelineComposition(legacy({ environment, patchSets: [{ name: "patchset-0", patches: [p1, p2] }] }));
    const [envStep, ptStep] = (out.spec as { pipeline: unknown[] }).pipeline;
    expect(envStep).toEqual({
      step: "environment-configs",
      functionRef: { name: "function-environment-configs" },
      input: {
        apiVersion: "environmentconfigs.fn.crossplane.io/v1beta1",
        kind: "Input",
        spec: { defaultData: environment.defaultData, environmentConfigs: environment.environmentConfigs },
      },
    });
    expect(ptStep).toEqual(
      pipeline({
        environment: { patches: [environment.patches[0], { type: "FromCompositeFieldPath", ...environment.patches[1] }] },
        patchSets: [{ name: "patchset-0", patches: [p1, p2Converted] }],
        resources: convertedResources,
      })[0],
    );
    expect((out.spec as Record<string, unknown>).environment).toBeUndefined();
  });

  it("SuccessWithNoPatchSets", () => {
    const out = toPipelineComposition(legacy());
    expect((out.spec as { pipeline: { input: Record<string, unknown> }[] }).pipeline[0]!.input).not.toHaveProperty("patchSets");
  });

  it("a Pipeline Composition needs no change", () => {
    const c = { apiVersion: "apiextensions.crossplane.io/v1", kind: "Composition", spec: { mode: "Pipeline", pipeline: [] } };
    expect(toPipelineComposition(c)).toBe(c);
  });
});

describe("connection details (upstream TestSetMissingConnectionDetailFields)", () => {
  const cases: [string, object, object][] = [
    [
      "ConnectionDetailMissingKeyAndName",
      { fromConnectionSecretKey: "kubeconfig" },
      { name: "kubeconfig", fromConnectionSecretKey: "kubeconfig", type: "FromConnectionSecretKey" },
    ],
    ["FromValueMissingType", { name: "kubeconfig", value: "kubeconfig" }, { name: "kubeconfig", value: "kubeconfig", type: "FromValue" }],
    [
      "FromFieldPathMissingType",
      { name: "kubeconfig", fromFieldPath: "kubeconfig" },
      { name: "kubeconfig", fromFieldPath: "kubeconfig", type: "FromFieldPath" },
    ],
    ["a given type is inferred again", { name: "k", type: "FromValue", fromFieldPath: "a" }, { name: "k", fromFieldPath: "a", type: "FromFieldPath" }],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(migrateConnectionDetail(input)).toEqual(want));
});

describe("transforms (upstream TestSetTransformTypeRequiredFields)", () => {
  const cases: [string, object, object][] = [
    ["MathMultiplyMissingType", { math: { multiply: 1024 } }, { type: "math", math: { type: "Multiply", multiply: 1024 } }],
    ["MathClampMinMissingType", { math: { clampMin: 1024 } }, { type: "math", math: { type: "ClampMin", clampMin: 1024 } }],
    ["MathClampMaxMissingType", { math: { clampMax: 1024 } }, { type: "math", math: { type: "ClampMax", clampMax: 1024 } }],
    ["StringConvertMissingType", { string: { convert: "ToBase64" } }, { type: "string", string: { type: "Convert", convert: "ToBase64" } }],
    [
      "StringRegexMissingType",
      { string: { regexp: { match: "'^eu-(.*)-'", group: 1 } } },
      { type: "string", string: { type: "Regexp", regexp: { match: "'^eu-(.*)-'", group: 1 } } },
    ],
    ["a map transform is not inferred", { map: { a: "b" } }, { map: { a: "b" } }],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(migrateTransform(input)).toEqual(want));
});

describe("patches (upstream TestMigratePatch and TestMigrateMergeOptions)", () => {
  it("TransformArrayMissingFields", () => {
    const patch = {
      type: "FromCompositeFieldPath",
      fromFieldPath: "spec.id",
      toFieldPath: "spec.id",
      transforms: [{ string: { fmt: "test3-%s" } }, { math: { multiply: 1 } }],
    };
    expect(migratePatch(patch)).toEqual({
      ...patch,
      transforms: [
        { type: "string", string: { type: "Format", fmt: "test3-%s" } },
        { type: "math", math: { type: "Multiply", multiply: 1 } },
      ],
    });
  });
  it("PatchWithoutType", () =>
    expect(migratePatch({ fromFieldPath: "spec.id", toFieldPath: "spec.id" })).toEqual({
      type: "FromCompositeFieldPath",
      fromFieldPath: "spec.id",
      toFieldPath: "spec.id",
    }));
  it("PatchWithoutTransforms", () => {
    const patch = { type: "FromCompositeFieldPath", fromFieldPath: "spec.id", toFieldPath: "spec.id" };
    expect(migratePatch(patch)).toEqual(patch);
  });
  const merge: [string, object | null, string | undefined][] = [
    ["Nil", null, undefined],
    ["KeepMapValuesTrueAppendSliceNil", { keepMapValues: true }, "MergeObjects"],
    ["KeepMapValuesTrueAppendSliceFalse", { keepMapValues: true, appendSlice: false }, "MergeObjects"],
    ["KeepMapValuesNilAppendSliceTrue", { appendSlice: true }, "ForceMergeObjectsAppendArrays"],
    ["AppendSliceTrueKeepMapValuesFalse", { appendSlice: true, keepMapValues: false }, "ForceMergeObjectsAppendArrays"],
    ["Empty", {}, "ForceMergeObjects"],
    ["KeepMapValuesNilAppendSliceFalse", { appendSlice: false }, "ForceMergeObjects"],
    ["AppendSliceNilKeepMapValuesFalse", { keepMapValues: false }, "ForceMergeObjects"],
    ["AppendSliceFalseKeepMapValuesFalse", { appendSlice: false, keepMapValues: false }, "ForceMergeObjects"],
    ["AppendSliceTrueKeepMapValuesTrue", { appendSlice: true, keepMapValues: true }, "MergeObjectsAppendArrays"],
  ];
  for (const [name, mergeOptions, want] of merge) {
    it(`mergeOptions ${name}`, () => {
      const out = migratePatch({ type: "FromCompositeFieldPath", fromFieldPath: "a", policy: { mergeOptions } }) as { policy: Record<string, unknown> };
      expect(out.policy).toEqual(want ? { toFieldPath: want } : {});
    });
  }
});

describe("legacy Compositions render with the converter's defaults", () => {
  it("typeless string and math transforms and connection details of v1 Compositions render", async () => {
    const dir = tempRepo({
      "xrd.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xdbs.example.org}
spec:
  group: example.org
  names: {kind: XDB, plural: xdbs}
  claimNames: {kind: DB, plural: dbs}
  versions:
    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}}
`,
      "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xdbs}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XDB}
  resources:
    - base: {apiVersion: v1, kind: ConfigMap, data: {}}
      patches:
        - fromFieldPath: spec.size
          toFieldPath: data.size
          transforms:
            - math: {multiply: 2}
            - {type: convert, convert: {toType: string}}
            - string: {fmt: "%s GiB"}
`,
      "claim.yaml": "apiVersion: example.org/v1\nkind: DB\nmetadata: {name: d, namespace: default}\nspec: {size: 5}\n",
      ".composition-ci.yaml": "crossplaneVersion: 1\n",
    });
    const { code, stdout, stderr } = await runCli(["render", "--all", "."], dir);
    expect(stderr).toContain("rendered 1 of 1 sources");
    expect(code).toBe(0);
    expect(stdout).toContain("size: 10 GiB");
  });
});
