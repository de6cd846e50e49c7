import type { Manifest } from "../../manifest/manifest.js";
import type { RepoIndex } from "../../validate/repo-index.js";
import {
  definitionRefName,
  kindOfDefinition,
  type Kind,
  TRAIT_PROPERTIES_FIELD,
  TRAIT_TYPE_LABEL,
  WORKLOAD_TYPE_LABEL,
} from "../../validate/oam-definitions.js";
import { asObject, asString } from "../../validate/rules/context.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * The runtime's mutating webhooks, applied before rendering: a Component workload given as
 * `type: <WorkloadDefinition>` and a trait given as `{name: <TraitDefinition>, properties}` become
 * the kind the definition's CRD names (its group and first version).
 */

export type Expanded = { object: JsonObject } | { error: string };

function metadata(o: JsonObject): JsonObject {
  return (o.metadata ??= {}) as JsonObject;
}

/** The Component's workload with its typed form expanded, as the Component webhook stores it. */
export function expandWorkload(component: Manifest, index: RepoIndex): Expanded {
  const raw = asObject(asObject(component.object.spec)?.workload);
  if (!raw) return { error: "the Component has no spec.workload" };
  const workload = cloneJson(raw) as JsonObject;
  const type = workload.type;
  if (type === undefined) return checked(workload, "the workload has neither apiVersion and kind nor a type naming a WorkloadDefinition");
  if (typeof type !== "string") return { error: "workload content has an unknown type field" };
  const kind = typedKind(type, "WorkloadDefinition", index.workloadDefinitions, index);
  if ("error" in kind) return kind;
  delete workload.type;
  Object.assign(workload, kind);
  const meta = metadata(workload);
  // The webhook replaces the workload's labels and annotations with the Component's.
  meta.labels = { ...(component.object.metadata?.labels ?? {}), [WORKLOAD_TYPE_LABEL]: type };
  if (component.object.metadata?.annotations) meta.annotations = { ...component.object.metadata.annotations };
  else delete meta.annotations;
  if (component.namespace) meta.namespace = component.namespace;
  return { object: workload };
}

/** A trait with its typed form expanded, as the ApplicationConfiguration webhook stores it. */
export function expandTrait(raw: Record<string, unknown>, index: RepoIndex): Expanded {
  const trait = cloneJson(raw) as JsonObject;
  const type = trait.name;
  if (type === undefined) return checked(trait, "the trait has neither apiVersion and kind nor a name naming a TraitDefinition");
  if (typeof type !== "string") return { error: "name of trait should be string" };
  const kind = typedKind(type, "TraitDefinition", index.traitDefinitions, index);
  if ("error" in kind) return kind;
  delete trait.name;
  if (trait[TRAIT_PROPERTIES_FIELD] !== undefined) {
    trait.spec = trait[TRAIT_PROPERTIES_FIELD];
    delete trait[TRAIT_PROPERTIES_FIELD];
  }
  Object.assign(trait, kind);
  const meta = metadata(trait);
  meta.labels = { ...((meta.labels ?? {}) as Record<string, string>), [TRAIT_TYPE_LABEL]: type };
  return { object: trait };
}

function checked(o: JsonObject, error: string): Expanded {
  return asString(o.apiVersion) && asString(o.kind) ? { object: o } : { error };
}

/** The kind a typed form's definition stands for, or why it cannot be known. */
function typedKind(type: string, what: string, definitions: Map<string, Manifest>, index: RepoIndex): Kind | { error: string } {
  const definition = definitions.get(type);
  if (!definition) return { error: `no ${what} "${type}" in the repository` };
  return kindOfDefinition(definition, index) ?? { error: `the CRD "${definitionRefName(definition) ?? ""}" of ${what} "${type}" is not in the repository` };
}
