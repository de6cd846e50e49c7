import type { ResourceSelector, RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { getString } from "../../manifest/fieldpath.js";
import { sortRequiredByFieldPath } from "./environment-configs.js";
import { errorMessage, fatal, responseTo } from "./response.js";
import { cloneJson, type JsonObject } from "../../core/json.js";

/**
 * function-extra-resources (fn.go): asks for resources by name or labels through the
 * requirements loop, checks how many came back, sorts them, and puts them into the context
 * (apiextensions.crossplane.io/extra-resources, or the input's key) as lists keyed by `into`.
 */

export const EXTRA_RESOURCES_KEY = "apiextensions.crossplane.io/extra-resources";

interface LabelMatcher {
  type?: string;
  key: string;
  valueFromFieldPath?: string;
  fromFieldPathPolicy?: string;
  value?: string;
}

interface ResourceSource {
  type?: string;
  ref?: { name: string };
  selector?: { maxMatch?: number; minMatch?: number; sortByFieldPath?: string; matchLabels?: LabelMatcher[] };
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  into: string;
}

interface Input {
  spec?: { context?: { key?: string }; extraResources?: ResourceSource[]; policy?: { resolution?: string } };
}

function requirementsFor(input: Input, oxr: JsonObject): Record<string, ResourceSelector> {
  const out: Record<string, ResourceSelector> = {};
  for (const source of input.spec?.extraResources ?? []) {
    const base: ResourceSelector = { apiVersion: source.apiVersion ?? "", kind: source.kind ?? "" };
    if (source.namespace !== undefined) base.namespace = source.namespace;
    const type = source.type ?? "";
    if (type === "Reference" || type === "") {
      out[source.into] = { ...base, matchName: source.ref?.name ?? "" };
      continue;
    }
    if (type !== "Selector") continue;
    const labels: Record<string, string> = {};
    for (const m of source.selector?.matchLabels ?? []) {
      const mtype = m.type || "FromCompositeFieldPath";
      if (mtype === "Value") {
        if (m.value === undefined || m.value === null) throw new Error("Value cannot be nil for type 'Value'");
        labels[m.key] = m.value;
      } else if (mtype === "FromCompositeFieldPath") {
        if (m.valueFromFieldPath === undefined || m.valueFromFieldPath === null) {
          throw new Error("ValueFromFieldPath cannot be nil for type 'FromCompositeFieldPath'");
        }
        try {
          labels[m.key] = getString(oxr, m.valueFromFieldPath);
        } catch (err) {
          if (m.fromFieldPathPolicy === "Optional") continue;
          throw new Error(`cannot get value from field path "${m.valueFromFieldPath}": ${errorMessage(err)}`);
        }
      }
    }
    if (Object.keys(labels).length === 0) continue;
    out[source.into] = { ...base, matchLabels: { labels } };
  }
  return out;
}

function verifyAndSort(input: Input, required: Record<string, JsonObject[]>): JsonObject {
  const out: JsonObject = {};
  for (const source of input.spec?.extraResources ?? []) {
    const name = source.into;
    if (!Object.hasOwn(required, name)) throw new Error(`cannot find expected extra resource "${name}"`);
    let resources = required[name];
    if ((source.type || "Reference") === "Reference") {
      if (resources.length === 0) {
        if (input.spec?.policy?.resolution === "Optional") continue;
        throw new Error(`Required extra resource "${name}" not found`);
      }
      if (resources.length > 1) throw new Error(`expected exactly one extra resource "${name}", got ${resources.length}`);
    } else if (source.type === "Selector") {
      const s = source.selector;
      if (s?.minMatch !== undefined && resources.length < s.minMatch) {
        throw new Error(`expected at least ${s.minMatch} extra resources "${name}", got ${resources.length}`);
      }
      resources = sortRequiredByFieldPath(resources, s?.sortByFieldPath || "metadata.name");
      if (s?.maxMatch !== undefined && resources.length > s.maxMatch) resources = resources.slice(0, s.maxMatch);
    }
    out[name] = resources.map((r) => cloneJson(r));
  }
  return out;
}

/** function-extra-resources' RunFunction, in process. */
export function runExtraResources(req: RunFunctionRequest): RunFunctionResponse {
  const rsp: RunFunctionResponse = responseTo(req);
  // response.To leaves desired unset when the request has none
  if (!req.desired) rsp.desired = undefined;
  const input = (req.input ?? {}) as Input;
  const oxr = (req.observed?.composite?.resource ?? {}) as JsonObject;
  let resources: Record<string, ResourceSelector>;
  try {
    resources = requirementsFor(input, oxr);
  } catch (err) {
    return fatal(rsp, `could not build extra resource requirements: ${errorMessage(err)}`);
  }
  rsp.requirements = { extraResources: {}, resources, schemas: {} };
  if (Object.keys(req.requiredResources ?? {}).length === 0) return rsp;

  const required: Record<string, JsonObject[]> = {};
  for (const [k, v] of Object.entries(req.requiredResources ?? {})) required[k] = (v.items ?? []).map((i) => (i.resource ?? {}) as JsonObject);
  let extras: JsonObject;
  try {
    extras = verifyAndSort(input, required);
  } catch (err) {
    return fatal(rsp, `verifying and sorting extra resources: ${errorMessage(err)}`);
  }
  const key = input.spec?.context?.key ?? EXTRA_RESOURCES_KEY;
  rsp.context = { ...(rsp.context ?? {}), [key]: extras };
  return rsp;
}
