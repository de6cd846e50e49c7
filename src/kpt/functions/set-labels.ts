import type { JsonObject } from "../../core/json.js";
import { isLocalConfig } from "../resources.js";
import { deepCopy, isObject } from "../yaml.js";
import { isEmptyObject, isGvk, jsonTypeName, SDK_FAILURE, sdkSort, type BuiltinOutcome, type KrmResult, type ResourceList } from "./types.js";

/**
 * The catalog's set-labels (krm-functions-catalog functions/go/set-labels, on the Go SDK): the
 * labels go into metadata.labels of every resource that is not local config, and into the
 * selectors and templates the function knows (Service and ReplicationController spec.selector,
 * the workloads' spec.selector.matchLabels and pod templates, CronJob job templates,
 * StatefulSet volumeClaimTemplates, NetworkPolicy pod selectors, topology spread constraints and
 * pod (anti-)affinity terms), creating a field only where upstream creates it.
 */

class FieldError extends Error {}

export function setLabels(input: ResourceList): BuiltinOutcome {
  const list = deepCopy(input);
  const results: KrmResult[] = [...(list.results ?? [])];
  const fnConfig = list.functionConfig ?? {};
  let labels: Record<string, string> = {};
  if (isEmptyObject(fnConfig) || emptyFunctionConfig(fnConfig)) {
    results.push({ severity: "info", message: "`FunctionConfig` is not given" });
  } else {
    const configured = configure(fnConfig);
    if (typeof configured === "string") {
      results.push({ severity: "error", message: configured });
      return finish(list, results, false);
    }
    labels = configured;
  }
  const objects = list.items.filter((o) => !isLocalConfig(o));
  if (objects.length === 0) {
    results.push({ severity: "info", message: "no input resources" });
    return finish(list, results, true);
  }
  if (emptyFnConfigForRun(fnConfig)) return finish(list, results, false);
  if (Object.keys(labels).length === 0) {
    results.push({ severity: "warning", message: "no `labels` arguments are given in FunctionConfig" });
    return finish(list, results, true);
  }
  const state = { count: 0, labels, keys: Object.keys(labels).sort() };
  for (const o of objects) {
    try {
      setInMeta(state, o);
      setInSelector(state, o);
      const spec = getMap(o, "spec");
      if (!spec) continue;
      if (containsPodSpec(o)) {
        try {
          setInPod(state, getMap(spec, "template"));
        } catch (err) {
          if (!(err instanceof FieldError)) throw err;
          continue; // upstream returns nil here: the rest of the object is left as it is
        }
      }
      if (isGvk(o, "batch", "", "CronJob")) setInJob(state, getMap(spec, "jobTemplate"));
      if (isGvk(o, "apps", "", "StatefulSet")) {
        const volumes = spec.volumeClaimTemplates;
        if (volumes !== undefined && !Array.isArray(volumes)) throw new FieldError(`.spec.volumeClaimTemplates is not a slice`);
        for (const v of (volumes ?? []) as unknown[]) {
          if (!isObject(v)) continue;
          setInMeta(state, v);
          update(state, v, ["selector", "matchLabels"], false);
        }
      }
      if (isGvk(o, "networking.k8s.io", "", "NetworkPolicy")) setNetworkPolicyRules(state, spec);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      results.push({ severity: "error", message: err.message });
    }
  }
  results.push({ severity: "info", message: `set ${state.count} labels in total` });
  return finish(list, results, !results.some((r) => r.severity === "error"));
}

function finish(list: ResourceList, results: KrmResult[], ok: boolean): BuiltinOutcome {
  list.items = sdkSort(list.items);
  list.results = results;
  return ok ? { list, ok } : { list, ok, stderr: SDK_FAILURE };
}

/** The SDK's EmptyFunctionConfig: a ConfigMap named function-input with an empty data map. */
function emptyFunctionConfig(o: JsonObject): boolean {
  return o.kind === "ConfigMap" && metaName(o) === "function-input" && isObject(o.data) && Object.keys(o.data).length === 0;
}

/** set-labels' own EmptyfnConfig, checked again before it runs. */
function emptyFnConfigForRun(o: JsonObject): boolean {
  if (o.kind === "ConfigMap" && metaName(o) === "function-input") return !isObject(o.data) || Object.keys(o.data).length === 0;
  return (o.kind ?? "") === "" && metaName(o) === "";
}

function metaName(o: JsonObject): string {
  return isObject(o.metadata) && typeof o.metadata.name === "string" ? o.metadata.name : "";
}

/** The SDK's config step: a ConfigMap's data, or a SetLabels object; else the SDK's error message. */
function configure(o: JsonObject): Record<string, string> | string {
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = typeof o.kind === "string" ? o.kind : "";
  if (group === "" && kind === "ConfigMap") {
    if (o.data === undefined || o.data === null) return {};
    if (!isObject(o.data)) return "unable to convert object to *setlabels.SetLabels with error: .data is not a map";
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.data)) out[k] = typeof v === "string" ? v : String(v);
    return out;
  }
  if (group === "fn.kpt.dev" && kind === "SetLabels") {
    const labels = o.labels;
    if (labels === undefined || labels === null) return {};
    if (!isObject(labels))
      return `unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal ${jsonTypeName(labels)} into Go struct field SetLabels.labels of type map[string]string`;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v !== "string")
        return `unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field SetLabels.labels of type string`;
      out[k] = v;
    }
    return out;
  }
  const gk = group ? `${kind}.${group}` : kind;
  return `unknown FunctionConfig \`${gk}\`, expect \`SetLabels.fn.kpt.dev\` or \`ConfigMap.v1\``;
}

interface State {
  count: number;
  labels: Record<string, string>;
  keys: string[];
}

function getMap(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}

function getSlice(o: JsonObject | undefined, key: string): JsonObject[] {
  const v = o?.[key];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** updateLabels: every key counts, whether it changed or not; a missing one is created only with `create`. */
function update(state: State, o: JsonObject | undefined, path: string[], create: boolean): void {
  if (!o) return;
  for (const key of state.keys) {
    const value = state.labels[key]!;
    const { exists, current } = nestedString(o, [...path, key]);
    if ((exists && current !== value) || (!exists && create)) setNested(o, [...path, key], value);
    state.count++;
  }
}

function nestedString(o: JsonObject, path: string[]): { exists: boolean; current?: string } {
  let cur: unknown = o;
  for (const [i, p] of path.entries()) {
    if (cur === undefined || cur === null) return { exists: false };
    if (!isObject(cur)) throw new FieldError(`.${path.slice(0, i).join(".")} is not a map`);
    cur = cur[p];
  }
  if (cur === undefined) return { exists: false };
  if (isObject(cur) || Array.isArray(cur)) throw new FieldError(`.${path.join(".")} is not a string`);
  return { exists: true, current: cur === null ? "" : String(cur) };
}

function setNested(o: JsonObject, path: string[], value: string): void {
  let cur = o;
  for (const p of path.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as JsonObject;
  }
  cur[path[path.length - 1]!] = value;
}

function setInMeta(state: State, o: JsonObject | undefined): void {
  update(state, o, ["metadata", "labels"], true);
}

function setInSelector(state: State, o: JsonObject): void {
  if (isGvk(o, "", "v1", "Service") || isGvk(o, "", "v1", "ReplicationController")) update(state, o, ["spec", "selector"], true);
  if (isGvk(o, "", "", "Deployment") || isGvk(o, "", "", "ReplicaSet") || isGvk(o, "", "", "DaemonSet") || isGvk(o, "apps", "", "StatefulSet")) {
    update(state, o, ["spec", "selector", "matchLabels"], true);
  } else if (isGvk(o, "batch", "", "Job") || isGvk(o, "policy", "", "PodDisruptionBudget")) {
    update(state, o, ["spec", "selector", "matchLabels"], false);
  }
  if (isGvk(o, "networking.k8s.io", "", "NetworkPolicy")) update(state, o, ["spec", "podSelector", "matchLabels"], false);
}

function containsPodSpec(o: JsonObject): boolean {
  return (
    isGvk(o, "", "v1", "ReplicationController") ||
    isGvk(o, "", "", "Deployment") ||
    isGvk(o, "", "", "ReplicaSet") ||
    isGvk(o, "", "", "DaemonSet") ||
    isGvk(o, "apps", "", "StatefulSet") ||
    isGvk(o, "batch", "", "Job")
  );
}

function setInJob(state: State, job: JsonObject | undefined): void {
  if (!job) return;
  setInMeta(state, job);
  const spec = getMap(job, "spec");
  update(state, spec, ["selector", "matchLabels"], false);
  setInPod(state, getMap(spec, "template"));
}

function setInPod(state: State, pod: JsonObject | undefined): void {
  if (!pod) return;
  setInMeta(state, pod);
  const spec = getMap(pod, "spec");
  if (!spec) return;
  if (Array.isArray(spec.topologySpreadConstraints)) {
    for (const c of getSlice(spec, "topologySpreadConstraints")) update(state, c, ["labelSelector", "matchLabels"], false);
  }
  const affinity = getMap(spec, "affinity");
  if (!affinity) return;
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    if (!getMap(affinity, kind)) continue;
    // As upstream reads them: the terms are looked up on `affinity` itself, not on the (anti-)affinity.
    for (const term of getSlice(affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
      const podAffinityTerm = getMap(term, "podAffinityTerm");
      if (podAffinityTerm) update(state, podAffinityTerm, ["labelSelector", "matchLabels"], false);
    }
    for (const term of getSlice(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) update(state, term, ["labelSelector", "matchLabels"], false);
  }
}

function setNetworkPolicyRules(state: State, spec: JsonObject): void {
  for (const rule of getSlice(spec, "ingress")) for (const peer of getSlice(rule, "from")) update(state, peer, ["podSelector", "matchLabels"], false);
  for (const rule of getSlice(spec, "egress")) for (const peer of getSlice(rule, "to")) update(state, peer, ["podSelector", "matchLabels"], false);
}
