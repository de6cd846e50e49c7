import type { ErrorObject } from "ajv";
import { unknownCoreFields } from "./kubernetes-fields.js";

/**
 * Kubernetes core kinds, validated by the ajv validators the `kubernetes-models` package compiles
 * from the Kubernetes OpenAPI document (types, required fields, enums). That document does not
 * close objects: unknown fields come from the table of each type's fields (kubernetes-fields.ts).
 * Each model loads only when a manifest of its kind is seen.
 */
type ModelClass = new (data: any) => { validate(): void };

const MODELS: Record<string, () => Promise<ModelClass>> = {
  "v1/Pod": async () => (await import("kubernetes-models/v1/Pod")).Pod,
  "v1/Service": async () => (await import("kubernetes-models/v1/Service")).Service,
  "v1/ConfigMap": async () => (await import("kubernetes-models/v1/ConfigMap")).ConfigMap,
  "v1/Secret": async () => (await import("kubernetes-models/v1/Secret")).Secret,
  "v1/Namespace": async () => (await import("kubernetes-models/v1/Namespace")).Namespace,
  "v1/ServiceAccount": async () => (await import("kubernetes-models/v1/ServiceAccount")).ServiceAccount,
  "v1/PersistentVolumeClaim": async () => (await import("kubernetes-models/v1/PersistentVolumeClaim")).PersistentVolumeClaim,
  "v1/PersistentVolume": async () => (await import("kubernetes-models/v1/PersistentVolume")).PersistentVolume,
  "v1/LimitRange": async () => (await import("kubernetes-models/v1/LimitRange")).LimitRange,
  "v1/ResourceQuota": async () => (await import("kubernetes-models/v1/ResourceQuota")).ResourceQuota,
  "v1/Endpoints": async () => (await import("kubernetes-models/v1/Endpoints")).Endpoints,
  "v1/ReplicationController": async () => (await import("kubernetes-models/v1/ReplicationController")).ReplicationController,
  "apps/v1/Deployment": async () => (await import("kubernetes-models/apps/v1/Deployment")).Deployment,
  "apps/v1/StatefulSet": async () => (await import("kubernetes-models/apps/v1/StatefulSet")).StatefulSet,
  "apps/v1/DaemonSet": async () => (await import("kubernetes-models/apps/v1/DaemonSet")).DaemonSet,
  "apps/v1/ReplicaSet": async () => (await import("kubernetes-models/apps/v1/ReplicaSet")).ReplicaSet,
  "batch/v1/Job": async () => (await import("kubernetes-models/batch/v1/Job")).Job,
  "batch/v1/CronJob": async () => (await import("kubernetes-models/batch/v1/CronJob")).CronJob,
  "networking.k8s.io/v1/Ingress": async () => (await import("kubernetes-models/networking.k8s.io/v1/Ingress")).Ingress,
  "networking.k8s.io/v1/IngressClass": async () => (await import("kubernetes-models/networking.k8s.io/v1/IngressClass")).IngressClass,
  "networking.k8s.io/v1/NetworkPolicy": async () => (await import("kubernetes-models/networking.k8s.io/v1/NetworkPolicy")).NetworkPolicy,
  "rbac.authorization.k8s.io/v1/Role": async () => (await import("kubernetes-models/rbac.authorization.k8s.io/v1/Role")).Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": async () => (await import("kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding")).RoleBinding,
  "rbac.authorization.k8s.io/v1/ClusterRole": async () => (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole")).ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding")).ClusterRoleBinding,
  "autoscaling/v2/HorizontalPodAutoscaler": async () => (await import("kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler")).HorizontalPodAutoscaler,
  "autoscaling/v1/HorizontalPodAutoscaler": async () => (await import("kubernetes-models/autoscaling/v1/HorizontalPodAutoscaler")).HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": async () => (await import("kubernetes-models/policy/v1/PodDisruptionBudget")).PodDisruptionBudget,
  "storage.k8s.io/v1/StorageClass": async () => (await import("kubernetes-models/storage.k8s.io/v1/StorageClass")).StorageClass,
  "scheduling.k8s.io/v1/PriorityClass": async () => (await import("kubernetes-models/scheduling.k8s.io/v1/PriorityClass")).PriorityClass,
  "apiextensions.k8s.io/v1/CustomResourceDefinition": async () =>
    (await import("kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition")).CustomResourceDefinition,
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration")).ValidatingWebhookConfiguration,
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/MutatingWebhookConfiguration")).MutatingWebhookConfiguration,
  "coordination.k8s.io/v1/Lease": async () => (await import("kubernetes-models/coordination.k8s.io/v1/Lease")).Lease,
  "discovery.k8s.io/v1/EndpointSlice": async () => (await import("kubernetes-models/discovery.k8s.io/v1/EndpointSlice")).EndpointSlice,
  "v1/Node": async () => (await import("kubernetes-models/v1/Node")).Node,
  "v1/Event": async () => (await import("kubernetes-models/v1/Event")).Event,
  "v1/PodTemplate": async () => (await import("kubernetes-models/v1/PodTemplate")).PodTemplate,
  "apps/v1/ControllerRevision": async () => (await import("kubernetes-models/apps/v1/ControllerRevision")).ControllerRevision,
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")).ValidatingAdmissionPolicy,
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding")).ValidatingAdmissionPolicyBinding,
  "apiregistration.k8s.io/v1/APIService": async () => (await import("kubernetes-models/apiregistration.k8s.io/v1/APIService")).APIService,
  "certificates.k8s.io/v1/CertificateSigningRequest": async () =>
    (await import("kubernetes-models/certificates.k8s.io/v1/CertificateSigningRequest")).CertificateSigningRequest,
  "events.k8s.io/v1/Event": async () => (await import("kubernetes-models/events.k8s.io/v1/Event")).Event,
  "flowcontrol.apiserver.k8s.io/v1/FlowSchema": async () => (await import("kubernetes-models/flowcontrol.apiserver.k8s.io/v1/FlowSchema")).FlowSchema,
  "flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration": async () =>
    (await import("kubernetes-models/flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration")).PriorityLevelConfiguration,
  "networking.k8s.io/v1/IPAddress": async () => (await import("kubernetes-models/networking.k8s.io/v1/IPAddress")).IPAddress,
  "networking.k8s.io/v1/ServiceCIDR": async () => (await import("kubernetes-models/networking.k8s.io/v1/ServiceCIDR")).ServiceCIDR,
  "node.k8s.io/v1/RuntimeClass": async () => (await import("kubernetes-models/node.k8s.io/v1/RuntimeClass")).RuntimeClass,
  "storage.k8s.io/v1/CSIDriver": async () => (await import("kubernetes-models/storage.k8s.io/v1/CSIDriver")).CSIDriver,
  "storage.k8s.io/v1/CSINode": async () => (await import("kubernetes-models/storage.k8s.io/v1/CSINode")).CSINode,
  "storage.k8s.io/v1/CSIStorageCapacity": async () => (await import("kubernetes-models/storage.k8s.io/v1/CSIStorageCapacity")).CSIStorageCapacity,
  "storage.k8s.io/v1/VolumeAttachment": async () => (await import("kubernetes-models/storage.k8s.io/v1/VolumeAttachment")).VolumeAttachment,
};

export type ExternalValidator = (object: unknown) => ErrorObject[];

const loaded = new Map<string, ExternalValidator>();

export function isKubernetesCoreKind(apiVersion: string, kind: string): boolean {
  return `${apiVersion}/${kind}` in MODELS;
}

export async function kubernetesValidator(apiVersion: string, kind: string): Promise<ExternalValidator | undefined> {
  const key = `${apiVersion}/${kind}`;
  const load = MODELS[key];
  if (!load) return undefined;
  let validator = loaded.get(key);
  if (!validator) {
    const Model = await load();
    validator = (object) => [...modelErrors(Model, object), ...unknownCoreFields(key, object)];
    loaded.set(key, validator);
  }
  return validator;
}

function modelErrors(Model: ModelClass, object: unknown): ErrorObject[] {
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!errors) throw err;
    return errors;
  }
}

export const KUBERNETES_CORE_KINDS = Object.keys(MODELS);

/** The API groups the Kubernetes API server serves itself (not from CRDs, as `gateway.networking.k8s.io` is). */
const BUILT_IN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "extensions",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/** The versions of a built-in kind composition-ci has a schema for (`v1` for node.k8s.io RuntimeClass). */
export function kubernetesKindVersions(group: string, kind: string): string[] {
  const prefix = group ? `${group}/` : "";
  return KUBERNETES_CORE_KINDS.filter((k) => k.startsWith(prefix) && k.endsWith(`/${kind}`) && k.split("/").length === (group ? 3 : 2)).map(
    (k) => k.split("/").at(-2)!,
  );
}

export function isKubernetesBuiltInGroup(group: string): boolean {
  return BUILT_IN_GROUPS.has(group);
}
