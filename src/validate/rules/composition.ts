import { groupOf, versionOf, type Manifest } from "../../manifest/manifest.js";
import type { RepoIndex } from "../repo-index.js";
import type { Finding } from "../../core/finding.js";
import { asArray, asObject, asString, FindingSink, ptr, type RuleContext } from "./context.js";
import { closest } from "../messages.js";

/** composition/*: a Composition fits its XRD and its pipeline is well-formed. */

/** Schema findings at the same spot that a composition/pipeline finding says better. */
export const PIPELINE_SUPERSEDES = ["schema/duplicate", "schema/required", "schema/limit", "schema/cel"];

export function compositionRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  for (const composition of ctx.index.compositions) {
    sink.guard(composition, () => {
      checkTypeRef(composition, ctx, sink);
      if (isLegacyResourcesMode(composition.object)) checkMode(composition, ctx, sink);
      else checkPipeline(composition, ctx, sink);
    });
  }
  return sink.findings;
}

/** Whether a Composition uses the legacy `mode: Resources` (explicitly, or by having spec.resources). */
export function isLegacyResourcesMode(composition: Record<string, unknown>): boolean {
  const spec = asObject(composition.spec) ?? {};
  return spec.mode === "Resources" || (spec.mode === undefined && Array.isArray(spec.resources));
}

function checkTypeRef(composition: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const ref = asObject(asObject(composition.object.spec)?.compositeTypeRef);
  const apiVersion = asString(ref?.apiVersion);
  const kind = asString(ref?.kind);
  if (!apiVersion || !kind) return;
  const group = groupOf(apiVersion);
  const at = "/spec/compositeTypeRef";
  const xrds = ctx.index.xrds;
  const xrd = closestXrd(composition, versionOf(apiVersion), ctx.index.xrdsFor(group, kind), ctx.index);
  if (!xrd) {
    const claimOf = xrds.find((x) => xrdGroup(x) === group && xrdNames(x, "claimNames")?.kind === kind);
    const hint = claimOf
      ? `; ${kind} is the claim kind of XRD ${claimOf.name ?? ""}: a Composition names the XR kind (${xrdNames(claimOf, "names")?.kind ?? "?"})`
      : "";
    // The XRD may come from another package or be installed apart: never certain from here.
    sink.add(composition, at, "composition/xrd-missing", "warning", `no CompositeResourceDefinition in the repository defines ${apiVersion} ${kind}${hint}`);
    return;
  }
  checkVersion(composition, xrd, versionOf(apiVersion), sink, ctx.index.layout.related(composition.file, xrd.file));
}

/** `related`: the XRD certainly goes with the Composition (one package, or one directory chain); else a sibling's XRD, and a warning. */
function checkVersion(composition: Manifest, xrd: Manifest, version: string, sink: FindingSink, related: boolean): void {
  const versions = asArray(asObject(xrd.object.spec)?.versions).map((v) => asObject(v) ?? {});
  const names = versions.map((v) => String(v.name));
  const v = versions.find((x) => x.name === version);
  const at = "/spec/compositeTypeRef/apiVersion";
  const say = (message: string) =>
    sink.add(
      composition,
      at,
      "composition/xrd-version",
      related ? "error" : "warning",
      `${message} (XRD ${xrd.name ?? ""} in ${xrd.file}${related ? "" : ", in a sibling directory: it may never be installed with this Composition"})`,
    );
  if (!v) return say(`XRD has no version ${version} (versions: ${names.join(", ") || "none"})`);
  if (v.served === false) return say(`version ${version} is not served`);
  if (xrd.apiVersion === "apiextensions.crossplane.io/v1" && v.referenceable !== true) {
    const referenceable = versions.filter((x) => x.referenceable === true).map((x) => String(x.name));
    say(`version ${version} is not the referenceable version (${referenceable.join(", ") || "none is marked referenceable"}); Compositions must target it`);
  }
}

function checkMode(composition: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const spec = asObject(composition.object.spec) ?? {};
  const at = spec.mode !== undefined ? "/spec/mode" : "/spec/resources";
  const v1 = ctx.config.crossplaneVersion === 1;
  sink.add(
    composition,
    at,
    "composition/mode-resources",
    v1 ? "warning" : "error",
    "mode: Resources was removed in Crossplane v2; convert this Composition to a function pipeline with " +
      "`crossplane beta convert pipeline-composition` (composition-ci renders it through the same conversion)" +
      (v1 ? "" : "; set crossplaneVersion: 1 in .composition-ci.yaml while you still run Crossplane v1"),
  );
}

function checkPipeline(composition: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const spec = asObject(composition.object.spec) ?? {};
  const add = (pointer: string, message: string) => sink.add(composition, pointer, "composition/pipeline", "error", message);
  if (!Array.isArray(spec.pipeline) || spec.pipeline.length === 0) {
    add(Array.isArray(spec.pipeline) ? "/spec/pipeline" : "/spec", "a Pipeline Composition needs at least one step in spec.pipeline");
    return;
  }
  const firstIndex = new Map<string, number>();
  spec.pipeline.forEach((raw, i) => {
    const step = asObject(raw) ?? {};
    const at = ptr("spec", "pipeline", i);
    const name = asString(step.step);
    if (!name) add(at, `pipeline step ${i} has no name (step)`);
    else if (firstIndex.has(name)) add(at, `step name "${name}" is used twice (also step ${firstIndex.get(name)}); step names must be unique`);
    else firstIndex.set(name, i);
    const label = name ? `step "${name}"` : `step ${i}`;
    const fn = asString(asObject(step.functionRef)?.name);
    if (!fn) add(at, `${label} has no functionRef.name: it does not say which Function runs`);
    else checkFunctionKnown(composition, fn, at + "/functionRef/name", label, ctx, sink);
    if (step.input !== undefined) {
      const input = asObject(step.input);
      if (!input || !asString(input.apiVersion) || !asString(input.kind)) {
        add(at + "/input", `the input of ${label} must be an object with apiVersion and kind (the function's input type)`);
      }
    }
  });
}

function checkFunctionKnown(composition: Manifest, fn: string, at: string, label: string, ctx: RuleContext, sink: FindingSink): void {
  if (ctx.index.functions.has(fn) || fn in ctx.config.functions) return;
  // A project's own functions are built by its tooling: rendering says what it cannot run.
  if (ctx.index.embeddedFunction(fn)) return;
  // The usual names of a built-in function: `function-x`, `crossplane-contrib-function-x`, `upbound-function-x`.
  const bare = fn.replace(/^(crossplane-contrib|upbound)-(?=function-)/, "");
  const builtin = bare.startsWith("function-") && ctx.builtinFunctions?.has(bare) ? fn.replace(/^.*?(function-)/, "$1") : undefined;
  if (builtin) {
    sink.add(
      composition,
      at,
      "composition/function-missing",
      "info",
      `${label} runs "${fn}", which has no Function object here; composition-ci runs its built-in ${builtin} for it`,
    );
    return;
  }
  if (ctx.index.dependencyFunctions().has(fn)) return;
  const none = ctx.index.functions.size === 0;
  const guess = functionGuess(fn, ctx);
  const message = `${label} runs Function "${fn}", which is neither a pkg.crossplane.io Function in the repository nor listed under functions: in .composition-ci.yaml${guess ? `; did you mean "${guess}"?` : ""}`;
  sink.addMissing(
    ctx.index,
    composition,
    at,
    { group: "pkg.crossplane.io", kind: "Function", name: fn },
    { rule: "composition/function-missing", severity: none ? "warning" : "error", message },
  );
}

/** The known Function name nearest a missing one, worked out once per name and run (Compositions repeat their steps). */
const guesses = new WeakMap<RuleContext, Map<string, string | undefined>>();
function functionGuess(fn: string, ctx: RuleContext): string | undefined {
  let known = guesses.get(ctx);
  if (!known) guesses.set(ctx, (known = new Map()));
  if (!known.has(fn)) known.set(fn, closest(fn, [...ctx.index.functions.keys(), ...Object.keys(ctx.config.functions)]));
  return known.get(fn);
}

/** Of several XRDs defining the type, the one nearest the Composition (its own package first) among those with the version. */
function closestXrd(composition: Manifest, version: string, xrds: Manifest[], index: RepoIndex): Manifest | undefined {
  if (xrds.length <= 1) return xrds[0];
  return index.layout.nearest(xrdsWithVersion(xrds, version), (x) => x.file, composition.file);
}

/** The XRDs serving a version (all of them when none does), one list per XRD list and version: proximity answers are cached by list. */
const withVersionCache = new WeakMap<Manifest[], Map<string, Manifest[]>>();
function xrdsWithVersion(xrds: Manifest[], version: string): Manifest[] {
  let byVersion = withVersionCache.get(xrds);
  if (!byVersion) withVersionCache.set(xrds, (byVersion = new Map()));
  let found = byVersion.get(version);
  if (!found) {
    const hasVersion = (x: Manifest) => asArray(asObject(x.object.spec)?.versions).some((v) => asObject(v)?.name === version);
    const withVersion = xrds.filter(hasVersion);
    found = withVersion.length ? withVersion : xrds;
    byVersion.set(version, found);
  }
  return found;
}

function xrdGroup(xrd: Manifest): string | undefined {
  return asString(asObject(xrd.object.spec)?.group);
}

function xrdNames(xrd: Manifest, key: "names" | "claimNames"): { kind?: string; plural?: string } | undefined {
  return asObject(asObject(xrd.object.spec)?.[key]) as { kind?: string; plural?: string } | undefined;
}
