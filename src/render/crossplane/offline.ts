import type { JsonObject } from "../../core/json.js";
import { toPipelineComposition } from "./convert.js";

/**
 * What a render cannot know offline: fields of the XR that patches fill from observed state
 * (a composed resource's status, its uid or external name), which only a cluster has. Reports say
 * so where such a field shows, instead of implying the value is empty for good.
 */
export function observedReads(composition: JsonObject): string[] {
  const spec = toPipelineComposition(composition).spec as { pipeline?: unknown[] } | undefined;
  const reads = new Set<string>();
  for (const step of spec?.pipeline ?? []) {
    const input = (step as { input?: { kind?: unknown; resources?: unknown } } | null)?.input;
    if (input?.kind !== "Resources" || !Array.isArray(input.resources)) continue;
    for (const resource of input.resources as { base?: { kind?: unknown }; patches?: unknown }[]) {
      const kind = typeof resource?.base?.kind === "string" ? resource.base.kind : "resource";
      for (const patch of Array.isArray(resource?.patches) ? resource.patches : []) {
        const p = (patch ?? {}) as { type?: unknown; fromFieldPath?: unknown; toFieldPath?: unknown; combine?: { variables?: { fromFieldPath?: unknown }[] } };
        if (p.type !== "ToCompositeFieldPath" && p.type !== "CombineToComposite") continue;
        const from = p.type === "ToCompositeFieldPath" ? [p.fromFieldPath] : (p.combine?.variables ?? []).map((v) => v?.fromFieldPath);
        const observed = from.filter((f): f is string => typeof f === "string" && isObservedOnly(f));
        const to = typeof p.toFieldPath === "string" ? p.toFieldPath : typeof p.fromFieldPath === "string" ? p.fromFieldPath : undefined;
        if (observed.length && to) reads.add(`${to} ← ${kind} ${observed.join(", ")}`);
      }
    }
  }
  return [...reads].sort();
}

function isObservedOnly(fieldPath: string): boolean {
  return fieldPath.startsWith("status.") || fieldPath === "status" || fieldPath === "metadata.uid" || fieldPath.includes("crossplane.io/external-name");
}
