import { Ready, type Resource, type RunFunctionRequest, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { isNotFound } from "../../../manifest/fieldpath.js";
import {
  ENVIRONMENT_KEY,
  cloneJson,
  desiredResource,
  errorMessage,
  fatal,
  observedComposite,
  responseTo,
  warning,
  type JsonObject,
} from "../response.js";
import { extractConnectionDetails, getConnectionSecretRef, supportsConnectionDetails } from "./connection.js";
import { applyComposedPatch, applyEnvironmentPatch, composedTemplates, toComposedResource } from "./patches.js";
import { isReady } from "./ready.js";
import type { ComposedTemplate, Patch, Resources } from "./types.js";
import { decodeResources } from "./input.js";
import { fromFieldPathPolicy, patchType, validateResources } from "./validate.js";

/** Composition resource name of the Secret holding a v2 XR's connection details (our choice). */
export const CONNECTION_SECRET_RESOURCE = "connection-secret";

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
  const dxrResource: Resource = rsp.desired.composite ?? desiredResource({});
  const dxr = (dxrResource.resource ??= {}) as JsonObject;
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
  for (const t of templates) {
    const outcome = renderTemplate(t, req, rsp, { oxr, dxr, env, connection });
    if (outcome === "fatal") return rsp;
  }

  if (supportsConnectionDetails(oxr)) {
    dxrResource.connectionDetails = { ...dxrResource.connectionDetails, ...connection };
  } else if (Object.keys(connection).length > 0) {
    try {
      rsp.desired.resources[CONNECTION_SECRET_RESOURCE] = connectionSecret(oxr, connection, input);
    } catch (err) {
      return fatal(rsp, `cannot generate connection secret reference: ${errorMessage(err)}`);
    }
  }
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
  const observed = req.observed?.resources?.[name];
  const ocd = observed?.resource as JsonObject | undefined;
  if (ocd) adoptObserved(t, ocd, observed!.connectionDetails ?? {}, dcd, rsp, s);

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
function adoptObserved(
  t: ComposedTemplate,
  ocd: JsonObject,
  secret: Record<string, Buffer>,
  dcd: Resource,
  rsp: RunFunctionResponse,
  s: RenderState,
): void {
  const name = t.name!;
  const meta = (ocd.metadata ?? {}) as { name?: string; namespace?: string };
  const composedMeta = ((dcd.resource as JsonObject).metadata ??= {}) as JsonObject;
  if (meta.namespace) composedMeta.namespace = meta.namespace;
  else delete composedMeta.namespace;
  if (meta.name) composedMeta.name = meta.name;
  else delete composedMeta.name;
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

function applyTemplatePatch(
  p: Patch,
  i: number,
  name: string,
  exists: boolean,
  rsp: RunFunctionResponse,
  apply: () => void,
): "ok" | "skipped" | "fatal" {
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

function connectionSecret(oxr: JsonObject, details: Record<string, Buffer>, input: Resources): Resource {
  const ref = getConnectionSecretRef(oxr, input.writeConnectionSecretToRef);
  const data = Object.fromEntries(Object.entries(details).map(([k, v]) => [k, v.toString("base64")]));
  const metadata: JsonObject = { name: ref.name };
  if (ref.namespace) metadata.namespace = ref.namespace;
  return desiredResource(
    { apiVersion: "v1", kind: "Secret", metadata, data, type: "connection.crossplane.io/v1alpha1" },
    Ready.READY_TRUE,
  );
}
