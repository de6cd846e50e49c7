import { mayBeMatched, type UserInfo, type PolicyTarget, admitted, runPolicies, type PolicyRun, type RepositoryPolicies } from "../policy/index.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import type { JsonObject } from "../core/json.js";
import { CLAIM_XR_KEY, renderedObjectName, type RenderedSource } from "../rendered/source.js";
import { templateOf } from "./validate-rendered.js";

/**
 * Who creates composed resources: Crossplane's service account (`namespace/name`, by default
 * crossplane-system/crossplane), as the API server names a service account's user.
 */
export function crossplaneUser(serviceAccount = "crossplane-system/crossplane"): UserInfo {
  const [namespace, name] = serviceAccount.split("/") as [string, string];
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
  };
}

/**
 * Every object a source rendered (composed resources, nested XRs, workloads and traits, a kpt
 * package's output), created by Crossplane's service account: a violation is placed at the
 * template that produced the object (its base's line) or else on the source, naming the source.
 * `old`: the base side's objects by key (diff), which make the request an UPDATE.
 */
export function checkRendered(
  policies: RepositoryPolicies,
  sources: readonly RenderedSource[],
  registry: SchemaRegistry,
  old?: (source: RenderedSource, key: string) => JsonObject | undefined,
  serviceAccount?: string,
): PolicyRun {
  if (!policies.set.policies.length) return { findings: [], explain: [] };
  const userInfo = crossplaneUser(serviceAccount);
  const targets: PolicyTarget[] = [];
  for (const s of sources) {
    if (s.claimXr && mayBeMatched(policies.set, { object: s.claimXr }, policies.resourceFor) && !deniedAsWritten(s, policies, registry))
      targets.push(claimXrTarget(s, s.claimXr, registry, userInfo, old));
    if (!s.ok) continue;
    s.objects.forEach((raw, i) => {
      const o = raw as JsonObject;
      if (!mayBeMatched(policies.set, { object: o }, policies.resourceFor)) return;
      const key = s.keys[i] ?? "";
      const template = key.includes(" > ") ? undefined : templateOf(s, o);
      const previous = old?.(s, key);
      targets.push({
        object: admitted(o, registry, s.source.file),
        ...(previous ? { oldObject: admitted(previous, registry, s.source.file), operation: "UPDATE" as const } : {}),
        userInfo,
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

/** The XR Crossplane creates for a claim: a violation is placed on the claim's field it copies. */
function claimXrTarget(
  s: RenderedSource,
  xr: JsonObject,
  registry: SchemaRegistry,
  userInfo: UserInfo,
  old?: (source: RenderedSource, key: string) => JsonObject | undefined,
): PolicyTarget {
  const previous = old?.(s, CLAIM_XR_KEY);
  return {
    object: admitted(xr, registry, s.source.file),
    ...(previous ? { oldObject: admitted(previous, registry, s.source.file), operation: "UPDATE" as const } : {}),
    userInfo,
    source: `${String(xr.kind)} created for ${s.source.kind} ${s.source.name ?? ""} (${s.source.file})`,
    locate: (pointer) => ({ file: s.source.file, ...s.source.locate(pointer.startsWith("/spec") ? pointer : "") }),
  };
}

/** A claim a policy certainly denies (its own finding says so) never gets an XR: the XR is not admitted too. */
function deniedAsWritten(s: RenderedSource, policies: RepositoryPolicies, registry: SchemaRegistry): boolean {
  const claim = s.source;
  const target = {
    object: admitted(claim.object as JsonObject, registry, claim.file),
    locate: (pointer: string) => ({ file: claim.file, ...claim.locate(pointer) }),
  };
  return runPolicies(policies, [target]).findings.some((f) => f.severity === "error");
}
