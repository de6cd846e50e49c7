import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * `crossplane beta convert pipeline-composition` (crossplane v1.18–v1.20,
 * cmd/crank/beta/convert/pipelinecomposition and compositionenvironment): a `mode: Resources`
 * Composition becomes a Pipeline running function-patch-and-transform, with the defaults
 * Crossplane v1 used to fill in (patch and transform types, connection detail types, resource
 * names), and its native environment becomes a function-environment-configs step.
 */

export const LEGACY_PT_FUNCTION = "function-patch-and-transform";
export const LEGACY_ENVIRONMENT_FUNCTION = "function-environment-configs";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function toPipelineComposition(composition: JsonObject): JsonObject {
  if (!isObject(composition.spec) || composition.spec.mode === "Pipeline") return composition;
  const spec = cloneJson(composition.spec);
  spec.mode = "Pipeline";
  const input: JsonObject = { apiVersion: "pt.fn.crossplane.io/v1beta1", kind: "Resources" };
  migrateEnvironmentPatches(spec, input);
  if (spec.patchSets !== undefined) {
    input.patchSets = Array.isArray(spec.patchSets) ? spec.patchSets.map(migratePatchSet) : spec.patchSets;
    delete spec.patchSets;
  }
  if (spec.resources !== undefined) input.resources = Array.isArray(spec.resources) ? spec.resources.map(migrateResource) : spec.resources;
  delete spec.resources;
  const pipeline = Array.isArray(spec.pipeline) ? [...spec.pipeline] : [];
  pipeline[0] = { ...(isObject(pipeline[0]) ? pipeline[0] : {}), step: "patch-and-transform", functionRef: { name: LEGACY_PT_FUNCTION }, input };
  spec.pipeline = pipeline;
  return environmentConfigsStep({ ...composition, spec });
}

function migrateEnvironmentPatches(spec: JsonObject, input: JsonObject): void {
  const environment = spec.environment;
  if (!isObject(environment) || environment.patches === undefined) return;
  input.environment = { patches: Array.isArray(environment.patches) ? environment.patches.map(migratePatch) : environment.patches };
  delete environment.patches;
  if (Object.keys(environment).length === 0) delete spec.environment;
}

function migratePatchSet(set: unknown): unknown {
  if (!isObject(set) || !Array.isArray(set.patches)) return set;
  return { ...set, patches: set.patches.map(migratePatch) };
}

/** A resource without a `name` key is named by its index, as the converter does (an empty name stays). */
function migrateResource(resource: unknown, index: number): unknown {
  if (!isObject(resource)) return resource;
  const out = { ...resource };
  if (!("name" in out)) out.name = `resource-${index}`;
  if (Array.isArray(out.connectionDetails)) out.connectionDetails = out.connectionDetails.map(migrateConnectionDetail);
  if (Array.isArray(out.patches)) out.patches = out.patches.map(migratePatch);
  return out;
}

/**
 * A connection detail rebuilt from its name, value, fromConnectionSecretKey and fromFieldPath, with
 * its type inferred from the first of those it has (any `type` it had is not kept), and a
 * FromConnectionSecretKey detail named after its key when it has no name.
 */
export function migrateConnectionDetail(detail: unknown): unknown {
  if (!isObject(detail)) return detail;
  const out: JsonObject = {};
  for (const key of ["name", "value", "fromConnectionSecretKey", "fromFieldPath"]) if (typeof detail[key] === "string") out[key] = detail[key];
  const type =
    out.value !== undefined
      ? "FromValue"
      : out.fromFieldPath !== undefined
        ? "FromFieldPath"
        : out.fromConnectionSecretKey !== undefined
          ? "FromConnectionSecretKey"
          : undefined;
  if (type) out.type = type;
  if (type === "FromConnectionSecretKey" && out.name === undefined) out.name = out.fromConnectionSecretKey;
  return out;
}

/** A patch without a `type` is FromCompositeFieldPath; v1 mergeOptions become a toFieldPath policy. */
export function migratePatch(patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out = { ...patch };
  if (!("type" in out)) out.type = "FromCompositeFieldPath";
  if (isObject(out.policy)) {
    const policy = { ...out.policy };
    if (isObject(policy.mergeOptions)) policy.toFieldPath = mergePolicy(policy.mergeOptions);
    delete policy.mergeOptions;
    out.policy = policy;
  }
  if (Array.isArray(out.transforms)) out.transforms = out.transforms.map(migrateTransform);
  return out;
}

function mergePolicy(options: JsonObject): string {
  const append = options.appendSlice === true;
  const keep = options.keepMapValues === true;
  if (keep) return append ? "MergeObjectsAppendArrays" : "MergeObjects";
  return append ? "ForceMergeObjectsAppendArrays" : "ForceMergeObjects";
}

/**
 * The converter's setTransformTypeRequiredFields: only `math` and `string` transforms get a type
 * (a string block wins over a math block), and their own type from the field they set. Map,
 * match and convert transforms are not inferred: a typeless one stays without a type.
 */
export function migrateTransform(transform: unknown): unknown {
  if (!isObject(transform)) return transform;
  const out = { ...transform };
  if (!out.type) {
    if (isObject(out.math)) out.type = "math";
    if (isObject(out.string)) out.type = "string";
  }
  if (out.type === "math" && isObject(out.math) && !out.math.type) {
    const math = out.math;
    const type = math.clampMin !== undefined ? "ClampMin" : math.clampMax !== undefined ? "ClampMax" : math.multiply !== undefined ? "Multiply" : undefined;
    if (type) out.math = { ...math, type };
  }
  if (out.type === "string" && isObject(out.string) && !out.string.type) {
    const string = out.string;
    const type = string.fmt !== undefined ? "Format" : string.convert !== undefined ? "Convert" : string.regexp !== undefined ? "Regexp" : undefined;
    if (type) out.string = { ...string, type };
  }
  return out;
}

/**
 * The converter's second pass (compositionenvironment): the native environment's
 * `environmentConfigs`, `defaultData` and `policy.resolution` become the input of a
 * function-environment-configs step before patch-and-transform; the rest of it is dropped.
 */
function environmentConfigsStep(composition: JsonObject): JsonObject {
  const spec = composition.spec as JsonObject;
  const environment = spec.environment;
  if (!isObject(environment)) return composition;
  const inputSpec: JsonObject = {};
  if (environment.defaultData !== undefined) inputSpec.defaultData = environment.defaultData;
  if (environment.environmentConfigs !== undefined) inputSpec.environmentConfigs = environment.environmentConfigs;
  const resolution = isObject(environment.policy) ? environment.policy.resolution : undefined;
  if (typeof resolution === "string") inputSpec.policy = { resolution };
  if (Object.keys(inputSpec).length === 0) return composition;
  delete spec.environment;
  const step = {
    step: "environment-configs",
    functionRef: { name: LEGACY_ENVIRONMENT_FUNCTION },
    input: { apiVersion: "environmentconfigs.fn.crossplane.io/v1beta1", kind: "Input", spec: inputSpec },
  };
  spec.pipeline = [step, ...(spec.pipeline as unknown[])];
  return composition;
}
