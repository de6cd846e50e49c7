import { Ready, type RunFunctionRequest, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { conditionStatus } from "./patch-and-transform/ready.js";
import { responseTo } from "./response.js";
import { type JsonObject } from "../../core/json.js";

/**
 * function-auto-ready: a desired composed resource whose readiness is unspecified becomes ready
 * when it is observed healthy: its Ready condition is True or, for core kinds without one, the
 * kind's own health rule holds (documented in docs/render.md).
 */
export function runAutoReady(req: RunFunctionRequest): RunFunctionResponse {
  const rsp = responseTo(req);
  for (const [name, desired] of Object.entries(rsp.desired.resources)) {
    if (desired.ready !== Ready.READY_UNSPECIFIED) continue;
    const observed = req.observed?.resources?.[name]?.resource as JsonObject | undefined;
    if (observed && isHealthy(observed)) desired.ready = Ready.READY_TRUE;
  }
  return rsp;
}

type Rule = (o: JsonObject, status: JsonObject, spec: JsonObject) => boolean;

const exists: Rule = () => true;

const replicas = (spec: JsonObject) => (typeof spec.replicas === "number" ? spec.replicas : 1);

/** Health of core kinds that carry no Ready condition, keyed by `group/Kind` ("" for core). */
const HEALTH_RULES: Record<string, Rule> = {
  "/ConfigMap": exists,
  "/Secret": exists,
  "/ServiceAccount": exists,
  "/Endpoints": exists,
  "/LimitRange": exists,
  "/ResourceQuota": exists,
  "rbac.authorization.k8s.io/Role": exists,
  "rbac.authorization.k8s.io/RoleBinding": exists,
  "rbac.authorization.k8s.io/ClusterRole": exists,
  "rbac.authorization.k8s.io/ClusterRoleBinding": exists,
  "networking.k8s.io/NetworkPolicy": exists,
  "/Namespace": (_o, status) => status.phase === undefined || status.phase === "Active",
  "/Service": (_o, status, spec) =>
    spec.type !== "LoadBalancer" || (((status.loadBalancer as JsonObject | undefined)?.ingress as unknown[] | undefined)?.length ?? 0) > 0,
  "/PersistentVolumeClaim": (_o, status) => status.phase === "Bound",
  "/Pod": (o, status) => conditionStatus(o, "Ready") === "True" || status.phase === "Succeeded",
  "apps/Deployment": (o, status, spec) => conditionStatus(o, "Available") === "True" && (status.updatedReplicas ?? 0) === replicas(spec),
  "apps/StatefulSet": (_o, status, spec) => (status.readyReplicas ?? 0) === replicas(spec),
  "apps/ReplicaSet": (_o, status, spec) => (status.readyReplicas ?? 0) === replicas(spec),
  "apps/DaemonSet": (_o, status) => status.numberReady !== undefined && status.numberReady === status.desiredNumberScheduled,
  "batch/Job": (o) => conditionStatus(o, "Complete") === "True",
  "networking.k8s.io/Ingress": (_o, status) => (((status.loadBalancer as JsonObject | undefined)?.ingress as unknown[] | undefined)?.length ?? 0) > 0,
};

export function isHealthy(o: JsonObject): boolean {
  const ready = conditionStatus(o, "Ready");
  if (ready !== "Unknown") return ready === "True";
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  const rule = HEALTH_RULES[`${group}/${String(o.kind)}`];
  return rule ? rule(o, (o.status ?? {}) as JsonObject, (o.spec ?? {}) as JsonObject) : false;
}
