import type { JsonObject } from "../../../core/json.js";
import { expandWildcards, getValue, mergeValue, type MergeOptions } from "../../../manifest/fieldpath.js";
import { goSprintf } from "../gofmt.js";
import { toPlainJson } from "../gotypes.js";
import { wrapping } from "./errors.js";
import { resolveTransforms } from "./transforms.js";
import type { Combine, ComposedTemplate, Patch, PatchSet } from "./types.js";
import { patchType, toFieldPathPolicy } from "./validate.js";

function toPath(p: Patch): string {
  return p.toFieldPath ?? p.fromFieldPath ?? "";
}

function mergeOptions(p: Patch): MergeOptions | undefined {
  if (!p.policy) return undefined;
  switch (toFieldPathPolicy(p)) {
    case "Replace":
      return undefined;
    case "MergeObjects":
    case "MergeObject":
      return { keepMapValues: true };
    case "MergeObjectsAppendArrays":
      return { keepMapValues: true, appendSlice: true };
    case "ForceMergeObjects":
      return { keepMapValues: false };
    case "ForceMergeObjectsAppendArrays":
    case "AppendArray":
      return { appendSlice: true };
    default:
      throw new Error(`invalid patch policy ${toFieldPathPolicy(p)}`);
  }
}

/** Reads `fromFieldPath` on `from`, transforms it and writes it at `toFieldPath` on `to`. */
export function applyFromFieldPathPatch(p: Patch, from: JsonObject, to: JsonObject): void {
  const input = getValue(from, p.fromFieldPath ?? "");
  const value = toPlainJson(resolveTransforms(p.transforms, input));
  const options = mergeOptions(p);
  const path = toPath(p);
  if (path.includes("[*]")) {
    const paths = expandWildcards(to, path);
    if (paths.length === 0) throw new Error(`cannot expand ToFieldPath ${path}`);
    for (const expanded of paths) mergeValue(to, expanded, value, options);
    return;
  }
  wrapping("cannot patch to object", () => mergeValue(to, path, value, options));
}

/** Reads every combine variable on `from`, combines, transforms and writes the result on `to`. */
export function applyCombineFromVariablesPatch(p: Patch, from: JsonObject, to: JsonObject): void {
  const combine = p.combine ?? {};
  const values = (combine.variables ?? []).map((v) => getValue(from, v.fromFieldPath ?? ""));
  const combined = combineValues(combine, values);
  const value = toPlainJson(resolveTransforms(p.transforms, combined));
  const options = mergeOptions(p);
  wrapping("cannot patch to object", () => mergeValue(to, toPath(p), value, options));
}

function combineValues(c: Combine, values: unknown[]): unknown {
  if (c.strategy !== "string") throw new Error(`combine strategy ${c.strategy ?? ""} is not supported`);
  if (!c.string) throw new Error(`given combine strategy ${c.strategy} requires configuration`);
  return goSprintf(c.string.fmt ?? "", values);
}

/** The templates with every `PatchSet` patch replaced, in place, by the named set's patches. */
export function composedTemplates(patchSets: PatchSet[] | undefined, templates: ComposedTemplate[] | undefined): ComposedTemplate[] {
  const sets = new Map<string, Patch[]>();
  for (const s of patchSets ?? []) {
    if ((s.patches ?? []).some((p) => patchType(p) === "PatchSet")) {
      throw new Error("a patch in a PatchSet cannot be of type PatchSet");
    }
    sets.set(
      s.name ?? "",
      (s.patches ?? []).map((p) => ({ ...p, type: patchType(p) })),
    );
  }
  return (templates ?? []).map((t) => {
    const patches: Patch[] = [];
    for (const p of t.patches ?? []) {
      if (patchType(p) !== "PatchSet") {
        patches.push(p);
        continue;
      }
      if (p.patchSetName == null) throw new Error(`PatchSetName is required by type ${patchType(p)}`);
      const set = sets.get(p.patchSetName);
      if (!set) throw new Error(`cannot find PatchSet by name ${p.patchSetName}`);
      patches.push(...set);
    }
    return { ...t, patches };
  });
}

/** True when the patch writes to a composed resource (rather than reading from one). */
export function toComposedResource(p: Patch): boolean {
  return ["FromCompositeFieldPath", "CombineFromComposite", "FromEnvironmentFieldPath", "CombineFromEnvironment"].includes(patchType(p));
}

export interface PatchTargets {
  observedComposed?: JsonObject;
  desiredComposed: JsonObject;
  observedComposite: JsonObject;
  desiredComposite: JsonObject;
  environment: JsonObject;
}

/** Applies one patch of a resource template (always from observed state to desired state). */
export function applyComposedPatch(p: Patch, t: PatchTargets): void {
  const ocd = t.observedComposed;
  if (!ocd && !toComposedResource(p)) return;
  switch (patchType(p)) {
    case "ToCompositeFieldPath":
      return applyFromFieldPathPatch(p, ocd!, t.desiredComposite);
    case "CombineToComposite":
      return applyCombineFromVariablesPatch(p, ocd!, t.desiredComposite);
    case "ToEnvironmentFieldPath":
      return applyFromFieldPathPatch(p, ocd!, t.environment);
    case "CombineToEnvironment":
      return applyCombineFromVariablesPatch(p, ocd!, t.environment);
    case "FromCompositeFieldPath":
      return applyFromFieldPathPatch(p, t.observedComposite, t.desiredComposed);
    case "CombineFromComposite":
      return applyCombineFromVariablesPatch(p, t.observedComposite, t.desiredComposed);
    case "FromEnvironmentFieldPath":
      return applyFromFieldPathPatch(p, t.environment, t.desiredComposed);
    case "CombineFromEnvironment":
      return applyCombineFromVariablesPatch(p, t.environment, t.desiredComposed);
  }
}

/** Applies an environment patch: to the environment from the observed XR, or from it to the desired XR. */
export function applyEnvironmentPatch(p: Patch, env: JsonObject, oxr: JsonObject, dxr: JsonObject): void {
  switch (patchType(p)) {
    case "FromCompositeFieldPath":
    case "ToEnvironmentFieldPath":
      return applyFromFieldPathPatch(p, oxr, env);
    case "CombineFromComposite":
      return applyCombineFromVariablesPatch(p, oxr, env);
    case "ToCompositeFieldPath":
    case "FromEnvironmentFieldPath":
      return applyFromFieldPathPatch(p, env, dxr);
    case "CombineToComposite":
      return applyCombineFromVariablesPatch(p, env, dxr);
  }
}
