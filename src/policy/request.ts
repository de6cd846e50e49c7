import { createHash } from "node:crypto";
import { groupOf, versionOf } from "../manifest/manifest.js";
import { resolveResource } from "./resources.js";
import { toCel } from "../cel/values.js";
import type { Operation, PolicyTarget, ResourceFor, ResourceInfo } from "./types.js";
import type { JsonObject } from "../core/json.js";

/** A target as an admission request sees it, worked out once and read by every policy. */
export interface Admission {
  index: number;
  target: PolicyTarget;
  /** The object the request is about: the old object for a DELETE. */
  object: JsonObject;
  operation: Operation;
  group: string;
  version: string;
  kind: string;
  resource: ResourceInfo;
  name: string;
  /** "" for a cluster-scoped object. */
  namespace: string;
  /** The Namespace object of the target's namespace (the target itself for a Namespace), when known. */
  namespaceObject?: JsonObject;
  /** The request as CEL reads it (`object`, `oldObject`, `request`, `namespaceObject`), converted on first use. */
  cel(): CelRequest;
  /** What a policy format works out once per request and shares between its policies. */
  memo: Record<string, unknown>;
}

export interface CelRequest {
  values: Record<string, unknown>;
  widest: number;
  longestString: number;
}

export function admissionOf(target: PolicyTarget, index: number, resourceFor: ResourceFor | undefined, namespaces: Map<string, JsonObject>): Admission {
  const operation: Operation = target.operation ?? (target.oldObject ? "UPDATE" : "CREATE");
  const object = operation === "DELETE" && target.oldObject ? target.oldObject : target.object;
  const apiVersion = String(object.apiVersion ?? "");
  const kind = String(object.kind ?? "");
  const resource = resolveResource(resourceFor, object);
  const meta = (object.metadata ?? {}) as JsonObject;
  const name = typeof meta.name === "string" ? meta.name : typeof meta.generateName === "string" ? meta.generateName : "";
  const declared = typeof meta.namespace === "string" ? meta.namespace : "";
  const namespace = resource.namespaced ? declared || "default" : "";
  const namespaceObject = target.namespaceObject ?? (kind === "Namespace" && apiVersion === "v1" ? object : namespace ? namespaces.get(namespace) : undefined);
  let cel: CelRequest | undefined;
  const admission: Admission = {
    index,
    target,
    object,
    operation,
    group: groupOf(apiVersion),
    version: versionOf(apiVersion),
    kind,
    resource,
    name,
    namespace,
    namespaceObject,
    memo: {},
    cel() {
      if (!cel) {
        const parts = [toCel(operation === "DELETE" ? null : target.object), toCel(target.oldObject ?? null), toCel(namespaceObject ?? null)];
        const values = { object: parts[0]!.value, oldObject: parts[1]!.value, namespaceObject: parts[2]!.value } as Record<string, unknown>;
        // The request is converted only when an expression reads it (its values are small: names, the user).
        let request: unknown;
        Object.defineProperty(values, "request", { enumerable: true, get: () => (request ??= toCel(requestOf(admission)).value) });
        cel = { values, widest: Math.max(...parts.map((p) => p.widest)), longestString: Math.max(...parts.map((p) => p.longestString)) };
      }
      return cel;
    },
  };
  return admission;
}

const NO_VARIABLES = Object.freeze(Object.create(null) as Record<string, unknown>);

/** What CEL reads for one request and one param (null for none): memoized for the common case of no param. */
export function activation(a: Admission, param: JsonObject | null): { values: Record<string, unknown>; widest: number; longestString: number } {
  if (param === null && a.memo.celActivation) return a.memo.celActivation as ReturnType<typeof activation>;
  const request = a.cel();
  const p = toCel(param);
  const values = Object.create(request.values, {
    params: { value: p.value, enumerable: true },
    variables: { value: NO_VARIABLES, enumerable: true },
  }) as Record<string, unknown>;
  const act = { values, widest: Math.max(request.widest, p.widest), longestString: Math.max(request.longestString, p.longestString) };
  if (param === null) a.memo.celActivation = act;
  return act;
}

/** admission.k8s.io AdmissionRequest, as far as a request made offline has it. */
export function requestOf(a: Admission): JsonObject {
  const user = a.target.userInfo ?? {};
  return {
    kind: { group: a.group, version: a.version, kind: a.kind },
    resource: { group: a.group, version: a.version, resource: a.resource.resource },
    requestKind: { group: a.group, version: a.version, kind: a.kind },
    requestResource: { group: a.group, version: a.version, resource: a.resource.resource },
    ...(a.target.subResource ? { subResource: a.target.subResource, requestSubResource: a.target.subResource } : {}),
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: {
      username: user.username ?? "",
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups ?? [],
      ...(user.extra ? { extra: user.extra } : {}),
    },
    dryRun: false,
  };
}

/** The API server's alphabet for generated names (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0, 1, 3. */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const MAX_GENERATED_BASE = 58; // 63 less the five random characters

/**
 * The object as validating admission sees it when it has a `generateName` and no name: the API
 * server has named it by then (`generateName` cut to 58 characters, plus five random characters).
 * The suffix is drawn from the object itself, so a run is repeatable; a policy that reads only the
 * name's prefix, length or alphabet decides as it would in the cluster.
 */
export function withGeneratedName(object: JsonObject): JsonObject {
  const meta = object.metadata as JsonObject | undefined;
  if (!meta || typeof meta.generateName !== "string" || (typeof meta.name === "string" && meta.name !== "")) return object;
  const digest = createHash("sha256").update(JSON.stringify(object)).digest();
  let suffix = "";
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[digest[i]! % NAME_ALPHABET.length];
  const named = { ...object, metadata: { ...meta, name: `${meta.generateName.slice(0, MAX_GENERATED_BASE)}${suffix}` } };
  generated.add(named);
  return named;
}

const generated = new WeakSet<object>();

/** The name a finding shows: the `generateName` the user wrote when the name was generated here. */
export function writtenName(object: JsonObject): string {
  const meta = (object.metadata ?? {}) as JsonObject;
  return String((generated.has(object) ? meta.generateName : (meta.name ?? meta.generateName)) ?? "");
}
