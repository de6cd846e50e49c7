import { createHash } from "node:crypto";
import type { Manifest } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";
import { COMPOSITION_RESOURCE_NAME } from "../manifest/roles.js";
import type { JsonObject } from "../core/json.js";

/**
 * One thing the repository renders from, whatever the engine: an XR or claim through its
 * Composition, or an OAM ApplicationConfiguration through the OAM runtime's semantics.
 */
export interface RenderedSource {
  /** The XR, claim or ApplicationConfiguration manifest. */
  source: Manifest;
  /** What rendered it, for messages: `Composition <name>`, `the OAM runtime`. */
  via: string;
  /** The YAML stream printed for this source. */
  documents: JsonObject[];
  /** The objects it makes (composed resources; workloads, traits and scopes), validated and diffed. */
  objects: JsonObject[];
  /**
   * How each object (same order) is known across renders, so a regenerated name is not a remove
   * plus an add: kind and composition resource name, or kind and name when the name is not generated.
   */
  keys: string[];
  /**
   * Keys of objects the engine, updating them, keeps under the name (and namespace) they already
   * have: OAM traits without `metadata.name`, and a Composition's composed resources (Crossplane
   * keeps an existing one's name and namespace whatever the pipeline asks): a diff keeps the base's.
   */
  namesKept?: string[];
  /** False when nothing could be rendered; `findings` say why, or `notRendered` does. */
  ok: boolean;
  findings: Finding[];
  /**
   * Set when the source was not rendered because composition-ci cannot run what it needs (a
   * function it may not or cannot run, an engine it does not have): the diff is unknown, and it
   * is not the repository's fault. Reported once per function (see not-rendered.ts).
   */
  notRendered?: NotRendered[];
  /**
   * Nested XRs (their keys, `XNetwork/network`) that could not be rendered (no Composition, several
   * that could be chosen, a failing render): the source rendered, but their objects are missing
   * from it, so what it makes is not all known (reports count it failed; the findings say why).
   */
  partial?: string[];
  /** Fields of the XR that patches fill from observed state (`status.arn ← Bucket status.atProvider.arn`): unknown offline. */
  observedReads?: string[];
  /** A claim's XR as Crossplane's claim controller creates it (the claim's spec, at the XRD's referenceable version): admitted like what it composes. */
  claimXr?: JsonObject;
  /** The rendered XR (or Operation): what the render says of the source itself (its status: what functions set, an Operation's outputs). */
  composite?: JsonObject;
  /** Connection details the render produced: secret values, to be masked wherever they show. */
  connectionDetails?: Record<string, Uint8Array>[];
}

/** What could not run for a source, why, and what would let it. */
export interface NotRendered {
  /** A function name, or an engine (`KubeVela`); sources are counted per `what`. */
  what: string;
  /** What kept them from rendering, as the message names it (default: `function <what>`). */
  subject?: string;
  /** The pipeline step that runs it, when a step does. */
  step?: string;
  reason: string;
  fix: string;
  severity: "warning" | "info";
  /** Where the finding goes: the Function object, else the step naming the function. */
  at: { manifest: Manifest; pointer: string };
}

/** The state a source is in after rendering, as reports show it. */
export type SourceState = "rendered" | "not-rendered" | "failed";

/**
 * Whatever kept a source from rendering whole decides: a function composition-ci cannot run
 * (`notRendered`, for a nested XR too), else a failure (of the source, or of a nested XR).
 */
export function sourceState(s: RenderedSource): SourceState {
  if (s.notRendered?.length) return "not-rendered";
  return s.ok && !s.partial?.length ? "rendered" : "failed";
}

/** How many sources are in each state. */
export function stateCounts(sources: RenderedSource[]): { rendered: number; notRendered: number; failed: number } {
  const states = sources.map(sourceState);
  return {
    rendered: states.filter((s) => s === "rendered").length,
    notRendered: states.filter((s) => s === "not-rendered").length,
    failed: states.filter((s) => s === "failed").length,
  };
}

/** A source whose rendering hit a composition-ci bug: the finding says so, and nothing is rendered. */
export function failedInternally(source: Manifest, findings: Finding[]): RenderedSource {
  return { source, via: "composition-ci (internal error)", documents: [], objects: [], keys: [], ok: false, findings };
}

/**
 * How a rendered object is known across renders: kind plus its composition resource name when it
 * has one (composed resources may have generated names), else its name.
 */
/** An object a Composition's pipeline composed: it carries the name of its resource in the pipeline. */
export function isComposedResource(o: JsonObject): boolean {
  return ((o.metadata ?? {}) as { annotations?: Record<string, string> }).annotations?.[COMPOSITION_RESOURCE_NAME] !== undefined;
}

export function renderedObjectKey(o: JsonObject): string {
  const meta = (o.metadata ?? {}) as { name?: string; annotations?: Record<string, string> };
  const id = meta.annotations?.[COMPOSITION_RESOURCE_NAME] ?? meta.name ?? "";
  return `${String(o.kind)}/${id}`;
}

/** How a source is named in reports: `<Kind> <name> (<file>)`. */
export function sourceTitle(m: Manifest): string {
  return `${m.kind} ${m.name ?? ""} (${m.file})`;
}

/** The name a rendered object is shown by in messages. */
export function renderedObjectName(o: JsonObject): string {
  return renderedObjectKey(o).slice(String(o.kind).length + 1);
}

/** `<kind>-<namespace>-<name>.yaml`, lowercased: deterministic per source. */
export function streamFileName(m: Manifest): string {
  return `${[m.kind, m.namespace, m.name ?? "unnamed"].filter(Boolean).join("-")}.yaml`.toLowerCase().replace(/[^a-z0-9.-]+/g, "_");
}

/**
 * One file name per source. Sources of one kind, namespace and name (examples side by side) are
 * told apart by their file (`webapp-shop-storefront--crossplane_xr-copy.yaml`), so a name does not
 * move to another source when a file is added; the same file twice gets `-2`, `-3`, ...
 */
export function streamFileNames(sources: Manifest[]): string[] {
  const plain = sources.map(streamFileName);
  const count = new Map<string, number>();
  for (const name of plain) count.set(name, (count.get(name) ?? 0) + 1);
  const used = new Map<string, number>();
  return sources.map((m, i) => {
    const name =
      count.get(plain[i]!)! > 1
        ? plain[i]!.replace(/\.yaml$/, `--${m.file.replace(/\.(ya?ml|json)$/i, "")}.yaml`.toLowerCase().replace(/[^a-z0-9.-]+/g, "_"))
        : plain[i]!;
    const n = (used.get(name) ?? 0) + 1;
    used.set(name, n);
    return capped(n === 1 ? name : name.replace(/\.yaml$/, `-${n}.yaml`));
  });
}

/** A file name file systems take (255 bytes): a longer one keeps its start and a hash of the rest. */
function capped(name: string): string {
  if (name.length <= 200) return name;
  return `${name.slice(0, 180)}-${createHash("sha256").update(name).digest("hex").slice(0, 12)}.yaml`;
}

/** The key of a claim's XR among what the source makes (`claimXr`): no composed resource has it. */
export const CLAIM_XR_KEY = "(the claim's XR)";
