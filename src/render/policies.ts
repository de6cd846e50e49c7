import type { UserInfo, PolicyTarget } from "../policy/index.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import { defaulted, runPolicies, type PolicyRun, type RepositoryPolicies } from "../validate/policies.js";
import type { JsonObject } from "./functions/response.js";
import { renderedObjectName, type RenderedSource } from "./source.js";
import { templateOf } from "./validate-rendered.js";

/** Who creates composed resources: Crossplane's service account, as the API server sees it. */
export const CROSSPLANE_USER: UserInfo = {
  username: "system:serviceaccount:crossplane-system:crossplane",
  groups: ["system:serviceaccounts", "system:serviceaccounts:crossplane-system", "system:authenticated"],
};

/**
 * Every object a source rendered (composed resources, nested XRs, workloads and traits, a kpt
 * package's output), created by Crossplane's service account: a violation is placed at the
 * template that produced the object (its base's line) or else on the source, naming the source.
 * `old`: the base side's objects by key (diff), which make the request an UPDATE.
 */
export function checkRendered(policies: RepositoryPolicies, sources: readonly RenderedSource[], registry: SchemaRegistry, old?: (source: RenderedSource, key: string) => JsonObject | undefined): PolicyRun {
  if (!policies.set.policies.length) return { findings: [], explain: [] };
  const targets: PolicyTarget[] = [];
  for (const s of sources) {
    if (!s.ok) continue;
    s.objects.forEach((raw, i) => {
      const o = raw as JsonObject;
      const key = s.keys[i] ?? "";
      const template = key.includes(" > ") ? undefined : templateOf(s, o);
      const previous = old?.(s, key);
      targets.push({
        object: defaulted(o, registry, s.source.file),
        ...(previous ? { oldObject: defaulted(previous, registry, s.source.file), operation: "UPDATE" as const } : {}),
        userInfo: CROSSPLANE_USER,
        source: `rendered ${String(o.kind)} "${renderedObjectName(o)}" from ${s.source.kind} ${s.source.name ?? ""} (${s.source.file})`,
        locate: (pointer) => {
          if (template) return { file: template.composition.file, ...template.composition.locate(`${template.pointer}${pointer}`) };
          return { file: s.source.file, ...s.source.locate("") };
        },
      });
    });
  }
  return runPolicies(policies, targets);
}

