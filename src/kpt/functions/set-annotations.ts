import type { JsonObject } from "../../core/json.js";
import { fileOf } from "../resources.js";
import { deepCopy, isObject } from "../yaml.js";
import { goJsonStringMap, type BuiltinOutcome, type KrmResult, type ResourceList } from "./types.js";

/**
 * The catalog's set-annotations (functions/go/set-annotations, on kyaml's framework and
 * kustomize's annotations filter): every annotation goes to each resource, local config
 * included, at the field specs the config adds and then kustomize's commonAnnotations specs
 * (metadata/annotations, and the pod templates of the workload kinds), creating fields where a
 * spec says `create`. One result per file, index and field path that was set.
 */

interface FieldSpec {
  group?: string;
  version?: string;
  kind?: string;
  path: string;
  create?: boolean;
}

const COMMON_ANNOTATIONS: FieldSpec[] = [
  { path: "metadata/annotations", create: true },
  { path: "spec/template/metadata/annotations", create: true, version: "v1", kind: "ReplicationController" },
  { path: "spec/template/metadata/annotations", create: true, kind: "Deployment" },
  { path: "spec/template/metadata/annotations", create: true, kind: "ReplicaSet" },
  { path: "spec/template/metadata/annotations", create: true, kind: "DaemonSet" },
  { path: "spec/template/metadata/annotations", create: true, kind: "StatefulSet" },
  { path: "spec/template/metadata/annotations", create: true, group: "batch", kind: "Job" },
  { path: "spec/jobTemplate/metadata/annotations", create: true, group: "batch", kind: "CronJob" },
  { path: "spec/jobTemplate/spec/template/metadata/annotations", create: true, group: "batch", kind: "CronJob" },
];

class ConfigError extends Error {}
class FilterError extends Error {}

export function setAnnotations(input: ResourceList): BuiltinOutcome {
  const list = deepCopy(input);
  let config: { annotations: Record<string, string>; specs: FieldSpec[] };
  try {
    config = configure(list.functionConfig);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return failed(list, `failed to configure function: ${err.message}`);
  }
  const touched = new Map<string, { file: string; index: string; field: string; values: Record<string, string> }>();
  try {
    for (const o of list.items) {
      const { path, index } = fileOf(o);
      for (const key of Object.keys(config.annotations).sort()) {
        for (const spec of config.specs) {
          applySpec(o, spec, (node, field) => {
            node[key] = config.annotations[key]!;
            const id = `${path}\u0000${index}\u0000${field}`;
            const entry = touched.get(id) ?? { file: path, index, field, values: {} };
            entry.values[key] = config.annotations[key]!;
            touched.set(id, entry);
          });
        }
      }
    }
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    return failed(list, `failed to run function: failed to run transformer: ${err.message}`);
  }
  const results: KrmResult[] = [];
  if (touched.size === 0) results.push({ message: "no annotations applied" });
  for (const t of touched.values()) {
    const index = Number.parseInt(t.index, 10);
    const result: KrmResult = { message: `set annotations: ${goJsonStringMap(t.values)}`, field: { path: t.field }, file: { path: t.file } };
    if (Number.isFinite(index) && index !== 0) result.file!.index = index;
    results.push(result);
  }
  list.results = sortResults(results);
  return { list, ok: true };
}

function failed(list: ResourceList, message: string): BuiltinOutcome {
  list.results = [{ message, severity: "error" }];
  return { list, ok: false, stderr: `[error]: ${message}` };
}

function configure(fc: JsonObject | undefined): { annotations: Record<string, string>; specs: FieldSpec[] } {
  const o = fc ?? {};
  let annotations: Record<string, string> = {};
  let additional: FieldSpec[] = [];
  if (o.apiVersion === "v1" && o.kind === "ConfigMap") {
    annotations = stringMap(o.data);
  } else if (o.apiVersion === "fn.kpt.dev/v1alpha1" && (o.kind === "SetAnnotations" || o.kind === "SetAnnotationConfig")) {
    annotations = stringMap(o.annotations);
    const fieldSpecs = o.fieldSpecs === undefined || o.fieldSpecs === null ? undefined : fieldSpecList(o.fieldSpecs);
    const extra = o.additionalAnnotationFields === undefined || o.additionalAnnotationFields === null ? undefined : fieldSpecList(o.additionalAnnotationFields);
    if (extra && fieldSpecs) throw new ConfigError("`fieldSpecs` has been deprecated, please rename it to `additionalAnnotationFields`");
    additional = extra ?? fieldSpecs ?? [];
  } else {
    throw new ConfigError("`functionConfig` must be a `ConfigMap` or `SetAnnotations`");
  }
  if (Object.keys(annotations).length === 0) throw new ConfigError("input annotation list cannot be empty");
  return { annotations, specs: [...additional, ...COMMON_ANNOTATIONS] };
}

function stringMap(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) out[k] = typeof value === "string" ? value : value === null ? "" : String(value);
  return out;
}

function fieldSpecList(v: unknown): FieldSpec[] {
  if (!Array.isArray(v)) throw new ConfigError("failed to unmarshal config: field specs must be a list");
  return v.filter(isObject).map((s) => ({
    group: typeof s.group === "string" ? s.group : undefined,
    version: typeof s.version === "string" ? s.version : undefined,
    kind: typeof s.kind === "string" ? s.kind : undefined,
    path: typeof s.path === "string" ? s.path : "",
    create: s.create === true,
  }));
}

/** kustomize's fieldspec filter: walk `path` (split on unescaped `/`), creating maps when the spec says so, and set at the end. */
function applySpec(o: JsonObject, spec: FieldSpec, set: (node: JsonObject, field: string) => void): void {
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  const [group, version] = slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  if (spec.kind && spec.kind !== o.kind) return;
  if (spec.group && spec.group !== group) return;
  if (spec.version && spec.version !== version) return;
  const path = splitPath(spec.path);
  walk(o, path, [], spec, set);
}

function walk(node: unknown, path: string[], field: string[], spec: FieldSpec, set: (node: JsonObject, field: string) => void): void {
  if (path.length === 0) {
    if (!isObject(node)) throw new FilterError(`considering field '${spec.path}': expected a map to set annotations in`);
    set(node, field.join("."));
    return;
  }
  if (node === null || node === undefined) return;
  if (Array.isArray(node)) {
    for (const element of node) walk(element, path, field, spec, set);
    return;
  }
  if (!isObject(node)) throw new FilterError(`considering field '${spec.path}': expected sequence or mapping node`);
  const raw = path[0]!;
  const isSeq = raw.endsWith("[]");
  const name = isSeq ? raw.slice(0, -2) : raw;
  if (name === "") throw new FilterError("cannot set or create an empty field name");
  let next = node[name];
  if ((next === undefined || next === null) && spec.create && !isSeq) {
    next = {};
    node[name] = next;
  }
  if (next === undefined) return;
  walk(next, path.slice(1), [...field, name], spec, set);
}

/** kyaml's PathSplitter on `/`: a leading slash is allowed, `\/` escapes a slash. */
function splitPath(path: string): string[] {
  let parts = path.split("/");
  if (parts.length > 1 && parts[0] === "") parts = parts.slice(1);
  const out: string[] = [parts[0]!];
  for (const p of parts.slice(1)) {
    const last = out.length - 1;
    if (out[last]!.endsWith("\\")) out[last] = `${out[last]!.slice(0, -1)}/${p}`;
    else out.push(p);
  }
  return out;
}

/** kyaml framework's Results.Sort: by file (path, index), severity, then field path and message. */
function sortResults(results: KrmResult[]): KrmResult[] {
  const rank = (r: KrmResult) => (({ error: 0, warning: 1, info: 2 }) as Record<string, number>)[r.severity ?? ""] ?? 3;
  const text = (r: KrmResult) => `field:${r.field?.path ?? ""},message:${r.message}`;
  return results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const [fa, fb] = [a.r.file?.path ?? "", b.r.file?.path ?? ""];
      if (fa !== fb) return fa < fb ? -1 : 1;
      const d = (a.r.file?.index ?? 0) - (b.r.file?.index ?? 0);
      if (d) return d;
      const s = rank(a.r) - rank(b.r);
      if (s) return s;
      const [ta, tb] = [text(a.r), text(b.r)];
      return ta < tb ? -1 : ta > tb ? 1 : a.i - b.i;
    })
    .map((x) => x.r);
}
