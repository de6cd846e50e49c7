import type { JsonObject } from "../../core/json.js";
import { isObject } from "../yaml.js";

/**
 * The KRM functions specification's ResourceList, as functions read it on stdin and write it on
 * stdout (config.kubernetes.io/v1): items, functionConfig, results.
 */
export interface ResourceList {
  apiVersion: string;
  kind: "ResourceList";
  items: JsonObject[];
  functionConfig?: JsonObject;
  results?: KrmResult[];
}

export type ResultSeverity = "error" | "warning" | "info" | "";

/** A structured result (kpt's fnresult ResultItem; the Go and TypeScript SDKs write these). */
export interface KrmResult {
  message: string;
  severity?: ResultSeverity;
  resourceRef?: { apiVersion?: string; kind?: string; name?: string; namespace?: string };
  field?: { path?: string; currentValue?: unknown; proposedValue?: unknown };
  file?: { path?: string; index?: number };
  tags?: Record<string, string>;
}

/** What a built-in returns: the ResourceList it writes, and whether it exits 0. */
export interface BuiltinOutcome {
  list: ResourceList;
  ok: boolean;
  /** What the function writes to stderr (the SDKs' failure line). */
  stderr?: string;
}

/** A built-in catalog function; `tag` is the image tag the Kptfile pins, for behaviour that changed between releases. */
export type BuiltinFunction = (list: ResourceList, tag?: string) => BuiltinOutcome;

/** The Go SDK's failure line when a function's Run returns false. */
export const SDK_FAILURE = "failed to evaluate function: error: function failure";

export function isEmptyObject(v: unknown): boolean {
  return !isObject(v) || Object.keys(v).length === 0;
}

/** Go's encoding/json name of a JSON value's type, for its unmarshal errors. */
export function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  if (typeof v === "object") return "object";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

/** Go's json.Marshal of a string map: keys sorted, HTML characters escaped. */
export function goJsonStringMap(m: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) sorted[k] = m[k]!;
  return JSON.stringify(sorted).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** The Go SDK's ResourceList.ToYAML sorts items by "apiVersion kind namespace name" (stable here). */
export function sdkSort(items: JsonObject[]): JsonObject[] {
  const key = (o: JsonObject) => {
    const meta = isObject(o.metadata) ? o.metadata : {};
    return `${String(o.apiVersion ?? "")} ${String(o.kind ?? "")} ${String(meta.namespace ?? "")} ${String(meta.name ?? "")}`;
  };
  return items
    .map((o, i) => ({ o, i, k: key(o) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map((x) => x.o);
}

/** IsGVK of the Go SDK: an empty part on either side matches anything. */
export function isGvk(o: JsonObject, group: string, version: string, kind: string): boolean {
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  const [g, v] = slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const k = typeof o.kind === "string" ? o.kind : "";
  if (k !== "" && kind !== "" && k !== kind) return false;
  if (g !== "" && group !== "" && g !== group) return false;
  if (v !== "" && version !== "" && v !== version) return false;
  return true;
}
