import { NeedsCluster } from "../../cel/budget.js";
import { requestOf, type Admission } from "../request.js";
import type { JsonObject } from "../../core/json.js";
import { NotFound, query } from "./jmespath.js";
import { setPath, substituteAll, SubstitutionError, type VariableScope } from "./variables.js";

/**
 * The data `{{ }}` reads: the admission request, the service account, images, values given by the
 * caller, context entries. The request and images are built on first read: most rules read none.
 */
export function baseScope(a: Admission): VariableScope {
  const t = a.target;
  const data: JsonObject = {};
  lazy(data, "request", () => {
    const user = t.userInfo ?? {};
    return {
      ...requestOf(a),
      // Go's UserInfo leaves empty fields out of its JSON.
      userInfo: Object.fromEntries(
        Object.entries({ username: user.username, uid: user.uid, groups: user.groups, extra: user.extra }).filter(
          ([, v]) => v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0),
        ),
      ),
      object: a.operation === "DELETE" ? null : t.object,
      oldObject: t.oldObject ?? null,
      roles: t.userInfo?.roles ?? [],
      clusterRoles: t.userInfo?.clusterRoles ?? [],
    };
  });
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(t.userInfo?.username ?? "");
  data.serviceAccountName = sa ? sa[2] : "";
  data.serviceAccountNamespace = sa ? sa[1] : "";
  if (a.kind === "Pod" || a.kind === "CronJob" || (a.object.spec as JsonObject | undefined)?.template) lazy(data, "images", () => imagesOf(a.object) ?? null);
  for (const [key, value] of Object.entries(t.values ?? {})) {
    if (key === "request.operation") continue;
    setPath(data, key, value);
  }
  return { data, isDelete: a.operation === "DELETE" };
}

/** A property computed on first read, and replaceable (setPath copies and sets it). */
function lazy(o: JsonObject, key: string, make: () => unknown): void {
  let value: unknown;
  let made = false;
  Object.defineProperty(o, key, {
    enumerable: true,
    configurable: true,
    get: () => (made ? value : ((made = true), (value = make()))),
    set: (v) => {
      made = true;
      value = v;
    },
  });
}

/** Context entries, in order: variables are computed; what reads the cluster needs it, unless the caller gave its value. */
export function loadContext(entries: unknown, scope: VariableScope, given: Record<string, unknown>): VariableScope {
  if (!Array.isArray(entries) || entries.length === 0) return scope;
  // The entries are added over the scope's data, which is shared (and holds what is built on first read).
  const data = Object.create(scope.data) as JsonObject;
  const next: VariableScope = { ...scope, data };
  for (const raw of entries as JsonObject[]) {
    const name = String(raw.name ?? "");
    if (Object.hasOwn(given, name)) {
      setPath(data, name, given[name]);
      continue;
    }
    if (raw.variable) {
      setPath(data, name, variableValue(raw.variable as JsonObject, next));
      continue;
    }
    const kind = ["configMap", "apiCall", "imageRegistry", "globalReference"].find((k) => raw[k]) ?? "context";
    throw new NeedsCluster(`context entry ${JSON.stringify(name)} (${kind})`);
  }
  return next;
}

function variableValue(v: JsonObject, scope: VariableScope): unknown {
  let result: unknown;
  try {
    const value = v.value !== undefined ? substituteAll(v.value, scope) : undefined;
    const path = typeof v.jmesPath === "string" ? String(substituteAll(v.jmesPath, scope)) : undefined;
    if (path !== undefined) result = query(value !== undefined ? value : scope.data, path);
    else result = value;
  } catch (err) {
    if (!(err instanceof NotFound || err instanceof SubstitutionError) || v.default === undefined) throw err;
  }
  if ((result === null || result === undefined) && v.default !== undefined) return substituteAll(v.default, scope);
  if (result === undefined) throw new SubstitutionError("failed to add context entry: the variable has no value");
  return result;
}

/** Kyverno's `images` variable: the images of a Pod's (or a Pod template's) containers by container name. */
function imagesOf(object: JsonObject): JsonObject | undefined {
  const spec = podSpec(object);
  if (!spec) return undefined;
  const out: JsonObject = {};
  for (const group of ["containers", "initContainers", "ephemeralContainers"]) {
    const list = spec[group];
    if (!Array.isArray(list)) continue;
    const byName: JsonObject = {};
    for (const c of list as JsonObject[]) if (typeof c?.image === "string") byName[String(c.name ?? "")] = imageInfo(c.image);
    if (Object.keys(byName).length) out[group] = byName;
  }
  return Object.keys(out).length ? out : undefined;
}

function podSpec(o: JsonObject): JsonObject | undefined {
  const spec = o.spec as JsonObject | undefined;
  if (!spec) return undefined;
  if (o.kind === "Pod") return spec;
  if (o.kind === "CronJob") return ((((spec.jobTemplate as JsonObject)?.spec as JsonObject)?.template as JsonObject)?.spec as JsonObject) ?? undefined;
  return ((spec.template as JsonObject)?.spec as JsonObject) ?? undefined;
}

/** A container image reference split as Kyverno does (docker.io and `latest` by default). */
export function imageInfo(reference: string): JsonObject {
  let rest = reference;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) [rest, digest] = [rest.slice(0, at), rest.slice(at + 1)];
  let tag = "";
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) [rest, tag] = [rest.slice(0, colon), rest.slice(colon + 1)];
  const slash = rest.indexOf("/");
  const first = slash >= 0 ? rest.slice(0, slash) : "";
  const hasRegistry = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  const registry = hasRegistry ? first : "docker.io";
  const path = hasRegistry ? rest.slice(slash + 1) : rest;
  if (!tag && !digest) tag = "latest";
  const name = path.slice(path.lastIndexOf("/") + 1);
  const referenceWithTag = `${registry}/${path}:${tag}`;
  return { registry, path, name, tag, digest, reference: `${registry}/${path}${tag ? `:${tag}` : ""}${digest ? `@${digest}` : ""}`, referenceWithTag };
}

export { query, NotFound };
