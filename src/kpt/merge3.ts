import type { JsonObject } from "../core/json.js";
import { isObject } from "./yaml.js";

/**
 * kpt's three-way resource merge (pkg/lib/update/merge3, on kyaml's walker) over plain JSON:
 * sources are [dest (local), origin (upstream at the lock), updated (upstream now)]. A field
 * upstream changed takes upstream's value, even when the local package changed it too (kpt
 * says nothing then: we record it as a conflict); a field only the local package changed keeps
 * the local value; an explicit `null` on either side clears the field. Lists are replaced as a
 * whole unless the field is an associative list of a Kubernetes kind (containers by name, ports
 * by containerPort, ...), whose elements merge one by one.
 */

export class MergeError extends Error {}

/** A field both sides changed, to different values: the merged value is upstream's. */
export interface Conflict {
  field: string;
  local: unknown;
  upstream: unknown;
  /** "changed" on both sides, or removed upstream while changed locally. */
  kind: "changed" | "removed-upstream" | "added-both";
}

const CLEAR = Symbol("clear");
type Value = unknown | typeof CLEAR;

export interface MergeContext {
  apiVersion: string;
  kind: string;
  /** Infer associative lists from their elements (kyaml's merge3 for Kptfiles does). */
  infer?: boolean;
  conflicts: Conflict[];
}

/** Merges one resource (its three versions); undefined when the merge clears it. */
export function mergeResource(
  dest: JsonObject | undefined,
  origin: JsonObject | undefined,
  updated: JsonObject | undefined,
  ctx: MergeContext,
): JsonObject | undefined {
  const out = walk([dest, origin, updated], [], ctx);
  return out === CLEAR || !isObject(out) ? undefined : out;
}

function missing(v: unknown): boolean {
  return v === undefined || v === null;
}

function kindOf(v: unknown): "map" | "seq" | "scalar" | undefined {
  if (v === undefined || v === null) return undefined;
  return isObject(v) ? "map" : Array.isArray(v) ? "seq" : "scalar";
}

function text(v: unknown): string {
  return v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
}

function fieldName(path: string[]): string {
  return path.join(".").replace(/\.\[/g, "[");
}

/** isCleared of kpt's visitor: the right side is an explicit null and the left is not. */
function isCleared(left: unknown, right: unknown): boolean {
  return right === null && left !== null;
}

function walk(sources: [unknown, unknown, unknown], path: string[], ctx: MergeContext): Value {
  const kind = sources.map(kindOf).find(Boolean);
  if (kind && sources.some((s) => kindOf(s) !== undefined && kindOf(s) !== kind)) {
    throw new MergeError(
      `${fieldName(path) || "(root)"}: the local package and the upstream disagree on the kind of the value (map, list or scalar); kpt pkg update fails here`,
    );
  }
  if (kind === "map" || kind === undefined) return walkMap(sources, path, ctx);
  if (kind === "seq") {
    const key = associativeKey(sources, path, ctx);
    return key === undefined ? visitNonAssociative(sources, path, ctx) : walkAssociative(sources, key, path, ctx);
  }
  return visitScalar(sources, path, ctx);
}

function walkMap(sources: [unknown, unknown, unknown], path: string[], ctx: MergeContext): Value {
  const [d, o, u] = sources;
  if (isCleared(o, u) || isCleared(o, d)) return CLEAR;
  if (d === undefined && u === undefined) return CLEAR;
  const dest: JsonObject = isObject(d) ? d : {};
  const maps = sources.map((s) => (isObject(s) ? s : undefined));
  const fields = [...new Set(maps.flatMap((m) => (m ? Object.keys(m) : [])))].sort();
  for (const key of fields) {
    const value = walk([maps[0]?.[key], maps[1]?.[key], maps[2]?.[key]], [...path, key], ctx);
    if (value === CLEAR || value === undefined || value === null) delete dest[key];
    else dest[key] = value;
  }
  return dest;
}

function visitScalar(sources: [unknown, unknown, unknown], path: string[], ctx: MergeContext): Value {
  const [d, o, u] = sources;
  if (isCleared(o, u) || isCleared(o, d)) return CLEAR;
  if (missing(u) !== missing(o)) {
    if (missing(u) && !missing(d) && text(d) !== text(o))
      ctx.conflicts.push({ field: fieldName(path), local: d, upstream: undefined, kind: "removed-upstream" });
    if (missing(o) && !missing(d) && text(d) !== text(u)) ctx.conflicts.push({ field: fieldName(path), local: d, upstream: u, kind: "added-both" });
    return u;
  }
  if (missing(u) && missing(o)) return d;
  if (text(u) !== text(o)) {
    if (!missing(d) && text(d) !== text(o) && text(d) !== text(u)) ctx.conflicts.push({ field: fieldName(path), local: d, upstream: u, kind: "changed" });
    return u;
  }
  return d;
}

function visitNonAssociative(sources: [unknown, unknown, unknown], path: string[], ctx: MergeContext): Value {
  const [d, o, u] = sources;
  if (isCleared(o, u) || isCleared(o, d)) return CLEAR;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (missing(u) !== missing(o)) {
    if (missing(u) && !missing(d) && !same(d, o)) ctx.conflicts.push({ field: fieldName(path), local: d, upstream: undefined, kind: "removed-upstream" });
    if (missing(o) && !missing(d) && !same(d, u)) ctx.conflicts.push({ field: fieldName(path), local: d, upstream: u, kind: "added-both" });
    return u;
  }
  if (missing(u) && missing(o)) return d;
  if (!same(o, u)) {
    if (!missing(d) && !same(d, o) && !same(d, u)) ctx.conflicts.push({ field: fieldName(path), local: d, upstream: u, kind: "changed" });
    return u;
  }
  return d;
}

function walkAssociative(sources: [unknown, unknown, unknown], key: string, path: string[], ctx: MergeContext): Value {
  const [d, o, u] = sources;
  if (missing(u) && !missing(o)) return CLEAR;
  const dest: unknown[] = Array.isArray(d) ? d : [];
  const keyOf = (e: unknown) =>
    key === "" ? (isObject(e) || Array.isArray(e) ? undefined : text(e)) : isObject(e) && !missing(e[key]) ? text(e[key]) : undefined;
  const values: string[] = [];
  for (const s of sources) {
    if (!Array.isArray(s)) continue;
    for (const e of s) {
      const k = keyOf(e);
      if (k !== undefined && !values.includes(k)) values.push(k);
    }
  }
  const find = (s: unknown, k: string) => (Array.isArray(s) ? s.find((e) => keyOf(e) === k) : undefined);
  const toAdd: { k: string; value: unknown }[] = [];
  for (const k of values) {
    if (key === "") {
      // A list of scalars merged as a set: kept unless upstream removed it.
      const [de, oe, ue] = [find(d, k), find(o, k), find(u, k)];
      const removed = oe !== undefined && ue === undefined;
      if (removed || (de === undefined && oe !== undefined)) {
        const i = dest.findIndex((e) => keyOf(e) === k);
        if (i >= 0) dest.splice(i, 1);
        continue;
      }
      toAdd.push({ k, value: de ?? ue });
      continue;
    }
    const value = walk([find(d, k), find(o, k), find(u, k)], [...path, `[${key}=${k}]`], ctx);
    if (value === CLEAR || missing(value) || (isObject(value) && Object.keys(value).length === 0)) {
      const i = dest.findIndex((e) => keyOf(e) === k);
      if (i >= 0) dest.splice(i, 1);
      continue;
    }
    if (isObject(value) && value[key] === undefined) value[key] = k;
    toAdd.push({ k, value });
  }
  for (const { k, value } of toAdd) {
    const i = dest.findIndex((e) => keyOf(e) === k);
    if (i >= 0) dest[i] = value;
    else dest.push(value);
  }
  return dest;
}

/**
 * The merge key of a list: from the Kubernetes types' patch merge keys for the core workload,
 * Service and metadata fields (kyaml reads them from its OpenAPI data); with `infer`, `name`
 * when every element has one (and the list of Kptfile functions by name or image). Lists of
 * other kinds (custom resources) are replaced as a whole, as kpt's merge does without a schema.
 */
function associativeKey(sources: [unknown, unknown, unknown], path: string[], ctx: MergeContext): string | undefined {
  const p = path.filter((s) => !s.startsWith("["));
  const last = p[p.length - 1];
  const group = ctx.apiVersion.includes("/") ? ctx.apiVersion.slice(0, ctx.apiVersion.indexOf("/")) : "";
  const core = ["", "apps", "batch", "extensions"].includes(group);
  if (p.length === 2 && p[0] === "metadata" && last === "ownerReferences") return "uid";
  if (p.length === 2 && p[0] === "metadata" && last === "finalizers") return "";
  if (core && p.length === 2 && p[0] === "status" && last === "conditions") return "type";
  if (core) {
    const podSpec = podSpecPath(ctx.kind);
    if (podSpec) {
      const rel = startsWith(p, podSpec);
      if (rel && rel.length === 1) {
        const keys: Record<string, string> = {
          containers: "name",
          initContainers: "name",
          ephemeralContainers: "name",
          volumes: "name",
          imagePullSecrets: "name",
          hostAliases: "ip",
          topologySpreadConstraints: "topologyKey",
          resourceClaims: "name",
          schedulingGates: "name",
        };
        if (keys[rel[0]!]) return keys[rel[0]!];
      }
      if (rel && rel.length === 2 && ["containers", "initContainers", "ephemeralContainers"].includes(rel[0]!)) {
        const keys: Record<string, string> = { env: "name", ports: "containerPort", volumeMounts: "mountPath", volumeDevices: "devicePath" };
        if (keys[rel[1]!]) return keys[rel[1]!];
      }
    }
    if (ctx.kind === "Service" && p.length === 2 && p[0] === "spec" && last === "ports") return "port";
  }
  if (ctx.infer) {
    const elements = sources.flatMap((s) => (Array.isArray(s) ? s : []));
    if (elements.length && elements.every((e) => isObject(e) && typeof e.name === "string" && e.name !== "")) return "name";
  }
  return undefined;
}

function podSpecPath(kind: string): string[] | undefined {
  if (kind === "Pod") return ["spec"];
  if (["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController"].includes(kind)) return ["spec", "template", "spec"];
  if (kind === "CronJob") return ["spec", "jobTemplate", "spec", "template", "spec"];
  if (kind === "PodTemplate") return ["template", "spec"];
  return undefined;
}

/** The path after `prefix` when it starts with it (segments of list elements left out). */
function startsWith(path: string[], prefix: string[]): string[] | undefined {
  if (path.length < prefix.length) return undefined;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return undefined;
  return path.slice(prefix.length);
}
