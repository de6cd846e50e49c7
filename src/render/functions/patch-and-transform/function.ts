import { Ready, type Resource, type RunFunctionRequest, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { isNotFound } from "../../../manifest/fieldpath.js";
import { ENVIRONMENT_KEY, desiredResource, errorMessage, fatal, observedComposite, responseTo, warning } from "../response.js";
import { cloneJson, type JsonObject } from "../../../core/json.js";
import { extractConnectionDetails, getConnectionSecretRef, supportsConnectionDetails } from "./connection.js";
import { applyComposedPatch, applyEnvironmentPatch, composedTemplates, toComposedResource } from "./patches.js";
import { isReady } from "./ready.js";
import type { ComposedTemplate, Patch, Resources } from "./types.js";
import { decodeResources } from "./input.js";
import { fromFieldPathPolicy, patchType, validateResources } from "./validate.js";

const quote = (s: unknown) => JSON.stringify(s ?? "");

/** function-patch-and-transform's RunFunction, in process. */
export function runPatchAndTransform(req: RunFunctionRequest): RunFunctionResponse {
  const rsp = responseTo(req);
  const decoded = decodeResources(req.input);
  if ("error" in decoded) return fatal(rsp, `cannot get Function input from *v1.RunFunctionRequest: ${decoded.error}`);
  const input = decoded.input;
  const invalid = validateResources(input);
  if (invalid) return fatal(rsp, `invalid Function input: ${invalid.message}`);

  const oxr = observedComposite(req);
  // The desired XR as function-sdk-go reads it: its resource and connection details, not a readiness an earlier step set.
  const previous = rsp.desired.composite;
  const dxrResource: Resource = desiredResource((previous?.resource ?? {}) as JsonObject);
  dxrResource.connectionDetails = { ...(previous?.connectionDetails ?? {}) };
  const dxr = dxrResource.resource as JsonObject;
  dxr.apiVersion = oxr.apiVersion;
  dxr.kind = oxr.kind;

  let templates: ComposedTemplate[];
  try {
    templates = composedTemplates(input.patchSets, input.resources);
  } catch (err) {
    return fatal(rsp, `cannot resolve PatchSets: ${errorMessage(err)}`);
  }

  const env = environmentFrom(req);
  for (const [i, p] of (input.environment?.patches ?? []).entries()) {
    try {
      applyEnvironmentPatch(p, env, oxr, dxr);
    } catch (err) {
      if (isNotFound(err) && fromFieldPathPolicy(p) === "Optional") continue;
      return fatal(rsp, `cannot apply the ${quote(patchType(p))} environment patch at index ${i}: ${errorMessage(err)}`);
    }
  }

  const connection: Record<string, Buffer> = {};
  let skipped = 0;
  for (const t of templates) {
    const outcome = renderTemplate(t, req, rsp, { oxr, dxr, env, connection });
    if (outcome === "fatal") return rsp;
    if (outcome === "skipped") skipped++;
  }
  // A resource left out for a missing required field makes the XR not ready yet.
  if (skipped > 0) dxrResource.ready = Ready.READY_FALSE;

  dxrResource.connectionDetails = { ...dxrResource.connectionDetails, ...connection };
  // A v2 XR has no connection details of its own: they go into a Secret the pipeline composes.
  if (!supportsConnectionDetails(oxr) && Object.keys(dxrResource.connectionDetails).length > 0) {
    try {
      rsp.desired.resources[connectionSecretName(oxr)] = connectionSecret(oxr, dxrResource.connectionDetails, input);
    } catch (err) {
      return fatal(rsp, `cannot compose connection secret: cannot generate connection secret reference: ${errorMessage(err)}`);
    }
  }
  // function-sdk-go's SetDesiredComposedResources keeps each resource and its readiness, not its connection details.
  for (const r of Object.values(rsp.desired.resources)) r.connectionDetails = {};
  rsp.desired.composite = dxrResource;
  rsp.context = { ...(rsp.context ?? {}), [ENVIRONMENT_KEY]: env };
  return rsp;
}

function environmentFrom(req: RunFunctionRequest): JsonObject {
  const env = (cloneJson(req.context?.[ENVIRONMENT_KEY]) as JsonObject | undefined) ?? {};
  if (!env.apiVersion && !env.kind) {
    env.apiVersion = "internal.crossplane.io/v1alpha1";
    env.kind = "Environment";
  }
  return env;
}

interface RenderState {
  oxr: JsonObject;
  dxr: JsonObject;
  env: JsonObject;
  connection: Record<string, Buffer>;
}

function renderTemplate(
  t: ComposedTemplate,
  req: RunFunctionRequest,
  rsp: RunFunctionResponse & { desired: { resources: Record<string, Resource> } },
  s: RenderState,
): "ok" | "skipped" | "fatal" {
  const name = t.name!;
  let composed: JsonObject;
  if (t.base === undefined || t.base === null) {
    const previous = rsp.desired.resources[name]?.resource as JsonObject | undefined;
    if (!previous) {
      fatal(rsp, `composed resource ${quote(name)} has no base template, and was not produced by a previous Function in the pipeline`);
      return "fatal";
    }
    composed = cloneJson(previous);
  } else {
    composed = cloneJson(t.base);
  }
  const dcd = desiredResource(composed);
  // An observed entry counts by its key, even with an empty body (upstream reads `observed[name]`).
  const observedResources = req.observed?.resources ?? {};
  const exists = Object.hasOwn(observedResources, name);
  const observed = exists ? observedResources[name] : undefined;
  const ocd = exists ? ((observed?.resource ?? {}) as JsonObject) : undefined;
  if (ocd) adoptObserved(t, ocd, observed?.connectionDetails ?? {}, dcd, rsp, s);

  for (const [i, p] of (t.patches ?? []).entries()) {
    const result = applyTemplatePatch(p, i, name, Boolean(ocd), rsp, () =>
      applyComposedPatch(p, {
        observedComposed: ocd,
        desiredComposed: composed,
        observedComposite: s.oxr,
        desiredComposite: s.dxr,
        environment: s.env,
      }),
    );
    if (result !== "ok") return result;
  }
  rsp.desired.resources[name] = dcd;
  return "ok";
}

/** Keeps a template tied to its existing resource: its name, readiness and connection details. */
function adoptObserved(t: ComposedTemplate, ocd: JsonObject, secret: Record<string, Buffer>, dcd: Resource, rsp: RunFunctionResponse, s: RenderState): void {
  const name = t.name!;
  const meta = (ocd.metadata ?? {}) as { name?: string; namespace?: string };
  const composed = dcd.resource as JsonObject;
  // apimachinery's setters: an empty value deletes the field, and never creates metadata for it.
  for (const key of ["namespace", "name"] as const) {
    const value = meta[key];
    if (value) ((composed.metadata ??= {}) as JsonObject)[key] = value;
    else if (composed.metadata && typeof composed.metadata === "object") delete (composed.metadata as JsonObject)[key];
  }
  try {
    Object.assign(s.connection, extractConnectionDetails(ocd, secret, t.connectionDetails));
  } catch (err) {
    warning(rsp, `cannot extract composite resource connection details from composed resource ${quote(name)}: ${errorMessage(err)}`);
  }
  try {
    if (isReady(ocd, t.readinessChecks)) dcd.ready = Ready.READY_TRUE;
  } catch (err) {
    warning(rsp, `cannot check readiness of composed resource ${quote(name)}: ${errorMessage(err)}`);
  }
}

function applyTemplatePatch(p: Patch, i: number, name: string, exists: boolean, rsp: RunFunctionResponse, apply: () => void): "ok" | "skipped" | "fatal" {
  try {
    apply();
    return "ok";
  } catch (err) {
    const type = quote(patchType(p));
    if (!isNotFound(err)) {
      fatal(rsp, `cannot render composed resource ${quote(name)} ${type} patch at index ${i}: ${errorMessage(err)}`);
      return "fatal";
    }
    if (fromFieldPathPolicy(p) !== "Required") return "ok";
    if (toComposedResource(p) && !exists) {
      warning(
        rsp,
        `not adding new composed resource ${quote(name)} to desired state because ${type} patch at index ${i} has 'policy.fromFieldPath: Required': ${errorMessage(err)}`,
      );
      return "skipped";
    }
    warning(
      rsp,
      `cannot render composed resource ${quote(name)} ${type} patch at index ${i}: ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists: ${errorMessage(err)}`,
    );
    return "ok";
  }
}

/** The composition resource name of a v2 XR's connection Secret: `<xr name>-connection-secret`. */
export function connectionSecretName(oxr: JsonObject): string {
  return `${String((oxr.metadata as JsonObject | undefined)?.name ?? "")}-connection-secret`;
}

function connectionSecret(oxr: JsonObject, details: Record<string, Uint8Array>, input: Resources): Resource {
  const ref = getConnectionSecretRef(oxr, input.writeConnectionSecretToRef);
  const data = Object.fromEntries(Object.entries(details).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
  const metadata: JsonObject = { name: ref.name };
  if (ref.namespace) metadata.namespace = ref.namespace;
  return desiredResource({ apiVersion: "v1", kind: "Secret", metadata, data, type: "connection.crossplane.io/v1alpha1" }, Ready.READY_TRUE);
}
