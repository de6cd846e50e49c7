// run/: the use cases, one function each over plain options (validate, render and validate, diff, drift); commands/ and action/ are their adapters.
import { renderEverything } from "../render/repo.js";
import { renderRelease } from "./release.js";
import type { RuntimeOptions } from "../render/runner/select.js";
import { notRenderedFindings } from "../render/not-rendered.js";
import { applyPolicy, objectSuppressions } from "../validate/findings.js";
import { validateRendered } from "../render/validate-rendered.js";
import type { PackageSettings } from "../runtimes/package.js";
import type { Manifest } from "../manifest/manifest.js";
import { findingKey, type Finding } from "../core/finding.js";
import type { RenderedSource } from "../rendered/source.js";
import type { ValidateResult } from "./validate.js";
import { gvkOf } from "../validate/schemas/types.js";
import type { JsonObject } from "../core/json.js";
import { checkRendered } from "../render/policies.js";
import { mergeExplain } from "../policy/index.js";
import type { PolicyExplain } from "../policy/index.js";

export interface RenderStepOptions {
  allowExec: boolean;
  developmentTargets?: Record<string, string>;
  timeoutMs: number;
  /** Where function packages come from (none: only built-ins, configured runtimes and Docker). */
  packages?: PackageSettings;
  maxNestedDepth?: number;
  /** --crossplane-version: the release whose render is printed (else the config's, else the newest modelled). */
  crossplaneVersion?: string;
  /** Functions to run from their real packages rather than their built-ins, where possible (diff: a version moves). */
  realPackages?: RuntimeOptions["realPackages"];
  /** The checkout whose git remotes decide which Porch upstream packages are in this repository (diff's base is a copy without them). */
  gitRoot?: string;
  /** Which sources to render (all when absent): diff renders only the affected ones. */
  select?: (source: Manifest) => boolean;
  /** The base side's rendered object of a key (diff): the policies admit the head's as an UPDATE of it. */
  oldObject?: (source: RenderedSource, key: string) => JsonObject | undefined;
}

/** The render step's options a use case takes from its own (diff, drift): the defaults of check. */
export function renderStepOptions(options: {
  allowExec?: boolean;
  developmentTargets?: Record<string, string>;
  packages?: PackageSettings;
  timeoutMs?: number;
  maxNestedDepth?: number;
  crossplaneVersion?: string;
}): RenderStepOptions {
  return {
    allowExec: options.allowExec ?? false,
    developmentTargets: options.developmentTargets,
    packages: options.packages,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxNestedDepth: options.maxNestedDepth,
    crossplaneVersion: options.crossplaneVersion,
  };
}

/**
 * The render half of check: renders the sources of a validated tree and validates what they make.
 * Findings have the config's levels and the sources' ignore annotations applied.
 */
export async function renderAndValidate(
  result: ValidateResult,
  root: string,
  options: RenderStepOptions,
): Promise<{ sources: RenderedSource[]; findings: Finding[]; policyExplain: PolicyExplain[] }> {
  const sources = await renderEverything(result.index, {
    functions: result.config.functions,
    root,
    allowExec: options.allowExec,
    developmentTargets: options.developmentTargets,
    packages: options.packages,
    trustedPackages: result.config.trustedFunctions,
    maxNestedDepth: options.maxNestedDepth,
    release: renderRelease(options.crossplaneVersion, result.config),
    ...(options.realPackages ? { realPackages: options.realPackages } : {}),
    templateMounts: result.config.templateMounts,
    timeoutMs: options.timeoutMs,
    ...(options.gitRoot ? { gitRoot: options.gitRoot } : {}),
    clusterDefinitions: result.config.clusterDefinitions,
    select: options.select,
    schemaFor: (apiVersion, kind) => result.registry.get(gvkOf(apiVersion, kind))?.schema as JsonObject | undefined,
  });
  const policyRun = checkRendered(result.policies, sources, result.registry, options.oldObject, result.config.crossplaneServiceAccount);
  const findings = [
    ...sources.flatMap((s) => s.findings),
    ...notRenderedFindings(sources),
    ...(await validateRendered(sources, result.registry, result.engine, result.manifests)),
    ...policyRun.findings,
  ];
  // A render finding sits on an XR, a Composition or an ApplicationConfiguration: its ignore annotation applies.
  const suppressions = objectSuppressions(findings, result.manifests);
  // Rendering re-derives some of the validation's findings (a Kptfile's checks): each is reported once.
  const known = new Set(result.findings.map(findingKey));
  return {
    sources,
    findings: applyPolicy(findings, result.config.rules, suppressions).filter((f) => !known.has(findingKey(f))),
    policyExplain: mergeExplain(result.policyExplain, policyRun.explain),
  };
}
