import { cloneJson, type JsonObject } from "../../core/json.js";
import { Ready, Severity, Target, type Resource, type RunFunctionRequest, type RunFunctionResponse, type State } from "@crossplane-org/function-sdk-typescript";

/** Helpers shared by the built-in functions: a response seeded from the request, and results. */

export const ENVIRONMENT_KEY = "apiextensions.crossplane.io/environment";

/** A response that carries the request's desired state and context forward (the SDK's `to`). */
export function responseTo(req: RunFunctionRequest): RunFunctionResponse & { desired: State } {
  return {
    meta: { tag: req.meta?.tag ?? "", ttl: { seconds: 60, nanos: 0 } },
    desired: cloneJson(req.desired) ?? { composite: undefined, resources: {} },
    results: [],
    context: cloneJson(req.context),
    requirements: undefined,
    conditions: [],
    output: undefined,
  };
}

export function fatal(rsp: RunFunctionResponse, message: string): RunFunctionResponse {
  rsp.results.push({ severity: Severity.SEVERITY_FATAL, message, target: Target.TARGET_COMPOSITE });
  return rsp;
}

export function warning(rsp: RunFunctionResponse, message: string): void {
  rsp.results.push({ severity: Severity.SEVERITY_WARNING, message, target: Target.TARGET_COMPOSITE });
}

export function desiredResource(resource: JsonObject, ready: Ready = Ready.READY_UNSPECIFIED): Resource {
  return { resource, connectionDetails: {}, ready };
}

export function observedComposite(req: RunFunctionRequest): JsonObject {
  return (req.observed?.composite?.resource as JsonObject | undefined) ?? {};
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
