import type { JsonObject } from "../../core/json.js";
import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { findingAt } from "../findings.js";
import { guarded } from "../guard.js";
import { clonePlainJson } from "../../core/json.js";
import type { RepoIndex, XrType } from "../repo-index.js";
import { asObject, asString, type RuleContext } from "./context.js";

/** xr/*: every XR and claim example in the repository has a Composition to render it. */

export function xrRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const source of ctx.index.manifests) {
    const type = ctx.index.xrTypeOf(source);
    if (!type) continue;
    guarded(source, "checking the rules of", out, () => {
      const xr = type.claim ? xrFromClaim(source.object, type) : source.object;
      const picked = pickComposition(xr, ctx.index, type, source.file);
      if (!("object" in picked) && picked.rule === "xr/composition-missing" && picked.certain) out.push(noCompositionFinding(source, picked));
    });
  }
  return out;
}

/** The XR a claim stands for, as the claim reconciler would create it (at the XRD's referenceable version). */
export function xrFromClaim(claim: JsonObject, type: XrType): JsonObject {
  const meta = (claim.metadata ?? {}) as JsonObject;
  const spec = clonePlainJson((claim.spec ?? {}) as JsonObject);
  delete spec.resourceRef;
  delete spec.writeConnectionSecretToRef;
  const labels = {
    ...((meta.labels ?? {}) as Record<string, string>),
    "crossplane.io/claim-name": String(meta.name ?? ""),
    "crossplane.io/claim-namespace": String(meta.namespace ?? "default"),
  };
  const apiVersion = referenceableApiVersion(type.xrd) ?? claim.apiVersion;
  return { apiVersion, kind: type.xrKind, metadata: { name: meta.name, labels }, spec };
}

/** `group/version` of the XRD's referenceable version (the one XRs are reconciled at). */
function referenceableApiVersion(xrd: Manifest): string | undefined {
  const spec = asObject(xrd.object.spec) ?? {};
  const versions = Array.isArray(spec.versions) ? spec.versions.map((v) => asObject(v) ?? {}) : [];
  const version = versions.find((v) => v.referenceable === true) ?? (versions.length === 1 ? versions[0] : undefined);
  return typeof spec.group === "string" && typeof version?.name === "string" ? `${spec.group}/${version.name}` : undefined;
}

interface Selection {
  ref?: string;
  labels?: Record<string, string>;
  /** A selector is set at all (even one with no labels): the XRD's default then does not apply. */
  hasSelector: boolean;
}

/**
 * The XR's own choice: `spec.crossplane.*` for the XRs of a v2 XRD (Namespaced or Cluster scope;
 * their CRD has no `spec.compositionRef`, so one written there is pruned and never read), `spec.*`
 * for legacy XRs (a v1 XRD, or scope LegacyCluster) and claims, as crossplane-runtime's
 * composite reads them.
 */
function selection(xr: JsonObject, type: XrType): Selection {
  const spec = asObject(xr.spec) ?? {};
  // An XR no XRD types says where its choice is by its own shape.
  const holder = type.untyped ? (asObject(spec.crossplane) ?? spec) : isModernXr(type) ? (asObject(spec.crossplane) ?? {}) : spec;
  const selector = asObject(holder.compositionSelector);
  const labels = asObject(selector?.matchLabels);
  return {
    ref: asString(asObject(holder.compositionRef)?.name),
    labels: labels && (Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)])) as Record<string, string>),
    hasSelector: selector !== undefined,
  };
}

/**
 * Why an XR has no Composition: a rule and a message, made into a finding (with a position) only
 * when reported. `certain` when the repository holds Compositions of the XR's type and none is
 * the one: an error of the repository. Without any, the Composition comes from a package or the
 * cluster, and with several the cluster would pick at random: the XR is not rendered, said once.
 */
export interface NoComposition {
  rule: "xr/composition-missing" | "render/composition-ambiguous";
  message: string;
  certain: boolean;
  /** For an ambiguous choice: how many Compositions, and the first names. */
  candidates?: string;
}

export function noCompositionFinding(source: Manifest, why: NoComposition): Finding {
  return findingAt(source, "", why.rule, why.rule === "render/composition-ambiguous" ? "warning" : "error", why.message);
}

/** The first few names, then how many more: a repository of copies would otherwise print hundreds. */
function someNames(compositions: readonly Manifest[], shown = 5): string {
  const names = compositions.slice(0, shown).map((c) => c.name ?? "(unnamed)");
  const more = compositions.length - names.length;
  return more > 0 ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

/**
 * The Composition an XR uses, or why there is none, in the order Crossplane's composite
 * controller selects one: the XRD's enforcedCompositionRef (it overrides the XR's own ref), the
 * XR's compositionRef, the XRD's defaultCompositionRef (only when the XR has neither a ref nor a
 * selector), then the Compositions for the XR's exact apiVersion and kind that carry the selector's
 * labels (all of them without a selector): one is picked; several make Crossplane pick at random.
 * Alternative packages in one repository are never installed together: names and candidates are
 * looked up in the XR's own package first (`near`).
 */
export function pickComposition(xr: JsonObject, index: RepoIndex, type: XrType, near: string): Manifest | NoComposition {
  const xrdSpec = asObject(type.xrd.object.spec) ?? {};
  const ofType = index.compositionsFor(String(xr.apiVersion), String(xr.kind)).length > 0;
  const named = (name: string, why: string): Manifest | NoComposition =>
    index.compositionNamed(name, near) ?? {
      rule: "xr/composition-missing",
      message: `${why} names Composition "${name}", which is not in the repository`,
      certain: ofType,
    };
  const enforced = asString(asObject(xrdSpec.enforcedCompositionRef)?.name);
  if (enforced) return named(enforced, `the enforcedCompositionRef of XRD ${type.xrd.name ?? ""}`);
  const { ref, labels, hasSelector } = selection(xr, type);
  if (ref) return named(ref, "compositionRef");
  const fallback = asString(asObject(xrdSpec.defaultCompositionRef)?.name);
  if (fallback && !hasSelector) return named(fallback, `the defaultCompositionRef of XRD ${type.xrd.name ?? ""}`);
  const forType = oneOfEachName(index.compositionsFor(String(xr.apiVersion), String(xr.kind), near));
  const candidates = labels ? forType.filter((c) => Object.entries(labels).every(([k, v]) => c.object.metadata?.labels?.[k] === v)) : forType;
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    return {
      rule: "xr/composition-missing",
      message: `no Composition in the repository is for ${String(xr.apiVersion)} ${String(xr.kind)}${labels ? ` with the labels ${JSON.stringify(labels)}` : ""}`,
      certain: ofType,
    };
  }
  return {
    rule: "render/composition-ambiguous",
    message: `${candidates.length} Compositions could render this XR (${someNames(candidates)}) and Crossplane would pick one at random; set compositionRef or compositionSelector`,
    certain: false,
    candidates: `${candidates.length} Compositions (${someNames(candidates)})`,
  };
}

/** A cluster holds one Composition of a name: copies of it in a repository (equally near) are one candidate. */
function oneOfEachName(compositions: readonly Manifest[]): readonly Manifest[] {
  const seen = new Set<string>();
  return compositions.filter((c) => {
    const name = c.name ?? "";
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}

function isModernXr(type: XrType): boolean {
  if (type.claim || type.xrd.apiVersion !== "apiextensions.crossplane.io/v2") return false;
  const scope = asString(asObject(type.xrd.object.spec)?.scope) ?? "Namespaced";
  return scope !== "LegacyCluster";
}
