import { groupOf } from "../../manifest/manifest.js";
import { resolveResource } from "../resources.js";
import { matchesSelector, labelsOf, type LabelSelector } from "../selector.js";
import type { EvalContext } from "../policy.js";
import type { Admission } from "../request.js";
import type { JsonObject } from "../../core/json.js";

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: "Allow" | "Deny";
}

export type Params = { params: (JsonObject | null)[] } | { deny: string } | { skip: true } | { error: string };

/** The param objects a binding gives one request (the API server's collectParams). */
export function paramsFor(paramKind: { apiVersion?: string; kind?: string } | undefined, ref: ParamRef | undefined, a: Admission, ctx: EvalContext): Params {
  if (!paramKind?.kind) return ref ? { error: "paramRef is set but the policy has no paramKind" } : { params: [null] };
  if (!ref) return { params: [null] };
  const group = groupOf(paramKind.apiVersion ?? "");
  const candidates = ctx.objectsOfKind(group, paramKind.kind);
  const scope = resolveResource(ctx.resourceFor, {
    apiVersion: paramKind.apiVersion ?? "",
    kind: paramKind.kind,
    metadata: { namespace: candidates.some((c) => namespaceOf(c)) ? "x" : undefined },
  });
  let namespace = ref.namespace ?? "";
  if (!namespace && scope.namespaced) {
    if (!a.namespace) return { error: "cannot use a namespaced paramRef in a policy binding that matches a cluster-scoped resource" };
    namespace = a.namespace;
  }
  const inScope = candidates.filter((c) => (scope.namespaced ? (namespaceOf(c) || "default") === namespace : true));
  const found =
    ref.name !== undefined && ref.name !== ""
      ? inScope.filter((c) => nameOf(c) === ref.name)
      : inScope.filter((c) => matchesSelector(ref.selector ?? {}, labelsOf(c)));
  if (found.length > 0) return { params: found };
  if (ref.parameterNotFoundAction === "Deny")
    return { deny: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction" };
  return { skip: true };
}

function namespaceOf(o: JsonObject): string {
  const ns = (o.metadata as JsonObject | undefined)?.namespace;
  return typeof ns === "string" ? ns : "";
}

function nameOf(o: JsonObject): string {
  const name = (o.metadata as JsonObject | undefined)?.name;
  return typeof name === "string" ? name : "";
}
