import {
  Ready,
  Severity,
  RunFunctionRequest,
  Status,
  Target,
  type Condition,
  type Resource,
  type ResourceSelector,
  type RunFunctionResponse,
} from "@crossplane-org/function-sdk-typescript";
import { ParseError, Template, type Value } from "../../../gotemplate/index.js";
import { parseDuration } from "../../../go/time.js";
import { mergeMaps } from "../../../gotemplate/reflectutil.js";
import { sprigFuncs } from "../../../gotemplate/sprig/index.js";
import { desiredResource, errorMessage, fatal, responseTo } from "../response.js";
import { cloneJson, type JsonObject } from "../../../core/json.js";
import { decodeBase64Prefix, valueInto } from "./values.js";
import { decodeManifests } from "./decode.js";
import type { TemplateFileSystem } from "./filesystem.js";
import { templateFuncs, EXTRA_RESOURCES_KEY } from "./funcs.js";
import { decodeInput } from "./input.js";
import { reproducible } from "./reproducible.js";
import { templateText } from "./source.js";

/** function-go-templating's RunFunction (fn.go), in process. */

const NAME_ANNOTATION = "gotemplating.fn.crossplane.io/composition-resource-name";
const READY_ANNOTATION = "gotemplating.fn.crossplane.io/ready";
const TTL_ANNOTATION = "gotemplating.fn.crossplane.io/ttl";
const META_API_VERSION = "meta.gotemplating.fn.crossplane.io/v1alpha1";
const SYSTEM_CONDITIONS = new Set(["Ready", "Synced", "Healthy"]);

export interface GoTemplatingOptions {
  /** Where FileSystem sources are read from; without it a FileSystem source is an error that says so. */
  fileSystem?: TemplateFileSystem;
  /** The --default-source flag: a directory used when the input has no source. */
  defaultSource?: string;
  /** The --default-options flag: template options, comma-separated. */
  defaultOptions?: string;
  /** Seed and clock of the random and time functions (fixed by default, so renders repeat). */
  seed?: number;
  now?: number;
}

interface Parsed {
  tmpl?: Template;
  error?: string;
}

const CACHE_LIMIT = 256;
const parsedTemplates = new Map<string, Parsed>();

/** Parses once per template text and delimiters; the parse error is kept too. */
function parsed(text: string, left: string, right: string): Parsed {
  const key = `${left}\u0000${right}\u0000${text}`;
  let p = parsedTemplates.get(key);
  if (p) return p;
  const tmpl = new Template("manifests");
  if (left !== "" || right !== "") tmpl.delims(left, right);
  tmpl.funcs(templateFuncs(tmpl)).funcs(sprigFuncs());
  try {
    p = { tmpl: tmpl.parse(text) };
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    p = { error: err.message };
  }
  if (parsedTemplates.size >= CACHE_LIMIT) parsedTemplates.delete(parsedTemplates.keys().next().value!);
  parsedTemplates.set(key, p);
  return p;
}

/** convertToMap: the request as templates see it (protojson, with extraResources filled from requiredResources). */
function requestMap(req: RunFunctionRequest): JsonObject {
  const m = RunFunctionRequest.toJSON(req) as JsonObject;
  if (!Object.hasOwn(m, "extraResources") && Object.hasOwn(m, "requiredResources")) m.extraResources = m.requiredResources;
  return m;
}

const annotationsOf = (o: JsonObject): Record<string, unknown> | undefined => {
  const md = o.metadata as JsonObject | undefined;
  return md && typeof md.annotations === "object" && md.annotations !== null ? (md.annotations as Record<string, unknown>) : undefined;
};

function removeAnnotation(o: JsonObject, key: string): void {
  const a = annotationsOf(o);
  if (a) delete a[key];
}

const READY: Record<string, Ready> = { True: Ready.READY_TRUE, False: Ready.READY_FALSE, Unspecified: Ready.READY_UNSPECIFIED };

function durationSeconds(ns: number): { seconds: number; nanos: number } {
  const seconds = Math.trunc(ns / 1e9);
  return { seconds, nanos: Math.round(ns - seconds * 1e9) };
}

function toSelector(r: JsonObject): ResourceSelector {
  const out: ResourceSelector = { apiVersion: String(r.apiVersion ?? ""), kind: String(r.kind ?? "") };
  const name = typeof r.matchName === "string" ? r.matchName : "";
  if (name === "") {
    out.matchLabels = { labels: { ...((r.matchLabels as Record<string, string> | undefined) ?? {}) } };
    return out;
  }
  out.matchName = name;
  if (typeof r.namespace === "string" && r.namespace !== "") out.namespace = r.namespace;
  return out;
}

function conditionOf(c: JsonObject): Condition {
  const status = c.status === "True" ? Status.STATUS_CONDITION_TRUE : c.status === "False" ? Status.STATUS_CONDITION_FALSE : Status.STATUS_CONDITION_UNKNOWN;
  const out: Condition = {
    type: String(c.type ?? ""),
    status,
    reason: String(c.reason ?? ""),
    target: c.target === "CompositeAndClaim" ? Target.TARGET_COMPOSITE_AND_CLAIM : Target.TARGET_COMPOSITE,
  };
  if (typeof c.message === "string" && c.message !== "") out.message = c.message;
  return out;
}

/** The resources of a request map entry, as Go's encoding/json writes fnv1.Resources. */
function resourcesJson(resources: RunFunctionRequest["extraResources"]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(resources)) {
    const items = (v?.items ?? []).map((r) => {
      const item: JsonObject = {};
      if (r.resource !== undefined) item.resource = cloneJson(r.resource);
      const cd = Object.entries(r.connectionDetails ?? {});
      if (cd.length > 0) item.connection_details = Object.fromEntries(cd.map(([n, b]) => [n, Buffer.from(b).toString("base64")]));
      if (r.ready) item.ready = r.ready;
      return item;
    });
    out[k] = items.length > 0 ? { items } : {};
  }
  return out;
}

function mergeIntoContext(rsp: RunFunctionResponse, req: RunFunctionRequest, resources: RunFunctionRequest["extraResources"]): void {
  let s = resourcesJson(resources);
  const existing = req.context?.[EXTRA_RESOURCES_KEY];
  if (existing !== undefined && existing !== null && typeof existing === "object" && !Array.isArray(existing)) {
    s = { ...(cloneJson(existing) as JsonObject), ...s };
  }
  rsp.context = { ...(rsp.context ?? {}), [EXTRA_RESOURCES_KEY]: s };
}

/** A fatal result; the desired state stays as the request had it (unset when it had none, as response.To leaves it). */
function fail(rsp: RunFunctionResponse, req: RunFunctionRequest, message: string): RunFunctionResponse {
  fatal(rsp, message);
  if (!req.desired) rsp.desired = undefined;
  return rsp;
}

/** A template of the XR itself (no resource name): its status merges into the desired XR's. The error, if any. */
function mergeCompositeStatus(dxrObject: JsonObject, obj: JsonObject): string | undefined {
  const dst = valueInto(dxrObject, "status", "map");
  if ("error" in dst) return `cannot get desired composite status: ${dst.error}`;
  const src = valueInto(obj, "status", "map");
  if ("error" in src) return `cannot get templated composite status: ${src.error}`;
  if (dst.found || src.found) {
    const merged = (dst.value ?? {}) as JsonObject;
    mergeMaps(merged as never, (src.value ?? {}) as never, true);
    dxrObject.status = merged;
  }
  return undefined;
}

type Requirements = { extraResources: Record<string, ResourceSelector>; resources: Record<string, ResourceSelector> };

/**
 * An object of the function's own meta API (meta.gotemplating.fn.crossplane.io): connection
 * details, claim conditions, context or extra resources, applied to the response. The error, if any.
 */
function applyMetaObject(
  obj: JsonObject,
  at: { rsp: RunFunctionResponse; req: RunFunctionRequest; dxr: Resource; requirements: Requirements },
): string | undefined {
  const { rsp, req, dxr, requirements } = at;
  switch (obj.kind) {
    case "CompositeConnectionDetails": {
      const data = obj.data;
      if (data && typeof data === "object" && !Array.isArray(data) && Object.values(data).every((x) => typeof x === "string")) {
        for (const [k, v] of Object.entries(data as Record<string, string>)) dxr.connectionDetails[k] = decodeBase64Prefix(v);
      }
      return undefined;
    }
    case "ClaimConditions": {
      const conds = valueInto(obj, "conditions", "conditions");
      if ("error" in conds) return `cannot get Conditions from input: ${conds.error}`;
      for (const c of (conds.value ?? []) as JsonObject[]) {
        if (SYSTEM_CONDITIONS.has(String(c.type))) return `cannot set ClaimCondition type: ${c.type} is a reserved Crossplane Condition`;
        rsp.conditions.push(conditionOf(c));
      }
      return undefined;
    }
    case "Context": {
      const data = valueInto(obj, "data", "map");
      if ("error" in data) return `cannot get Contexts from input: ${data.error}`;
      const merged = (cloneJson(req.context) ?? {}) as JsonObject;
      const val = (data.value ?? {}) as JsonObject;
      if (Object.keys(val).length > 0) mergeMaps(merged as never, val as never, true);
      rsp.context = { ...(rsp.context ?? {}), ...merged };
      return undefined;
    }
    case "ExtraResources": {
      const ers = valueInto(obj, "requirements", "requirements");
      if ("error" in ers) return `cannot get extra resources requirements: ${ers.error}`;
      for (const [k, v] of Object.entries((ers.value ?? {}) as Record<string, JsonObject>)) {
        if (Object.hasOwn(requirements.extraResources, k)) return `duplicate extra resource key "${k}"`;
        requirements.resources[k] = toSelector(v);
        if (!v.namespace) requirements.extraResources[k] = toSelector(v);
      }
      return undefined;
    }
    default:
      return `invalid kind "${obj.kind}" for apiVersion "${META_API_VERSION}" - must be one of CompositeConnectionDetails, Context or ExtraResources`;
  }
}

/**
 * The input's template, read, parsed and executed against the request, as RunFunction does before
 * it reads the output (the input's ttl set on the response on the way). The output, or the error.
 */
function executeTemplate(
  req: RunFunctionRequest,
  rsp: RunFunctionResponse,
  options: GoTemplatingOptions,
): { output: string; run: ReturnType<typeof reproducible> } | { error: string } {
  let input;
  try {
    input = decodeInput(req.input);
  } catch (err) {
    return { error: `cannot get Function input from *v1.RunFunctionRequest: ${errorMessage(err)}` };
  }
  if (input.source === "" && options.defaultSource) {
    input.source = "FileSystem";
    input.fileSystem = { dirPath: options.defaultSource };
  }
  if (input.ttl) {
    try {
      rsp.meta!.ttl = durationSeconds(parseDuration(input.ttl));
    } catch {
      // an invalid ttl is ignored
    }
  }

  let text: string;
  try {
    text = templateText(input, req.context, options.fileSystem);
  } catch (err) {
    return { error: `invalid function input: ${errorMessage(err)}` };
  }

  const delims = input.delims?.left !== undefined && input.delims?.right !== undefined ? input.delims : { left: "", right: "" };
  const { tmpl, error } = parsed(text, delims.left!, delims.right!);
  if (!tmpl) return { error: `invalid function input: cannot parse the provided templates: ${error}` };

  try {
    tmpl.option("missingkey=default");
    if (input.options !== undefined || options.defaultOptions) tmpl.option(...(input.options ?? options.defaultOptions!.split(",")));
  } catch (err) {
    return { error: `cannot apply template options: panic occurred while applying template options: ${errorMessage(err)}` };
  }

  const run = reproducible(options.seed, options.now);
  try {
    return { output: tmpl.execute(requestMap(req) as Value, run.ctx), run };
  } catch (err) {
    return { error: `cannot execute template: ${errorMessage(err)}` };
  }
}

/** function-go-templating; `options` carry what the Go function gets from its flags and disk. */
export function runGoTemplating(req: RunFunctionRequest, options: GoTemplatingOptions = {}): RunFunctionResponse {
  const rsp = responseTo(req);
  const executed = executeTemplate(req, rsp, options);
  if ("error" in executed) return fail(rsp, req, executed.error);
  const { output, run } = executed;

  const decoded = decodeManifests(output, NAME_ANNOTATION);
  if ("error" in decoded) return fail(rsp, req, decoded.error);

  // request.GetDesiredCompositeResource / GetDesiredComposedResources: readiness of the XR and
  // connection details of composed resources do not survive the round trip.
  const dxr: Resource = desiredResource((cloneJson(req.desired?.composite?.resource) ?? {}) as JsonObject);
  dxr.connectionDetails = { ...(req.desired?.composite?.connectionDetails ?? {}) };
  for (const r of Object.values(rsp.desired.resources)) r.connectionDetails = {};
  const dxrObject = dxr.resource as JsonObject;
  const oxr = cloneJson((req.observed?.composite?.resource ?? {}) as JsonObject);
  const desiredComposed = rsp.desired.resources;
  const requirements: Requirements = { extraResources: {}, resources: {} };

  const ttl = annotationsOf(oxr)?.[TTL_ANNOTATION];
  if (ttl !== undefined) {
    let ns = 0;
    try {
      ns = parseDuration(String(ttl));
    } catch {
      ns = 0;
    }
    rsp.meta!.ttl = durationSeconds(ns);
  }

  for (const obj of decoded.objects) {
    let ready: Ready | undefined;
    if (obj.apiVersion !== META_API_VERSION) {
      const v = annotationsOf(obj)?.[READY_ANNOTATION];
      if (v !== undefined) {
        if (!Object.hasOwn(READY, String(v))) {
          return fail(rsp, req, `invalid function input: invalid "${READY_ANNOTATION}" annotation value "${v}": must be True, False, or Unspecified`);
        }
        ready = READY[String(v)];
        removeAnnotation(obj, READY_ANNOTATION);
      }
    }
    const annotations = annotationsOf(obj);
    const nameFound = annotations !== undefined && Object.hasOwn(annotations, NAME_ANNOTATION);
    const name = nameFound ? String(annotations[NAME_ANNOTATION]) : "";

    if ((obj.apiVersion ?? "") === (oxr.apiVersion ?? "") && (obj.kind ?? "") === (oxr.kind ?? "") && !nameFound) {
      const error = mergeCompositeStatus(dxrObject, obj);
      if (error) return fail(rsp, req, error);
      if (ready !== undefined) dxr.ready = ready;
      continue;
    }

    if (obj.apiVersion === META_API_VERSION) {
      const error = applyMetaObject(obj, { rsp, req, dxr, requirements });
      if (error) return fail(rsp, req, error);
      continue;
    }

    removeAnnotation(obj, NAME_ANNOTATION);
    if (!nameFound) return fail(rsp, req, `"${obj.kind}" template is missing required "${NAME_ANNOTATION}" annotation`);
    desiredComposed[name] = { resource: obj, connectionDetails: {}, ready: ready ?? Ready.READY_UNSPECIFIED };
  }

  rsp.desired.composite = dxr;
  if (Object.keys(requirements.extraResources).length > 0 || Object.keys(requirements.resources).length > 0) {
    rsp.requirements = { ...requirements, schemas: {} };
  }
  if (Object.keys(req.extraResources ?? {}).length > 0) mergeIntoContext(rsp, req, req.extraResources);
  if (Object.keys(req.requiredResources ?? {}).length > 0) mergeIntoContext(rsp, req, req.requiredResources);
  const note = run.note();
  if (note) rsp.results.push({ severity: Severity.SEVERITY_NORMAL, message: note, target: Target.TARGET_COMPOSITE });
  return rsp;
}
