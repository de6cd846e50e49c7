import type { JsonObject } from "../core/json.js";
import { isObject } from "./yaml.js";

/**
 * The annotations kpt and kyaml keep on resources while a package renders, and small helpers on
 * KRM objects held as plain JSON (key order kept, as kyaml keeps a node's field order).
 */

export const PATH = "internal.config.kubernetes.io/path";
export const INDEX = "internal.config.kubernetes.io/index";
export const ID = "internal.config.kubernetes.io/id";
export const LEGACY_PATH = "config.kubernetes.io/path";
export const LEGACY_INDEX = "config.kubernetes.io/index";
export const LEGACY_ID = "config.k8s.io/id";
export const SEQ_INDENT = "internal.config.kubernetes.io/seqindent";
export const PACKAGE_PATH = "internal.config.kubernetes.io/package-path";
export const MIGRATION_ID = "internal.config.kubernetes.io/annotations-migration-resource-id";
export const RESOURCE_ID = "internal.config.kubernetes.io/kpt-resource-id";
export const UPSTREAM_IDENTIFIER = "internal.kpt.dev/upstream-identifier";

/** The annotations kpt removes before it writes a package back (and we before showing it). */
export const BOOKKEEPING = [PATH, INDEX, ID, LEGACY_PATH, LEGACY_INDEX, LEGACY_ID, SEQ_INDENT, PACKAGE_PATH, MIGRATION_ID, RESOURCE_ID];

export function annotations(o: JsonObject): Record<string, string> {
  const meta = o.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.annotations)) out[k] = typeof v === "string" ? v : v === null || v === undefined ? "" : String(v);
  return out;
}

export function annotation(o: JsonObject, key: string): string | undefined {
  const meta = o.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return undefined;
  const v = meta.annotations[key];
  return v === undefined || v === null ? undefined : String(v);
}

/** kyaml's SetAnnotation: creates metadata and annotations as needed; a new key goes last. */
export function setAnnotation(o: JsonObject, key: string, value: string): void {
  if (!isObject(o.metadata)) o.metadata = {};
  const meta = o.metadata as JsonObject;
  if (!isObject(meta.annotations)) meta.annotations = {};
  (meta.annotations as JsonObject)[key] = value;
}

/** kyaml's ClearAnnotation: removes the key, and the annotations field when it is left empty. */
export function clearAnnotation(o: JsonObject, key: string): void {
  const meta = o.metadata;
  if (!isObject(meta) || !isObject(meta.annotations)) return;
  delete meta.annotations[key];
  if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
}

export function labels(o: JsonObject): Record<string, string> {
  const meta = o.metadata;
  if (!isObject(meta) || !isObject(meta.labels)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.labels)) out[k] = String(v ?? "");
  return out;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : typeof v === "object" ? "" : String(v);
}

export function nameOf(o: JsonObject): string {
  return isObject(o.metadata) ? str(o.metadata.name) : "";
}

export function namespaceOf(o: JsonObject): string {
  return isObject(o.metadata) ? str(o.metadata.namespace) : "";
}

export function hasNamespace(o: JsonObject): boolean {
  return isObject(o.metadata) && typeof o.metadata.namespace === "string";
}

export function apiVersionOf(o: JsonObject): string {
  return str(o.apiVersion);
}

export function kindOf(o: JsonObject): string {
  return str(o.kind);
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/** The file a resource was read from (or a function placed it in), relative to its package, and its index there. */
export function fileOf(o: JsonObject): { path: string; index: string } {
  const a = annotations(o);
  return { path: a[PATH] ?? a[LEGACY_PATH] ?? "", index: a[INDEX] ?? a[LEGACY_INDEX] ?? "" };
}

/** `config.kubernetes.io/local-config` set to anything but "" or "false": kpt live apply skips it. */
export { isLocalConfig } from "../manifest/roles.js";

/** The object without kpt's bookkeeping annotations, as `kpt fn render` writes it back to its file. */
export function withoutBookkeeping(o: JsonObject): JsonObject {
  const copy = structuredClone(o);
  for (const key of BOOKKEEPING) clearAnnotation(copy, key);
  return copy;
}

/**
 * kpt's KRM check (`IsKRM`): apiVersion, kind and metadata.name, except kustomization files;
 * the message as kpt words it, or undefined when the resource is KRM.
 */
export function notKrm(value: unknown, path: string): string | undefined {
  const base = path.split("/").pop() ?? "";
  if (["kustomization.yaml", "kustomization.yml", "Kustomization"].includes(base)) return undefined;
  if (!isObject(value)) return "resource must have `apiVersion`, `kind`, and `name`";
  const apiVersion = str(value.apiVersion);
  if (apiVersion.startsWith("kustomize.config.k8s.io") || (apiVersion === "" && value.kind === "Kustomization")) return undefined;
  if (apiVersion === "") return "resource must have `apiVersion`";
  if (str(value.kind) === "") return "resource must have `kind`";
  if (nameOf(value) === "") return "resource must have `metadata.name`";
  return undefined;
}
