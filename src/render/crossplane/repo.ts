import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../report/finding.js";
import { findingAt } from "../../validate/findings.js";
import { isXrd, schemasFromXrd } from "../../validate/schemas/xrd.js";
import type { OpenAPISchema } from "../../validate/schemas/types.js";
import { cloneJson, type JsonObject } from "../functions/response.js";
import { RuntimePool, type FunctionManifest, type RuntimeOptions } from "../runner/select.js";
import { LEGACY_PT_FUNCTION, isLegacyResourcesMode } from "./convert.js";
import { renderComposite, type RenderProblem, type Rendered } from "./render.js";

/** Rendering every XR (and claim) example of a repository with the repo's Compositions and Functions. */

export interface RepoRenderOptions extends RuntimeOptions {
  timeoutMs: number;
  includeFunctionResults?: boolean;
  includeFullXr?: boolean;
}

export interface RenderedSource {
  /** The XR (or claim) manifest that was rendered. */
  source: Manifest;
  composition?: Manifest;
  rendered?: Rendered;
  findings: Finding[];
}

interface XrType {
  xrd: Manifest;
  xrKind: string;
  claim: boolean;
  schema?: OpenAPISchema;
}

function xrTypes(manifests: Manifest[]): Map<string, XrType> {
  const out = new Map<string, XrType>();
  for (const xrd of manifests.filter(isXrd)) {
    const spec = xrd.object.spec as JsonObject;
    const xrKind = (spec.names as { kind?: string } | undefined)?.kind ?? "";
    const claimKind = (spec.claimNames as { kind?: string } | undefined)?.kind;
    for (const s of schemasFromXrd(xrd)) {
      const key = `${s.gvk.group}/${s.gvk.version}/${s.gvk.kind}`;
      out.set(key, { xrd, xrKind, claim: s.gvk.kind === claimKind && s.gvk.kind !== xrKind, schema: s.gvk.kind === xrKind ? s.schema : undefined });
    }
  }
  return out;
}

export function functionManifests(manifests: Manifest[]): Map<string, FunctionManifest> {
  const out = new Map<string, FunctionManifest>();
  for (const m of manifests) {
    if (m.kind !== "Function" || m.group !== "pkg.crossplane.io" || !m.name) continue;
    const annotations = (m.object.metadata?.annotations ?? {}) as Record<string, string>;
    out.set(m.name, { name: m.name, package: (m.object.spec as JsonObject | undefined)?.package as string | undefined, annotations });
  }
  return out;
}

/** The XR a claim stands for, as the claim reconciler would create it. */
export function xrFromClaim(claim: JsonObject, xrKind: string): JsonObject {
  const meta = (claim.metadata ?? {}) as JsonObject;
  const spec = cloneJson((claim.spec ?? {}) as JsonObject);
  delete spec.resourceRef;
  delete spec.writeConnectionSecretToRef;
  const labels = {
    ...((meta.labels ?? {}) as Record<string, string>),
    "crossplane.io/claim-name": String(meta.name ?? ""),
    "crossplane.io/claim-namespace": String(meta.namespace ?? "default"),
  };
  return { apiVersion: claim.apiVersion, kind: xrKind, metadata: { name: meta.name, labels }, spec };
}

function selection(xr: JsonObject): { ref?: string; labels?: Record<string, string> } {
  const spec = (xr.spec ?? {}) as JsonObject;
  const holder = (spec.crossplane ?? spec) as JsonObject;
  return {
    ref: (holder.compositionRef as { name?: string } | undefined)?.name,
    labels: (holder.compositionSelector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels,
  };
}

/** The Composition an XR uses, or a finding saying why there is none. */
export function pickComposition(
  xr: JsonObject,
  source: Manifest,
  compositions: Manifest[],
  xrd: Manifest | undefined,
): Manifest | Finding {
  const forType = compositions.filter((c) => {
    const ref = ((c.object.spec as JsonObject | undefined)?.compositeTypeRef ?? {}) as { apiVersion?: string; kind?: string };
    return ref.apiVersion === xr.apiVersion && ref.kind === xr.kind;
  });
  const { ref, labels } = selection(xr);
  const missing = (message: string) => findingAt(source, "", "xr/composition-missing", "error", message);
  if (ref) return compositions.find((c) => c.name === ref) ?? missing(`compositionRef names Composition "${ref}", which is not in the repository`);
  let candidates = forType;
  if (labels) {
    candidates = forType.filter((c) => Object.entries(labels).every(([k, v]) => c.object.metadata?.labels?.[k] === v));
  }
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    return missing(`no Composition in the repository is for ${String(xr.apiVersion)} ${String(xr.kind)}${labels ? " with the selected labels" : ""}`);
  }
  const fallback = ((xrd?.object.spec as JsonObject | undefined)?.defaultCompositionRef as { name?: string } | undefined)?.name;
  const chosen = fallback ? candidates.find((c) => c.name === fallback) : undefined;
  if (chosen) return chosen;
  return findingAt(
    source,
    "",
    "render/composition-ambiguous",
    "error",
    `${candidates.length} Compositions could render this XR (${candidates.map((c) => c.name).join(", ")}); set compositionRef or compositionSelector`,
  );
}

function problemFinding(p: RenderProblem, source: Manifest, composition: Manifest): Finding {
  const steps = ((composition.object.spec as JsonObject | undefined)?.pipeline ?? []) as { step?: string }[];
  const stepIndex = p.step === undefined ? -1 : steps.findIndex((s) => s.step === p.step);
  const where = stepIndex >= 0 && !isLegacyResourcesMode(composition.object) ? composition : source;
  const pointer = where === composition ? `/spec/pipeline/${stepIndex}` : "";
  let message = p.message;
  if (where === composition) message += ` (rendering ${source.kind} ${source.name ?? ""} from ${source.file})`;
  if (p.detail) message += `\n${p.detail.split("\n").slice(-20).join("\n")}`;
  return findingAt(where, pointer, p.rule, p.severity, message);
}

/** Renders every XR and claim example found among `manifests`. Never throws for bad input. */
export async function renderRepo(manifests: Manifest[], options: RepoRenderOptions): Promise<RenderedSource[]> {
  const types = xrTypes(manifests);
  const compositions = manifests.filter((m) => m.kind === "Composition" && m.group === "apiextensions.crossplane.io");
  const functions = functionManifests(manifests);
  const needsLegacy = compositions.some((c) => isLegacyResourcesMode(c.object)) && !functions.has(LEGACY_PT_FUNCTION);
  const pool = new RuntimePool(functions, {
    ...options,
    functions: needsLegacy ? { [LEGACY_PT_FUNCTION]: { builtin: LEGACY_PT_FUNCTION }, ...options.functions } : options.functions,
  });
  const out: RenderedSource[] = [];
  try {
    for (const source of manifests) {
      const type = types.get(`${source.group}/${source.version}/${source.kind}`);
      if (!type) continue;
      out.push(await renderSource(source, type, types, compositions, pool, options));
    }
  } finally {
    await pool.close();
  }
  return out;
}

async function renderSource(
  source: Manifest,
  type: XrType,
  types: Map<string, XrType>,
  compositions: Manifest[],
  pool: RuntimePool,
  options: RepoRenderOptions,
): Promise<RenderedSource> {
  const xr = type.claim ? xrFromClaim(source.object, type.xrKind) : cloneJson(source.object as JsonObject);
  const picked = pickComposition(xr, source, compositions, type.xrd);
  if (!("object" in picked)) return { source, findings: [picked] };
  const schema = type.claim ? types.get(`${source.group}/${source.version}/${type.xrKind}`)?.schema : type.schema;
  const rendered = await renderComposite({
    xr,
    composition: picked.object as JsonObject,
    runtime: (name) => pool.get(name),
    xrSchema: schema,
    timeoutMs: options.timeoutMs,
    includeFunctionResults: options.includeFunctionResults,
    includeFullXr: options.includeFullXr,
  });
  return { source, composition: picked, rendered, findings: rendered.problems.map((p) => problemFinding(p, source, picked)) };
}
