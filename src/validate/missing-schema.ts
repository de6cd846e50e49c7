import { isKubernetesBuiltInGroup, kubernetesKindVersions } from "./schemas/kubernetes.js";
import type { SchemaEntry, SchemaRegistry } from "./schemas/registry.js";
import { gvkLabel, type Gvk } from "./schemas/types.js";

/**
 * Why a kind has no schema, and what would give it one: a definition of the repository that
 * serves other versions of it, or other kinds of its group, is named (the fix is there); a
 * Kubernetes API the built-in schemas do not cover is said to be one; else where CRDs come from.
 */
export function missingSchemaMessage(gvk: Gvk, registry: SchemaRegistry, options: { packagesUnavailable: boolean }): string {
  const label = `no schema for ${gvkLabel(gvk)}`;
  const inGroup = definitionsByGroup(registry).get(gvk.group) ?? [];
  const sameKind = inGroup.filter((e) => e.gvk.kind === gvk.kind);
  if (sameKind.length) return `${label}: ${definer(sameKind[0]!)} defines ${gvk.kind} at ${versions(sameKind)} only, not ${gvk.version}`;
  if (inGroup.length) {
    const kinds = [...new Set(inGroup.map((e) => e.gvk.kind))].sort();
    const shown = kinds.length > 5 ? `${kinds.slice(0, 5).join(", ")} and ${kinds.length - 5} more` : kinds.join(", ");
    const who = inGroup.length > 1 ? `${definer(inGroup[0]!)} and others define` : `${definer(inGroup[0]!)} defines`;
    return `${label}: no definition here has the kind ${gvk.kind} in ${gvk.group} (${who} ${shown} there)`;
  }
  if (isKubernetesBuiltInGroup(gvk.group)) {
    const known = kubernetesKindVersions(gvk.group, gvk.kind);
    if (known.length)
      return `${label}: composition-ci has schemas for ${gvk.kind} at ${known.join(", ")} (Kubernetes' GA versions) only; a --schema-location with Kubernetes' JSON schemas checks this version`;
    return `${label}: not a kind composition-ci knows in Kubernetes' ${gvk.group || "core"} API group (a typo, a kind Kubernetes removed, or one it has no schema for; a --schema-location with Kubernetes' JSON schemas checks the last)`;
  }
  const fetched = options.packagesUnavailable ? "; or it comes from a package the repository depends on, which could not be fetched (package/unavailable)" : "";
  return `${label}: add its CRD to the repo or --crds, or a --schema-location${fetched}`;
}

/** The registry's definitions by API group, worked out once per registry (a run asks for every object without a schema). */
const byGroup = new WeakMap<SchemaRegistry, Map<string, SchemaEntry[]>>();
function definitionsByGroup(registry: SchemaRegistry): Map<string, SchemaEntry[]> {
  let groups = byGroup.get(registry);
  if (!groups) {
    groups = new Map();
    for (const e of registry.defined()) {
      if (!e.definedBy) continue;
      const list = groups.get(e.gvk.group);
      if (list) list.push(e);
      else groups.set(e.gvk.group, [e]);
    }
    byGroup.set(registry, groups);
  }
  return groups;
}

function definer(entry: SchemaEntry): string {
  const by = entry.definedBy!;
  return `${by.kind} ${by.name ?? ""} (${by.file})`;
}

function versions(entries: SchemaEntry[]): string {
  return [...new Set(entries.map((e) => e.gvk.version))].sort().join(", ");
}
