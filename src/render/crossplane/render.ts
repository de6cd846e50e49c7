import { Severity } from "@crossplane-org/function-sdk-typescript";
import type { Severity as FindingSeverity } from "../../core/finding.js";
import type { OpenAPISchema } from "../../validate/schemas/types.js";
import { applyStructural } from "../../validate/structural.js";
import { cloneJson, type JsonObject } from "../../core/json.js";
import { isLegacyResourcesMode } from "../../validate/rules/composition.js";
import { toPipelineComposition } from "./convert.js";
import { EngineError, engineObserved, engineRender, engineTrailer, legacySchema, observedXr, shortCircuit } from "./engine.js";
import { behaviourOf, type CrossplaneRelease } from "../../core/crossplane-releases.js";
import { contextDocument, renderedComposed, renderedComposite, resultDocuments, type OutputOptions } from "./output.js";
import {
  PipelineError,
  PipelineNotRunnable,
  runPipeline,
  type NotRunnableStep,
  type PipelineEnvironment,
  type PipelineStep,
  type StepResult,
} from "./pipeline.js";
import { COMPOSITION_RESOURCE_NAME } from "../../manifest/roles.js";

export interface RenderRequest extends OutputOptions, PipelineEnvironment {
  xr: JsonObject;
  composition: JsonObject;
  /** The XR's schema (from its XRD): its defaults are applied to the XR first. */
  xrSchema?: OpenAPISchema;
  /** The Crossplane release whose `crossplane render` output is printed (default: the newest modelled). */
  release?: CrossplaneRelease;
  /** The XR's XRD, when known: from v2.3.4 a legacy XR's refs are printed at spec.resourceRefs. */
  xrd?: JsonObject;
}

/** Something about a render a user should know; the caller places it in a file. */
export interface RenderProblem {
  rule: string;
  severity: FindingSeverity;
  message: string;
  step?: string;
  functionName?: string;
  detail?: string;
  /** The composition resource name of the rendered object concerned, if any. */
  resourceName?: string;
}

export interface Rendered {
  /** The stream `crossplane render` prints: XR, composed resources, then results and context if asked. */
  documents: JsonObject[];
  xr?: JsonObject;
  composed: JsonObject[];
  results: StepResult[];
  problems: RenderProblem[];
  /** False when the pipeline could not run to the end (nothing was rendered). */
  ok: boolean;
  /** Set when the pipeline was not run because some of its functions cannot run here. */
  notRunnable?: NotRunnableStep[];
  /** Connection details the functions produced (never printed by crossplane render, but secret wherever they show). */
  connectionDetails?: Record<string, Uint8Array>[];
}

const RESULT_SEVERITY: Partial<Record<Severity, FindingSeverity>> = {
  [Severity.SEVERITY_FATAL]: "error",
  [Severity.SEVERITY_WARNING]: "warning",
  [Severity.SEVERITY_NORMAL]: "info",
};

function refMismatch(xr: JsonObject, composition: JsonObject): string | undefined {
  const ref = ((composition.spec as JsonObject | undefined)?.compositeTypeRef ?? {}) as { apiVersion?: string; kind?: string };
  if (ref.apiVersion !== xr.apiVersion || ref.kind !== xr.kind) {
    return `the Composition's compositeTypeRef (${ref.apiVersion ?? "?"}, ${ref.kind ?? "?"}) does not match the XR (${String(xr.apiVersion)}, ${String(xr.kind)})`;
  }
  return undefined;
}

/** Renders one XR through its Composition, as `crossplane render` does. Never throws for bad input. */
/**
 * What patch-and-transform says on every first render of a resource whose Required patch reads a
 * field not set yet (the XR's status, another resource's output): the resource is added once the
 * cluster sets it. Expected offline, so an info, not a warning.
 */
const FIRST_RENDER = /^not adding new composed resource .* to desired state because .*'policy\.fromFieldPath: Required'/;

export async function renderComposite(req: RenderRequest): Promise<Rendered> {
  const problems: RenderProblem[] = [];
  const failed = (problem: RenderProblem): Rendered => ({ documents: [], composed: [], results: [], problems: [...problems, problem], ok: false });
  const mismatch = refMismatch(req.xr, req.composition);
  if (mismatch) return failed({ rule: "render/composition-mismatch", severity: "error", message: mismatch });

  const malformed = malformedComposition(req.composition);
  if (malformed) return failed({ rule: "render/invalid-composition", severity: "error", message: `the Composition cannot be rendered: ${malformed}` });
  let composition = req.composition;
  if (isLegacyResourcesMode(composition)) {
    composition = toPipelineComposition(composition);
    problems.push({
      rule: "render/legacy-mode",
      severity: "warning",
      message:
        "mode: Resources was removed in Crossplane v2; rendered by converting it to a function-patch-and-transform pipeline " +
        "(as `crossplane beta convert pipeline-composition` does)",
    });
  }
  const spec = (composition.spec ?? {}) as JsonObject;
  const steps = (spec.pipeline ?? []) as PipelineStep[];
  // An empty pipeline is valid (the schema asks only that one is there): it composes nothing.
  if (spec.mode !== "Pipeline" || !Array.isArray(spec.pipeline)) {
    return failed({
      rule: "render/no-pipeline",
      severity: "error",
      message: "the Composition has no pipeline to render (spec.mode: Pipeline and spec.pipeline)",
    });
  }

  const copy = cloneJson(req.xr);
  const xr = req.xrSchema ? (applyStructural(req.xrSchema, copy).value as JsonObject) : copy;
  const behaviour = behaviourOf(req.release);
  const compositionName = String(((composition.metadata ?? {}) as JsonObject).name ?? "");
  const legacy = legacySchema(req.xrd, behaviour);
  if (behaviour.engine) {
    const stopped = shortCircuit(xr, behaviour);
    if (stopped) {
      const documents = [stopped.xr, ...engineTrailer(stopped.events, undefined, req)];
      return { documents, xr: stopped.xr, composed: [], results: [], problems, ok: true };
    }
  }
  try {
    const observed = behaviour.engine ? engineObserved(xr, req.observedResources ?? [], behaviour) : req.observedResources;
    const out = await runPipeline({
      xr: behaviour.engine ? observedXr(xr, compositionName, legacy, behaviour) : xr,
      steps,
      runtime: req.runtime,
      observedResources: observed,
      requiredResources: req.requiredResources,
      repositoryObjects: req.repositoryObjects,
      namespaced: req.namespaced,
      context: req.context,
      credentials: req.credentials,
      repositoryInputs: req.repositoryInputs,
      schemaFor: req.schemaFor,
      timeoutMs: req.timeoutMs,
      call: req.call,
    });
    for (const m of out.missing ?? []) {
      problems.push({
        rule: "render/required-missing",
        severity: m.optional ? "info" : "warning",
        message: `step "${m.step}" asked for ${m.what}; it went on without it, so what it makes from it is not in this render (add it to the repository beside the XR or its Composition, or pass it with --required-resources)`,
        step: m.step,
      });
    }
    for (const r of out.results) {
      if (r.severity === Severity.SEVERITY_FATAL) continue;
      const severity = FIRST_RENDER.test(r.message) ? "info" : (RESULT_SEVERITY[r.severity] ?? "info");
      problems.push({ rule: "render/function-result", severity, message: `step "${r.step}": ${r.message}`, step: r.step });
    }
    if (behaviour.engine) {
      const engine = engineRender({ xr, out, observed: observed ?? [], compositionName, behaviour, options: req, legacy });
      const documents = [engine.xr, ...engine.composed, ...engineTrailer(engine.events, out.context, req)];
      const connectionDetails = [out.desired.composite, ...Object.values(out.desired.resources)].flatMap((r) =>
        r?.connectionDetails ? [r.connectionDetails] : [],
      );
      return { documents, xr: engine.xr, composed: engine.composed, results: out.results, problems, ok: true, connectionDetails };
    }
    const observedByName = new Map(
      (req.observedResources ?? []).map((o) => [
        ((o.metadata as JsonObject | undefined)?.annotations as Record<string, string> | undefined)?.[COMPOSITION_RESOURCE_NAME] ?? "",
        o,
      ]),
    );
    const renderedXr = renderedComposite(xr, out, req);
    const { objects, problems: nameProblems } = renderedComposed(xr, out, observedByName);
    for (const p of nameProblems) problems.push({ rule: "render/invalid-name", severity: "error", message: p.message, resourceName: p.resourceName });
    const documents = [renderedXr, ...objects];
    if (req.includeFunctionResults) documents.push(...resultDocuments(out.results));
    if (req.includeContext) documents.push(contextDocument(out.context));
    const connectionDetails = [out.desired.composite, ...Object.values(out.desired.resources)].flatMap((r) =>
      r?.connectionDetails ? [r.connectionDetails] : [],
    );
    return { documents, xr: renderedXr, composed: objects, results: out.results, problems, ok: true, connectionDetails };
  } catch (err) {
    if (err instanceof EngineError)
      return failed({ rule: err.rule, severity: "error", message: err.message, ...(err.resourceName ? { resourceName: err.resourceName } : {}) });
    if (err instanceof PipelineNotRunnable) return { documents: [], composed: [], results: [], problems, ok: false, notRunnable: err.steps };
    if (!(err instanceof PipelineError)) throw err;
    return failed({ rule: err.rule, severity: "error", message: err.message, step: err.step, functionName: err.functionName, detail: err.detail });
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** What makes a Composition impossible to render (the API server would reject it), if anything. */
export function malformedComposition(composition: JsonObject): string | undefined {
  const spec = composition.spec;
  if (!isObject(spec)) return "spec is missing or not an object";
  const listOfObjects = (key: string): string | undefined => {
    const list = spec[key];
    if (list === undefined) return undefined;
    if (!Array.isArray(list)) return `spec.${key} is not a list`;
    const bad = list.findIndex((item) => !isObject(item));
    return bad >= 0 ? `spec.${key}[${bad}] is not an object` : undefined;
  };
  const problem = listOfObjects("pipeline") ?? listOfObjects("resources") ?? listOfObjects("patchSets");
  if (problem) return problem;
  for (const [i, step] of ((spec.pipeline ?? []) as JsonObject[]).entries()) {
    if (typeof step.step !== "string") return `spec.pipeline[${i}].step is not a string`;
    if (!isObject(step.functionRef) || typeof step.functionRef.name !== "string") return `spec.pipeline[${i}].functionRef.name is not a string`;
    if (step.input !== undefined && !isObject(step.input)) return `spec.pipeline[${i}].input is not an object`;
  }
  if (spec.environment !== undefined && !isObject(spec.environment)) return "spec.environment is not an object";
  return undefined;
}
