import type { JsonObject } from "../functions/response.js";

export const LEGACY_PT_FUNCTION = "function-patch-and-transform";

/**
 * Converts a `mode: Resources` Composition into a one-step Pipeline running
 * function-patch-and-transform, as `crossplane beta convert pipeline-composition` does.
 */
export function toPipelineComposition(composition: JsonObject): JsonObject {
  const spec = { ...((composition.spec ?? {}) as JsonObject) };
  const input: JsonObject = { apiVersion: "pt.fn.crossplane.io/v1beta1", kind: "Resources" };
  const resources = ((spec.resources ?? []) as JsonObject[]).map((r, i) => ({ ...r, name: r.name ?? `resource-${i}` }));
  if (resources.length) input.resources = resources;
  if (spec.patchSets) input.patchSets = spec.patchSets;
  const envPatches = (spec.environment as { patches?: unknown[] } | undefined)?.patches;
  if (envPatches?.length) input.environment = { patches: envPatches };
  for (const key of ["resources", "patchSets", "environment"]) delete spec[key];
  spec.mode = "Pipeline";
  spec.pipeline = [{ step: "patch-and-transform", functionRef: { name: LEGACY_PT_FUNCTION }, input }];
  return { ...composition, spec };
}
