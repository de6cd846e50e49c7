import { getValue, isNotFound, setValue } from "../../manifest/fieldpath.js";
import type { Manifest } from "../../manifest/manifest.js";
import type { RepoIndex } from "../../validate/repo-index.js";
import { resolveScope } from "../../validate/oam-definitions.js";
import { asArray, asObject, asString, type FindingSink } from "../../validate/rules/context.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * Scopes are not created by an ApplicationConfiguration: they exist on their own, and the runtime
 * records each workload in its scopes' `workloadRefs` (at the ScopeDefinition's
 * `workloadRefsPath`). Rendered here: the repository's scope objects as the runtime leaves them.
 */

export interface ScopeRef {
  apiVersion: string;
  kind: string;
  name: string;
  at: string;
}

export function scopeRefs(entry: Record<string, unknown>, at: string): ScopeRef[] {
  return asArray(entry.scopes).flatMap((raw, k) => {
    const ref = asObject(asObject(raw)?.scopeRef) ?? {};
    const [apiVersion, kind, name] = [asString(ref.apiVersion), asString(ref.kind), asString(ref.name)];
    return apiVersion && kind && name ? [{ apiVersion, kind, name, at: `${at}/scopes/${k}/scopeRef` }] : [];
  });
}

interface ScopeUse {
  refs: ScopeRef[];
  /** The component's workload, when it is created. */
  workload?: JsonObject;
}

interface RenderedScope {
  object: JsonObject;
  path?: string;
}

export function renderScopes(ac: Manifest, uses: ScopeUse[], index: RepoIndex, sink: FindingSink): JsonObject[] {
  const scopes = new Map<string, RenderedScope | null>();
  for (const { refs, workload } of uses) {
    for (const ref of refs) {
      const key = `${ref.apiVersion}|${ref.kind}|${ref.name}`;
      if (!scopes.has(key)) scopes.set(key, loadScope(ac, ref, index, sink));
      const scope = scopes.get(key);
      if (scope && workload) addWorkload(ac, ref, scope, workload, sink);
    }
  }
  return [...scopes.values()].flatMap((s) => (s ? [s.object] : []));
}

function loadScope(ac: Manifest, ref: ScopeRef, index: RepoIndex, sink: FindingSink): RenderedScope | null {
  const found = index.object(ref.apiVersion, ref.kind, ref.name, ac.namespace);
  if (!found) {
    sink.add(
      ac,
      ref.at,
      "render/oam-scope",
      "warning",
      `scope ${ref.kind} "${ref.name}" is not in the repository: the runtime reads it from the cluster, so its workloadRefs are not rendered`,
    );
    return null;
  }
  const object = cloneJson(found.object) as JsonObject;
  const meta = (object.metadata ??= {}) as JsonObject;
  if (!meta.namespace && ac.namespace) meta.namespace = ac.namespace;
  const definition = resolveScope(ref, index);
  if (!definition.definition) {
    sink.add(
      ac,
      ref.at,
      "render/oam-scope",
      "warning",
      `no ScopeDefinition "${definition.definitionName ?? ""}" in the repository: where ${ref.kind} records its workloads (workloadRefsPath) is unknown, so the scope is rendered unchanged`,
    );
    return { object };
  }
  return { object, path: asString(asObject(definition.definition.object.spec)?.workloadRefsPath) };
}

function addWorkload(ac: Manifest, ref: ScopeRef, scope: RenderedScope, workload: JsonObject, sink: FindingSink): void {
  if (!scope.path) return;
  const entry = { apiVersion: workload.apiVersion, kind: workload.kind, name: (workload.metadata as JsonObject).name };
  let refs: unknown = [];
  try {
    refs = getValue(scope.object, scope.path);
  } catch (err) {
    if (!isNotFound(err)) refs = undefined;
  }
  if (!Array.isArray(refs)) {
    sink.add(ac, ref.at, "render/oam-scope", "warning", `${ref.kind} "${ref.name}" has no list at ${scope.path}: the workload cannot be recorded in it`);
    return;
  }
  const known = refs.some((r) => asObject(r)?.apiVersion === entry.apiVersion && asObject(r)?.kind === entry.kind && asObject(r)?.name === entry.name);
  if (!known) setValue(scope.object, scope.path, [...refs, entry]);
}
