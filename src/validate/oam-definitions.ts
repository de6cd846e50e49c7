import type { Manifest } from "../manifest/manifest.js";
import type { RepoIndex } from "./repo-index.js";
import { asObject, asString } from "./rules/context.js";

/**
 * How the OAM runtime finds the definition of a workload, trait or scope, and the kind a typed
 * form (`workload.type`, `trait.name`) stands for. Shared by the `oam/*` rules and the renderer.
 */

export interface Kind {
  apiVersion: string;
  kind: string;
}

/** A workload or trait and the definition that describes it. */
export interface Resolved {
  gvk?: Kind;
  /** The definition's name, or the name the runtime would look it up by. */
  definitionName?: string;
  definition?: Manifest;
  /** `definitionRef.name` of the definition (a CRD name, `<plural>.<group>`). */
  definitionRef?: string;
}

export const WORKLOAD_TYPE_LABEL = "workload.oam.dev/type";
export const TRAIT_TYPE_LABEL = "trait.oam.dev/type";
/** The field of a typed trait that becomes its `spec` (the mutating webhook's TraitSpecField). */
export const TRAIT_PROPERTIES_FIELD = "properties";

export function definitionRefName(definition: Manifest | undefined): string | undefined {
  return asString(asObject(asObject(definition?.object.spec)?.definitionRef)?.name);
}

/** The kind a definition stands for, from the CRD its definitionRef names (first version, as the webhook does). */
export function kindOfDefinition(definition: Manifest | undefined, index: RepoIndex): Kind | undefined {
  const crd = index.kindNamed(definitionRefName(definition) ?? "");
  if (!crd || crd.versions.length === 0) return undefined;
  return { apiVersion: `${crd.group}/${crd.versions[0]}`, kind: crd.kind };
}

export function resolveWorkload(workload: Record<string, unknown>, index: RepoIndex): Resolved {
  return resolve(workload, "type", WORKLOAD_TYPE_LABEL, index.workloadDefinitions, index);
}

export function resolveTrait(trait: Record<string, unknown>, index: RepoIndex): Resolved {
  return resolve(trait, "name", TRAIT_TYPE_LABEL, index.traitDefinitions, index);
}

/** A scope's definition: the ScopeDefinition whose definitionRef names the scope's resource. */
export function resolveScope(scope: Kind, index: RepoIndex): Resolved {
  const name = index.resourceName(scope.apiVersion, scope.kind);
  const definition = name ? index.scopeDefinitions.get(name) : undefined;
  return { gvk: scope, definitionName: name, definition, definitionRef: definitionRefName(definition) ?? name };
}

/**
 * Finds the definition of a workload or trait as the runtime does: by its typed-form field
 * (`type` / `name`, resolved by the mutating webhook), its type label, or `<plural>.<group>`.
 */
function resolve(object: Record<string, unknown>, typeField: string, typeLabel: string, definitions: Map<string, Manifest>, index: RepoIndex): Resolved {
  const type = asString(object[typeField]);
  const label = asString(asObject(asObject(object.metadata)?.labels)?.[typeLabel]);
  const apiVersion = asString(object.apiVersion);
  const kind = asString(object.kind);
  const gvk = apiVersion && kind ? { apiVersion, kind } : undefined;
  const name = type ?? label ?? (gvk && index.resourceName(gvk.apiVersion, gvk.kind));
  const definition = name ? definitions.get(name) : undefined;
  return {
    gvk: type ? kindOfDefinition(definition, index) : gvk,
    definitionName: name,
    definition,
    definitionRef: definitionRefName(definition) ?? (type ? undefined : name),
  };
}
