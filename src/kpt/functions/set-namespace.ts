import type { JsonObject } from "../../core/json.js";
import { annotation, isLocalConfig, UPSTREAM_IDENTIFIER } from "../resources.js";
import { deepCopy, isObject } from "../yaml.js";
import { isGvk, sdkSort, type BuiltinOutcome, type KrmResult, type ResourceList } from "./types.js";

/**
 * The catalog's set-namespace (functions/go/set-namespace, on the Go SDK): namespace-scoped
 * resources that are not local config get the new namespace, and so do a Namespace's name, a
 * CRD's conversion webhook service, an APIService's service and (Cluster)RoleBinding subjects.
 * Without `namespaceMatcher` every namespace changes, which needs the resources' upstream
 * origins (`internal.kpt.dev/upstream-identifier`) to agree; with it, only matching ones.
 * `config.kubernetes.io/depends-on` annotations naming a resource of the package follow.
 */

const DEPENDS_ON = "config.kubernetes.io/depends-on";
const BUILTIN_CONFIGMAP = "kptfile.kpt.dev";
const UNKNOWN_NAMESPACE = "~C";
const NAMESPACED_DEPENDS_ON = /^([-.\w]*)\/namespaces\/([-.\w]*)\/([-.\w]*)\/([-.\w]*)$/;
const UPSTREAM_ID = /([a-z0-9-.]*)\|([A-Z][a-zA-Z0-9]*)\|([a-z0-9-]{1,63}|~C)\|([a-z0-9-]{1,63})/;

/** Kinds whose scope the SDK knows without a schema (its precomputed table); others: scoped when they have a namespace. */
const CLUSTER_SCOPED = new Set([
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "apiregistration.k8s.io/APIService",
  "certificates.k8s.io/CertificateSigningRequest",
  "flowcontrol.apiserver.k8s.io/FlowSchema",
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
  "networking.k8s.io/IngressClass",
  "node.k8s.io/RuntimeClass",
  "policy/PodSecurityPolicy",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "scheduling.k8s.io/PriorityClass",
  "storage.k8s.io/CSIDriver",
  "storage.k8s.io/CSINode",
  "storage.k8s.io/StorageClass",
  "storage.k8s.io/VolumeAttachment",
  "/ComponentStatus",
  "/Namespace",
  "/Node",
  "/NodeProxyOptions",
  "/PersistentVolume",
]);

class FunctionPanic extends Error {}

export function setNamespace(input: ResourceList): BuiltinOutcome {
  const list = deepCopy(input);
  const results: KrmResult[] = [...(list.results ?? [])];
  const fc = list.functionConfig ?? {};
  let config: { namespace: string; matcher: string };
  try {
    config = configure(fc);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    results.push(configObjectResult(err.message, fc));
    return { list: { ...list, items: sdkSort(list.items), results }, ok: true };
  }
  try {
    results.push(...transform(list.items, config));
  } catch (err) {
    if (!(err instanceof FunctionPanic)) throw err;
    return { list, ok: false, stderr: `panic: ${err.message}` };
  }
  return { list: { ...list, items: sdkSort(list.items), results }, ok: true };
}

class ConfigError extends Error {}

function configure(o: JsonObject): { namespace: string; matcher: string } {
  if (Object.keys(o).length === 0) throw new ConfigError("FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`");
  if (isGvk(o, "", "v1", "ConfigMap")) {
    const data = isObject(o.data) ? o.data : {};
    const matcher = str(data.namespaceMatcher);
    if (str(data.namespace) !== "") return { namespace: str(data.namespace), matcher };
    if (str(data.name) !== "" && metaName(o) === BUILTIN_CONFIGMAP) return { namespace: str(data.name), matcher };
    throw new ConfigError("`data.namespace` should not be empty");
  }
  if (isGvk(o, "fn.kpt.dev", "v1alpha1", "SetNamespace")) {
    if (str(o.namespace) === "") throw new ConfigError("`namespace` should not be empty");
    return { namespace: str(o.namespace), matcher: str(o.namespaceMatcher) };
  }
  throw new ConfigError(
    `unknown functionConfig Kind=${str(o.kind)} ApiVersion=${str(o.apiVersion)}, expect \`ConfigMap.v1\` or \`SetNamespace.v1alpha1.fn.kpt.dev\``,
  );
}

/** The SDK's ConfigObjectResult: the config's reference and file (index -1 when it has none). */
function configObjectResult(message: string, o: JsonObject): KrmResult {
  const meta = isObject(o.metadata) ? o.metadata : {};
  const ref: KrmResult["resourceRef"] = {};
  if (str(o.apiVersion)) ref.apiVersion = str(o.apiVersion);
  if (str(o.kind)) ref.kind = str(o.kind);
  if (str(meta.name)) ref.name = str(meta.name);
  if (str(meta.namespace)) ref.namespace = str(meta.namespace);
  const path = annotation(o, "internal.config.kubernetes.io/path") ?? annotation(o, "config.kubernetes.io/path") ?? "";
  const indexText = annotation(o, "internal.config.kubernetes.io/index") ?? annotation(o, "config.kubernetes.io/index");
  const index = indexText === undefined ? -1 : Number.parseInt(indexText, 10);
  const file: KrmResult["file"] = { index: Number.isFinite(index) ? index : -1 };
  if (path) file.path = path;
  return { message, severity: "error", resourceRef: ref, file };
}

function transform(items: JsonObject[], config: { namespace: string; matcher: string }): KrmResult[] {
  const results: KrmResult[] = [];
  const objects = items.filter((o) => !isLocalConfig(o));
  const dependsOn = new Set<string>();
  for (const o of objects) {
    const id = resourceId(o);
    if (id.namespace !== UNKNOWN_NAMESPACE) dependsOn.add(`${id.group}/namespaces/${id.namespace}/${id.kind}/${id.name}`);
  }
  const origins = new Set<string>();
  for (const o of objects) {
    if (annotation(o, UPSTREAM_IDENTIFIER)) {
      const origin = originId(o);
      if (isClusterScoped(o)) continue;
      if (origin.namespace === UNKNOWN_NAMESPACE) {
        return [
          {
            severity: "error",
            message: `${shortString(o)} is namespace-scoped, but has cluster-scoped or unknown scoepd origin ${origin.group}|${origin.kind}|${origin.namespace}|${origin.name}`,
          },
        ];
      }
      origins.add(origin.namespace);
    } else {
      results.push({ severity: "warning", message: `${shortString(o)} does not have upstream origin.` });
    }
  }
  const matchers = config.matcher ? [config.matcher] : [];
  if (!matchers.length && origins.size > 1) {
    return [
      {
        severity: "error",
        message: `unable to use origin \`namespace\` to match. expect a single upstream namespace, found [${[...origins].sort().join(" ")}]. please switch to use \`namespaceMatcher\`to specify the namespace value you want to change`,
      },
    ];
  }
  const newNs = config.namespace;
  let count = 0;
  const oldNamespaces = new Set<string>();
  const visit = (origin: string, current: string, idStr?: string): string => {
    if (origin === UNKNOWN_NAMESPACE) return current;
    let value = current === "" ? "default" : current;
    if (value === newNs) return value;
    let change = matchers.length === 0;
    for (const m of matchers) {
      if (m === origin) results.push({ severity: "info", message: `[${idStr ?? ""}] has matching origin ${origin}` });
      if (m === value || m === origin) change = true;
    }
    if (change) {
      oldNamespaces.add(value);
      value = newNs;
      count++;
    }
    return value;
  };
  for (const o of objects.filter(isClusterScoped)) {
    if (isGvk(o, "", "v1", "Namespace")) {
      const meta = metadata(o);
      meta.name = visit(originId(o).name, str(meta.name), shortString(o));
    } else if (isGvk(o, "apiextensions.k8s.io", "v1", "CustomResourceDefinition")) {
      setPath(
        o,
        ["spec", "conversion", "webhook", "clientConfig", "service", "namespace"],
        visit("", getString(o, ["spec", "conversion", "webhook", "clientConfig", "service", "namespace"])),
      );
    } else if (isGvk(o, "apiregistration.k8s.io", "v1", "APIService")) {
      setPath(o, ["spec", "service", "namespace"], visit("", getString(o, ["spec", "service", "namespace"])));
    } else if (o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding") {
      for (const s of Array.isArray(o.subjects) ? o.subjects : []) {
        if (isObject(s) && s.namespace !== undefined) s.namespace = visit("", str(s.namespace));
      }
    }
  }
  for (const o of objects.filter((x) => !isClusterScoped(x))) {
    const meta = metadata(o);
    meta.namespace = visit(originId(o).namespace, str(meta.namespace), shortString(o));
  }
  results.push(
    count === 0
      ? { severity: "info", message: `all matching namespaces are already "${newNs}". no value changed` }
      : { severity: "info", message: `namespace [${[...oldNamespaces].sort().join(" ")}] updated to "${newNs}", ${count} value(s) changed` },
  );
  let annotationCount = 0;
  const oldAnnotationNamespaces = new Set<string>();
  for (const o of objects) {
    const value = annotation(o, DEPENDS_ON);
    if (!value || !NAMESPACED_DEPENDS_ON.test(value) || !dependsOn.has(value)) continue;
    const segments = value.split("/");
    if (segments[2] === newNs) continue;
    const change = matchers.length === 0 || matchers.includes(segments[2]!);
    if (!change) continue;
    oldAnnotationNamespaces.add(segments[2]!);
    segments[2] = newNs;
    annotationCount++;
    (metadata(o).annotations as JsonObject)[DEPENDS_ON] = segments.join("/");
  }
  results.push(
    annotationCount === 0
      ? { severity: "info", message: "all `depends-on` annotations are up-to-date. no `namespace` changed" }
      : {
          severity: "info",
          message: `\`depends-on\` annotation namespace [${[...oldAnnotationNamespaces].sort().join(" ")}] updated to "${newNs}", ${annotationCount} value(s) changed`,
        },
  );
  return results;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

function metadata(o: JsonObject): JsonObject {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata as JsonObject;
}

function metaName(o: JsonObject): string {
  return isObject(o.metadata) ? str(o.metadata.name) : "";
}

function groupOf(o: JsonObject): string {
  const apiVersion = str(o.apiVersion);
  return apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
}

/** The SDK's IsNamespaceScoped: its table of known kinds, else whether the object has a namespace. */
function isClusterScoped(o: JsonObject): boolean {
  const key = `${groupOf(o)}/${str(o.kind)}`;
  if (CLUSTER_SCOPED.has(key)) return true;
  if (KNOWN_NAMESPACED.has(key)) return false;
  return !(isObject(o.metadata) && typeof o.metadata.namespace === "string");
}

const KNOWN_NAMESPACED = new Set([
  "apps/ControllerRevision",
  "apps/DaemonSet",
  "apps/Deployment",
  "apps/ReplicaSet",
  "apps/StatefulSet",
  "autoscaling/HorizontalPodAutoscaler",
  "autoscaling/Scale",
  "batch/CronJob",
  "batch/Job",
  "coordination.k8s.io/Lease",
  "discovery.k8s.io/EndpointSlice",
  "events.k8s.io/Event",
  "extensions/Ingress",
  "networking.k8s.io/Ingress",
  "networking.k8s.io/NetworkPolicy",
  "policy/PodDisruptionBudget",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/RoleBinding",
  "storage.k8s.io/CSIStorageCapacity",
  "/ConfigMap",
  "/Endpoints",
  "/Event",
  "/LimitRange",
  "/PersistentVolumeClaim",
  "/Pod",
  "/PodAttachOptions",
  "/PodExecOptions",
  "/PodPortForwardOptions",
  "/PodProxyOptions",
  "/PodTemplate",
  "/ReplicationController",
  "/ResourceQuota",
  "/Secret",
  "/Service",
  "/ServiceAccount",
  "/ServiceProxyOptions",
  "/Binding",
]);

interface Id {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

function resourceId(o: JsonObject): Id {
  const hasNs = isObject(o.metadata) && typeof o.metadata.namespace === "string";
  const namespace = hasNs ? str((o.metadata as JsonObject).namespace) : !isClusterScoped(o) ? "default" : UNKNOWN_NAMESPACE;
  return { group: groupOf(o), kind: str(o.kind), namespace, name: metaName(o) };
}

function originId(o: JsonObject): Id {
  const upstream = annotation(o, UPSTREAM_IDENTIFIER);
  if (!upstream) return resourceId(o);
  const m = UPSTREAM_ID.exec(upstream.trim());
  if (!m) throw new FunctionPanic(`annotation ${UPSTREAM_IDENTIFIER}: ${upstream} is in bad format. expect "<GROUP>|<KIND>|<NAMESPACE>|<NAME>"`);
  return { group: m[1]!, kind: m[2]!, namespace: m[3]!, name: m[4]! };
}

function shortString(o: JsonObject): string {
  const meta = isObject(o.metadata) ? o.metadata : {};
  return `Resource(apiVersion=${str(o.apiVersion)}, kind=${str(o.kind)}, namespace=${str(meta.namespace)}, name=${str(meta.name)})`;
}

function getString(o: JsonObject, path: string[]): string {
  let cur: unknown = o;
  for (const p of path) {
    if (!isObject(cur)) return "";
    cur = cur[p];
  }
  if (isObject(cur) || Array.isArray(cur)) throw new FunctionPanic(`fields ${JSON.stringify(path)} is not a string`);
  return str(cur);
}

function setPath(o: JsonObject, path: string[], value: string): void {
  let cur = o;
  for (const p of path.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as JsonObject;
  }
  cur[path[path.length - 1]!] = value;
}
