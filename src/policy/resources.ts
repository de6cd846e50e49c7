import { groupOf } from "../manifest/manifest.js";
import { guessPlural } from "../validate/repo-index.js";
import type { ResourceFor, ResourceInfo } from "./types.js";
import type { JsonObject } from "../core/json.js";

/**
 * Kubernetes' built-in kinds, `group/Kind` (core kinds `/Kind`), with `:plural` where the plural is
 * not Kubernetes' guess; namespaced (NS) or cluster-scoped (CLUSTER).
 */
const NS = `/Pod /ConfigMap /Secret /Service /ServiceAccount /Endpoints:endpoints /Event /LimitRange
  /PersistentVolumeClaim /PodTemplate /ReplicationController /ResourceQuota /Binding
  apps/Deployment apps/DaemonSet apps/StatefulSet apps/ReplicaSet apps/ControllerRevision batch/Job batch/CronJob
  autoscaling/HorizontalPodAutoscaler policy/PodDisruptionBudget networking.k8s.io/Ingress networking.k8s.io/NetworkPolicy
  extensions/Ingress discovery.k8s.io/EndpointSlice rbac.authorization.k8s.io/Role rbac.authorization.k8s.io/RoleBinding
  coordination.k8s.io/Lease events.k8s.io/Event storage.k8s.io/CSIStorageCapacity authorization.k8s.io/LocalSubjectAccessReview
  resource.k8s.io/ResourceClaim resource.k8s.io/ResourceClaimTemplate kyverno.io/Policy:policies kyverno.io/PolicyException
  policies.kyverno.io/NamespacedValidatingPolicy gateway.networking.k8s.io/Gateway gateway.networking.k8s.io/HTTPRoute`;

const CLUSTER = `/Namespace /Node /PersistentVolume /ComponentStatus:componentstatuses
  rbac.authorization.k8s.io/ClusterRole rbac.authorization.k8s.io/ClusterRoleBinding storage.k8s.io/StorageClass:storageclasses
  storage.k8s.io/CSIDriver storage.k8s.io/CSINode storage.k8s.io/VolumeAttachment apiextensions.k8s.io/CustomResourceDefinition
  apiregistration.k8s.io/APIService admissionregistration.k8s.io/ValidatingWebhookConfiguration
  admissionregistration.k8s.io/MutatingWebhookConfiguration admissionregistration.k8s.io/ValidatingAdmissionPolicy:validatingadmissionpolicies
  admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding admissionregistration.k8s.io/MutatingAdmissionPolicy:mutatingadmissionpolicies
  admissionregistration.k8s.io/MutatingAdmissionPolicyBinding scheduling.k8s.io/PriorityClass:priorityclasses
  node.k8s.io/RuntimeClass:runtimeclasses networking.k8s.io/IngressClass:ingressclasses certificates.k8s.io/CertificateSigningRequest
  policy/PodSecurityPolicy:podsecuritypolicies flowcontrol.apiserver.k8s.io/FlowSchema flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration
  authentication.k8s.io/TokenReview authorization.k8s.io/SubjectAccessReview authorization.k8s.io/SelfSubjectAccessReview
  resource.k8s.io/DeviceClass:deviceclasses resource.k8s.io/ResourceSlice kyverno.io/ClusterPolicy:clusterpolicies
  policies.kyverno.io/ValidatingPolicy:validatingpolicies gateway.networking.k8s.io/GatewayClass:gatewayclasses`;

const BUILTIN = new Map<string, ResourceInfo>();
for (const [table, namespaced] of [
  [NS, true],
  [CLUSTER, false],
] as const) {
  for (const entry of table.split(/\s+/)) {
    const [groupKind, plural] = entry.split(":") as [string, string | undefined];
    BUILTIN.set(groupKind, { resource: plural ?? guessPlural(groupKind.slice(groupKind.indexOf("/") + 1)), namespaced });
  }
}

/** A kind of the built-in table, by apiVersion's group and kind. */
export function builtinResource(apiVersion: string, kind: string): ResourceInfo | undefined {
  return BUILTIN.get(`${groupOf(apiVersion)}/${kind}`);
}

/** The kinds the repository's CustomResourceDefinitions declare (plural and scope). */
export function crdResources(objects: Iterable<JsonObject>): ResourceFor {
  const byKind = new Map<string, ResourceInfo>();
  for (const o of objects) {
    if (o.kind !== "CustomResourceDefinition" || !String(o.apiVersion).startsWith("apiextensions.k8s.io/")) continue;
    const spec = (o.spec ?? {}) as { group?: unknown; scope?: unknown; names?: { kind?: unknown; plural?: unknown } };
    if (typeof spec.group !== "string" || typeof spec.names?.kind !== "string") continue;
    const plural = typeof spec.names.plural === "string" ? spec.names.plural : guessPlural(spec.names.kind);
    byKind.set(`${spec.group}/${spec.names.kind}`, { resource: plural, namespaced: spec.scope !== "Cluster" });
  }
  return (apiVersion, kind) => byKind.get(`${groupOf(apiVersion)}/${kind}`);
}

/** The caller's answer, else the built-in table, else the guess (namespaced when the object has a namespace). */
export function resolveResource(resourceFor: ResourceFor | undefined, object: JsonObject): ResourceInfo {
  const apiVersion = String(object.apiVersion ?? "");
  const kind = String(object.kind ?? "");
  const known = resourceFor?.(apiVersion, kind) ?? builtinResource(apiVersion, kind);
  if (known) return known;
  const meta = object.metadata as JsonObject | undefined;
  return { resource: guessPlural(kind), namespaced: typeof meta?.namespace === "string" };
}
