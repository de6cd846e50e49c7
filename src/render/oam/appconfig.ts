import type { Manifest } from "../../manifest/manifest.js";
import { setValue } from "../../manifest/fieldpath.js";
import type { RepoIndex } from "../../validate/repo-index.js";
import { resolveTrait } from "../../validate/oam-definitions.js";
import { asArray, asObject, asString, FindingSink, ptr } from "../../validate/rules/context.js";
import { checkDataDependencies, checkParameters, componentOfEntry } from "../../validate/rules/oam.js";
import type { JsonObject } from "../../core/json.js";
import { controllerReference } from "../owner.js";
import { renderedObjectKey, type RenderedSource } from "../../rendered/source.js";
import { dataInputs, dataOutputs, passData, type DataNode } from "./data-passing.js";
import { renderScopes, scopeRefs, type ScopeRef } from "./scopes.js";
import { traitName } from "./trait-name.js";
import { expandTrait, expandWorkload } from "./webhook.js";

/**
 * One OAM v1alpha2 ApplicationConfiguration rendered into the workloads, traits and scopes the
 * OAM Kubernetes runtime would create (crossplane/oam-kubernetes-runtime's render and apply),
 * with no cluster: names, labels, owner references, parameters, workloadRef, data passing.
 */

export const OAM_LABELS = {
  appName: "app.oam.dev/name",
  component: "app.oam.dev/component",
  revision: "app.oam.dev/revision",
  resourceType: "app.oam.dev/resourceType",
} as const;

export interface OamRenderOptions {
  /** Definitions the cluster has that the repository does not (config `clusterDefinitions`). */
  clusterDefinitions: string[];
}

interface RenderedComponent {
  name: string;
  /** Traits whose names are generated (a hash of their entry) are known by component, kind and index. */
  generatedKeys: [JsonObject, string][];
  at: string;
  workload: DataNode;
  traits: DataNode[];
  scopes: ScopeRef[];
}

export const OAM_VIA = "the OAM runtime";

export function renderAppConfig(ac: Manifest, index: RepoIndex, options: OamRenderOptions): RenderedSource {
  const sink = new FindingSink();
  const entries = asArray(asObject(ac.object.spec)?.components).map((c) => asObject(c) ?? {});
  const components = entries.flatMap((entry, i) => renderComponent(ac, entry, i, index, options, sink) ?? []);
  const dependencyErrors = new FindingSink();
  checkDataDependencies(ac, entries, dependencyErrors);
  noteStoreBasedPassing(ac, entries, sink);
  const findings = () => [...sink.findings, ...dependencyErrors.findings];
  const nodes = components.flatMap((c) => [c.workload, ...c.traits]);
  // The runtime renders nothing when a component fails or an input names no dataOutput (a cycle only waits).
  const produced = new Set(nodes.flatMap((n) => n.outputs.map((o) => o.name)));
  const unproduced = nodes.some((n) => n.inputs.some((input) => !produced.has(input.outputName)));
  if (unproduced || sink.findings.some((f) => f.severity === "error")) {
    return { source: ac, via: OAM_VIA, documents: [], objects: [], keys: [], ok: false, findings: findings() };
  }
  const generatedKeys = new Map(components.flatMap((c) => c.generatedKeys));
  const { created, waiting } = passData(nodes, ac.object as JsonObject);
  const componentOf = new Map(components.flatMap((c) => [c.workload, ...c.traits].map((n) => [n, c.name] as const)));
  for (const w of waiting) {
    const o = w.node.object;
    const message = `${String(o.kind)} "${objectName(o)}" of component "${componentOf.get(w.node) ?? ""}" is not rendered: waiting on dataOutput "${w.input.outputName}": ${w.reason}`;
    sink.add(ac, w.input.at, "render/oam-waiting", "info", message);
  }
  const rendered = (role: "workload" | "traits") =>
    components.flatMap((c) => (role === "workload" ? [c.workload] : c.traits).filter((n) => created.has(n)).map((n) => ({ c: c.name, o: n.object })));
  const scopes = renderScopes(
    ac,
    components.map((c) => ({ at: c.at, refs: c.scopes, workload: created.has(c.workload) ? c.workload.object : undefined })),
    index,
    sink,
  );
  const objects = [...sortObjects(rendered("workload")), ...sortObjects(rendered("traits")), ...sortObjects(scopes.map((o) => ({ c: "", o })))];
  const keys = objects.map((o) => generatedKeys.get(o) ?? renderedObjectKey(o));
  // The runtime names a trait without metadata.name once, then finds that name in the status (getTraitName).
  const namesKept = objects.filter((o) => generatedKeys.has(o)).map((o) => generatedKeys.get(o)!);
  return { source: ac, via: OAM_VIA, documents: objects, objects, keys, ...(namesKept.length ? { namesKept } : {}), ok: true, findings: findings() };
}

function renderComponent(
  ac: Manifest,
  entry: Record<string, unknown>,
  i: number,
  index: RepoIndex,
  options: OamRenderOptions,
  sink: FindingSink,
): RenderedComponent | undefined {
  const at = ptr("spec", "components", i);
  const { name, component } = componentOfEntry(ac, entry, at, index, sink);
  if (!name || !component) return undefined;
  const errorsBefore = sink.findings.length;
  checkParameters(ac, entry, at, component, sink);
  if (sink.findings.length > errorsBefore) return undefined;
  const fail = (pointer: string, message: string) => {
    sink.add(ac, pointer, "render/oam-failed", "error", message);
    return undefined;
  };
  const expanded = expandWorkload(component, index);
  if ("error" in expanded) return fail(at, `cannot render workload for component "${name}": ${expanded.error}`);
  const workload = expanded.object;
  const parameterError = applyParameters(workload, component, entry);
  if (parameterError) return fail(at, `cannot render workload for component "${name}": ${parameterError}`);
  const revision = revisionOf(entry, component, name);
  const labels = { [OAM_LABELS.appName]: ac.name ?? "", [OAM_LABELS.component]: name, [OAM_LABELS.revision]: revision };
  own(workload, ac, { ...labels, [OAM_LABELS.resourceType]: "WORKLOAD" });
  const traits: { node: DataNode; definition?: Manifest }[] = [];
  const generatedKeys: [JsonObject, string][] = [];
  for (const [j, raw] of asArray(entry.traits).entries()) {
    const traitEntry = asObject(raw) ?? {};
    const tAt = `${at}/traits/${j}`;
    const trait = renderTrait(traitEntry, name, index, options);
    if ("error" in trait) return fail(`${tAt}/trait`, `cannot render trait for component "${name}": ${trait.error}`);
    if (trait.generated) generatedKeys.push([trait.object, `${String(trait.object.kind)}/${name}/traits[${j}]`]);
    own(trait.object, ac, { ...labels, [OAM_LABELS.resourceType]: "TRAIT" });
    traits.push({ node: { object: trait.object, inputs: dataInputs(traitEntry, tAt), outputs: dataOutputs(traitEntry) }, definition: trait.definition });
  }
  const meta = workload.metadata as JsonObject;
  if (!meta.name) meta.name = traits.some((t) => asObject(t.definition?.object.spec)?.revisionEnabled === true) ? revision : component.name;
  const refError = injectWorkloadRefs(workload, traits);
  if (refError) return fail(at, refError);
  return {
    name,
    generatedKeys,
    at,
    workload: { object: workload, inputs: dataInputs(entry, at), outputs: dataOutputs(entry) },
    traits: traits.map((t) => t.node),
    scopes: scopeRefs(entry, at),
  };
}

function renderTrait(
  traitEntry: Record<string, unknown>,
  componentName: string,
  index: RepoIndex,
  options: OamRenderOptions,
): { error: string } | { object: JsonObject; definition?: Manifest; generated: boolean } {
  const raw = asObject(traitEntry.trait);
  if (!raw) return { error: "the entry has no trait" };
  const expanded = expandTrait(raw, index);
  if ("error" in expanded) return expanded;
  const resolved = resolveTrait(expanded.object, index);
  const installed = resolved.definitionName !== undefined && options.clusterDefinitions.includes(resolved.definitionName);
  const definitionName = resolved.definition?.name ?? (installed ? resolved.definitionName : undefined);
  const trait = expanded.object;
  const meta = (trait.metadata ??= {}) as JsonObject;
  const generated = !meta.name;
  if (generated) meta.name = traitName(componentName, definitionName, { ...traitEntry, trait: expanded.object });
  return { object: trait, definition: resolved.definition, generated };
}

/** OAM labels, then the ApplicationConfiguration's labels and annotations (which win), owner and namespace. */
function own(o: JsonObject, ac: Manifest, labels: Record<string, string>): void {
  const meta = (o.metadata ??= {}) as JsonObject;
  const acMeta = ac.object.metadata ?? {};
  meta.labels = { ...((meta.labels ?? {}) as Record<string, string>), ...labels, ...(acMeta.labels ?? {}) };
  const annotations = { ...((meta.annotations ?? {}) as Record<string, string>), ...(acMeta.annotations ?? {}) };
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  meta.ownerReferences = [controllerReference(ac.object as JsonObject)];
  if (ac.namespace) meta.namespace = ac.namespace;
  else delete meta.namespace;
}

/**
 * Parameter values written to every field path of their parameter: strings as strings, integers
 * as numbers (the runtime's int-or-string). Returns the runtime's error, if any.
 */
function applyParameters(workload: JsonObject, component: Manifest, entry: Record<string, unknown>): string | undefined {
  const declared = new Map(asArray(asObject(component.object.spec)?.parameters).map((p) => [asString(asObject(p)?.name), asObject(p) ?? {}] as const));
  for (const raw of asArray(entry.parameterValues)) {
    const { name, value } = asObject(raw) ?? {};
    const parameter = declared.get(asString(name));
    if (!parameter) continue;
    if (typeof value !== "string" && !Number.isInteger(value)) return `cannot set parameter "${String(name)}": the value must be a string or an integer`;
    for (const path of asArray(parameter.fieldPaths)) {
      try {
        setValue(workload, String(path), value);
      } catch (err) {
        return `cannot set parameter "${String(name)}": ${(err as Error).message}`;
      }
    }
  }
  return undefined;
}

/** `workloadRef` at each TraitDefinition's `workloadRefPath`, and nowhere else. */
function injectWorkloadRefs(workload: JsonObject, traits: { node: DataNode; definition?: Manifest }[]): string | undefined {
  const ref = { apiVersion: workload.apiVersion, kind: workload.kind, name: objectName(workload) };
  for (const { node, definition } of traits) {
    const path = asString(asObject(definition?.object.spec)?.workloadRefPath);
    if (!path) continue;
    try {
      setValue(node.object, path, ref);
    } catch (err) {
      return `cannot set workloadRef of trait "${objectName(node.object)}" at ${path}: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/**
 * The Component revision the entry binds: `revisionName`, else the Component's recorded
 * `status.latestRevision.name`, else `<component>-v1`, the first revision the runtime creates.
 */
function revisionOf(entry: Record<string, unknown>, component: Manifest, name: string): string {
  const recorded = asString(asObject(asObject(component.object.status)?.latestRevision)?.name);
  return asString(entry.revisionName) ?? recorded ?? `${name}-v1`;
}

/** Store-based data passing (outputStore / inputStore) needs the runtime's store objects: said, not rendered. */
function noteStoreBasedPassing(ac: Manifest, entries: Record<string, unknown>[], sink: FindingSink): void {
  const holders = entries.flatMap((entry, i) => {
    const at = ptr("spec", "components", i);
    return [{ holder: entry, at }, ...asArray(entry.traits).map((t, j) => ({ holder: asObject(t) ?? {}, at: `${at}/traits/${j}` }))];
  });
  for (const { holder, at } of holders) {
    for (const [field, store] of [
      ["dataOutputs", "outputstore"],
      ["dataInputs", "inputstore"],
    ] as const) {
      asArray(holder[field]).forEach((item, k) => {
        const key = Object.keys(asObject(item) ?? {}).find((key) => key.toLowerCase() === store);
        if (!key) return;
        sink.add(
          ac,
          `${at}/${field}/${k}/${key}`,
          "render/oam-unsupported",
          "warning",
          `store-based data passing (${key}) is not rendered offline: the objects are rendered without the data it would pass`,
        );
      });
    }
  }
}

function objectName(o: JsonObject): string {
  return String((o.metadata as JsonObject | undefined)?.name ?? "");
}

function sortObjects(items: { c: string; o: JsonObject }[]): JsonObject[] {
  const key = ({ c, o }: { c: string; o: JsonObject }) => [c, String(o.kind), objectName(o)];
  return items
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
      return 0;
    })
    .map(({ o }) => o);
}
