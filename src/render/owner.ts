import type { JsonObject } from "../core/json.js";

/** The controller ownerReference Kubernetes controllers set (`metav1.NewControllerRef`); uid is empty offline. */
export function controllerReference(owner: JsonObject): JsonObject {
  const meta = (owner.metadata ?? {}) as JsonObject;
  return {
    apiVersion: owner.apiVersion,
    blockOwnerDeletion: true,
    controller: true,
    kind: owner.kind,
    name: meta.name,
    uid: meta.uid ?? "",
  };
}
