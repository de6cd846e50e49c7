import type { ResourceSelector, RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { getSegments, getString, isNotFound, parseFieldPath, setValue } from "../../manifest/fieldpath.js";
import { ENVIRONMENT_KEY, errorMessage, fatal, responseTo } from "./response.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * function-environment-configs (fn.go): asks for EnvironmentConfigs by name or labels through the
 * requirements loop, then merges their data (in order, at their toFieldPath) over the input's
 * defaultData and the context's environment, into the context key
 * apiextensions.crossplane.io/environment.
 */

const ENV_CONFIG = { apiVersion: "apiextensions.crossplane.io/v1beta1", kind: "EnvironmentConfig" };

interface LabelMatcher {
  type?: string;
  key: string;
  valueFromFieldPath?: string;
  fromFieldPathPolicy?: string;
  value?: string;
}

interface EnvironmentSource {
  type?: string;
  ref?: { name: string };
  selector?: { mode?: string; maxMatch?: number; minMatch?: number; sortByFieldPath?: string; matchLabels?: LabelMatcher[] };
  toFieldPath?: string;
}

interface Input {
  spec?: { defaultData?: JsonObject; environmentConfigs?: EnvironmentSource[]; policy?: { resolution?: string } };
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function requirementsFor(input: Input, oxr: JsonObject): Record<string, ResourceSelector> {
  const resources: Record<string, ResourceSelector> = {};
  (input.spec?.environmentConfigs ?? []).forEach((config, i) => {
    const key = `environment-config-${i}`;
    const type = config.type ?? "";
    if (type === "Reference" || type === "") {
      resources[key] = { ...ENV_CONFIG, matchName: config.ref?.name ?? "" };
      return;
    }
    if (type !== "Selector") return;
    const labels: Record<string, string> = {};
    for (const m of config.selector?.matchLabels ?? []) {
      if ((m.type || "FromCompositeFieldPath") === "Value") {
        labels[m.key] = m.value ?? "";
        continue;
      }
      if (m.type && m.type !== "FromCompositeFieldPath") continue;
      try {
        labels[m.key] = getString(oxr, m.valueFromFieldPath ?? "");
      } catch (err) {
        if (m.fromFieldPathPolicy === "Optional") continue;
        throw new Error(`cannot get value from field path "${m.valueFromFieldPath}": ${errorMessage(err)}`);
      }
    }
    if (Object.keys(labels).length === 0) return;
    resources[key] = { ...ENV_CONFIG, matchLabels: { labels } };
  });
  return resources;
}

/** The Go type of a JSON value, as reflect names it (Kubernetes' decoder: int64 or float64). */
function goType(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** sortRequiredByFieldPath: by the value at `path`; a missing value sorts as its type's zero. */
export function sortRequiredByFieldPath(resources: JsonObject[], path: string): JsonObject[] {
  if (path === "") throw new Error("cannot sort by empty field path");
  const segments = parseFieldPath(path);
  const entries = resources.map((r) => {
    try {
      return { r, v: getSegments(r, segments) };
    } catch (err) {
      if (isNotFound(err)) return { r, v: undefined };
      throw err;
    }
  });
  let type: string | undefined;
  for (const { v } of entries) {
    if (v === undefined || v === null) continue;
    const t = goType(v);
    if (type === undefined) type = t;
    else if (type !== t) throw new Error(`cannot sort values of different types "${type}" and "${t}"`);
  }
  if (type === undefined) return resources;
  if (type !== "string" && type !== "int64" && type !== "float64") throw new Error(`unsupported type "${type}" for sorting`);
  const zero = type === "string" ? "" : 0;
  const value = (v: unknown) => (v === undefined || v === null ? zero : (v as string | number));
  return entries
    .slice()
    .sort((a, b) => {
      const x = value(a.v);
      const y = value(b.v);
      return x < y ? -1 : x > y ? 1 : 0;
    })
    .map((e) => e.r);
}

/** mergeMaps: b over a, maps merged recursively. */
function mergeMaps(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (isObject(v) && isObject(out[k])) out[k] = mergeMaps(out[k] as JsonObject, v);
    else out[k] = v;
  }
  return out;
}

function selected(input: Input, required: Record<string, JsonObject[]>): Map<string, JsonObject[]> {
  const byField = new Map<string, JsonObject[]>();
  const add = (field: string, configs: JsonObject[]) => byField.set(field, [...(byField.get(field) ?? []), ...configs]);
  (input.spec?.environmentConfigs ?? []).forEach((config, i) => {
    const key = `environment-config-${i}`;
    if (!Object.hasOwn(required, key)) return;
    let resources = required[key];
    const field = config.toFieldPath ?? "";
    if ((config.type || "Reference") === "Reference") {
      const name = config.ref?.name ?? "";
      if (resources.length === 0) {
        if (input.spec?.policy?.resolution === "Optional") return;
        throw new Error(`cannot process environment config "${name}" by reference, "${key}": Required environment config "${name}" not found`);
      }
      if (resources.length > 1) {
        throw new Error(
          `cannot process environment config "${name}" by reference, "${key}": expected exactly one required resource "${name}", got ${resources.length}`,
        );
      }
      add(field, resources);
      return;
    }
    if (config.type !== "Selector") return;
    const selector = config.selector;
    const fail = (msg: string) => new Error(`cannot process environment config "${key}" by selector: ${msg}`);
    const mode = selector?.mode || "Single";
    if (mode === "Single") {
      if (resources.length !== 1) throw fail(`expected exactly one required resource, got ${resources.length}`);
      add(field, resources);
    } else if (mode === "Multiple") {
      if (selector?.minMatch !== undefined && resources.length < selector.minMatch) {
        throw fail(`expected at least ${selector.minMatch} required resources, got ${resources.length}`);
      }
      try {
        resources = sortRequiredByFieldPath(resources, selector?.sortByFieldPath || "metadata.name");
      } catch (err) {
        throw fail(errorMessage(err));
      }
      if (selector?.maxMatch !== undefined && resources.length > selector.maxMatch) resources = resources.slice(0, selector.maxMatch);
      if (resources.length > 0) add(field, resources);
    } else throw fail(`unknown selector mode "${selector?.mode}"`);
  });
  return byField;
}

function mergeConfigsData(byField: Map<string, JsonObject[]>): JsonObject {
  let merged: JsonObject = {};
  for (const [field, configs] of byField) {
    for (const c of configs) {
      const name = String((c.metadata as JsonObject | undefined)?.name ?? "");
      let data: JsonObject = {};
      if (field !== "") {
        try {
          setValue(data, field, c.data ?? null);
        } catch {
          throw new Error(`cannot get data from environment config ${name} into path "${field}"`);
        }
      } else {
        if (!Object.hasOwn(c, "data")) throw new Error(`cannot get data from environment config "${name}": data: no such field`);
        if (c.data !== null) {
          if (!isObject(c.data)) {
            throw new Error(
              `cannot get data from environment config "${name}": cannot unmarshal value from JSON: json: cannot unmarshal ${Array.isArray(c.data) ? "array" : typeof c.data === "boolean" ? "bool" : typeof c.data} into Go value of type map[string]interface {}`,
            );
          }
          data = cloneJson(c.data);
        }
      }
      merged = mergeMaps(merged, data);
    }
  }
  return merged;
}

/** function-environment-configs' RunFunction, in process. */
export function runEnvironmentConfigs(req: RunFunctionRequest): RunFunctionResponse {
  const rsp: RunFunctionResponse = responseTo(req);
  // response.To leaves desired unset when the request has none
  if (!req.desired) rsp.desired = undefined;
  const input = (req.input ?? {}) as Input;
  if (!isObject(input.spec ?? {})) return fatal(rsp, "cannot get Function input from *v1.RunFunctionRequest: spec is not an object");
  if (!input.spec?.environmentConfigs) return rsp;

  const oxr = (req.observed?.composite?.resource ?? {}) as JsonObject;
  let resources: Record<string, ResourceSelector>;
  try {
    resources = requirementsFor(input, oxr);
  } catch (err) {
    return fatal(rsp, `cannot build requirements: ${errorMessage(err)}`);
  }
  rsp.requirements = { extraResources: {}, resources, schemas: {} };
  if (Object.keys(req.requiredResources ?? {}).length === 0) return rsp;

  const inputEnv = req.context?.[ENVIRONMENT_KEY];
  if (inputEnv !== undefined && !isObject(inputEnv)) {
    return fatal(rsp, `cannot get Composition environment from *v1.RunFunctionRequest context key "${ENVIRONMENT_KEY}": not an object`);
  }
  const required: Record<string, JsonObject[]> = {};
  for (const [k, v] of Object.entries(req.requiredResources ?? {})) {
    required[k] = (v.items ?? []).map((i) => (i.resource ?? {}) as JsonObject);
  }

  let merged: JsonObject;
  try {
    merged = mergeConfigsData(selected(input, required));
  } catch (err) {
    const msg = errorMessage(err);
    return fatal(rsp, msg.startsWith("cannot process") ? `cannot get selected environment configs: ${msg}` : `cannot merge environment data: ${msg}`);
  }
  if (inputEnv !== undefined) merged = mergeMaps(cloneJson(inputEnv), merged);
  if (input.spec.defaultData) merged = mergeMaps(cloneJson(input.spec.defaultData), merged);
  const apiVersion = typeof merged.apiVersion === "string" ? merged.apiVersion : "";
  const kind = typeof merged.kind === "string" ? merged.kind : "";
  if (apiVersion === "" && kind === "") {
    merged.apiVersion = "internal.crossplane.io/v1alpha1";
    merged.kind = "Environment";
  }
  rsp.context = { ...(rsp.context ?? {}), [ENVIRONMENT_KEY]: merged };
  return rsp;
}
