import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../report/finding.js";
import { findingAt } from "../findings.js";
import { guarded } from "../guard.js";
import { cloneJson } from "../structural.js";
import type { RepoIndex } from "../repo-index.js";
import type { RuleContext } from "./context.js";

/** xr/*: every XR and claim example in the repository has a Composition to render it. */

type JsonObject = Record<string, unknown>;

export function xrRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const source of ctx.index.manifests) {
    const type = ctx.index.xrTypes.get(`${source.group}/${source.version}/${source.kind}`);
    if (!type) continue;
    guarded(source, "checking the rules of", out, () => {
      const xr = type.claim ? xrFromClaim(source.object, type.xrKind) : source.object;
      const picked = pickComposition(xr, ctx.index, type.xrd);
      if (!("object" in picked) && picked.rule === "xr/composition-missing") out.push(noCompositionFinding(source, picked));
    });
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

/** Why an XR has no Composition: a rule and a message, made into a finding (with a position) only when reported. */
export interface NoComposition {
  rule: "xr/composition-missing" | "render/composition-ambiguous";
  message: string;
}

export function noCompositionFinding(source: Manifest, why: NoComposition): Finding {
  return findingAt(source, "", why.rule, "error", why.message);
}

/** The Composition an XR uses, or why there is none. */
/** The first few names, then how many more: a repository of copies would otherwise print hundreds. */
function someNames(compositions: Manifest[], shown = 5): string {
  const names = compositions.slice(0, shown).map((c) => c.name ?? "(unnamed)");
  const more = compositions.length - names.length;
  return more > 0 ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

export function pickComposition(xr: JsonObject, index: RepoIndex, xrd: Manifest | undefined): Manifest | NoComposition {
  const forType = index.compositionsFor(String(xr.apiVersion), String(xr.kind));
  const { ref, labels } = selection(xr);
  const missing = (message: string): NoComposition => ({ rule: "xr/composition-missing", message });
  if (ref) return index.compositionNamed(ref) ?? missing(`compositionRef names Composition "${ref}", which is not in the repository`);
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
  return {
    rule: "render/composition-ambiguous",
    message: `${candidates.length} Compositions could render this XR (${someNames(candidates)}); set compositionRef or compositionSelector`,
  };
}

