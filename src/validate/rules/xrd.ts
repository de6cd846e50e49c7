import type { Manifest } from "../../manifest/manifest.js";
import type { Finding } from "../../core/finding.js";
import { toPointer } from "../../manifest/pointer.js";
import { closest } from "../messages.js";
import { SCHEMA_PROPS, unknownFieldsOf } from "../schemas/kubernetes-fields.js";
import { asArray, asObject, asString, FindingSink, type RuleContext } from "./context.js";

/** xrd/*: a CompositeResourceDefinition is consistent in itself and with the repository. */

export function xrdRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  for (const xrd of ctx.index.xrds) {
    const spec = asObject(xrd.object.spec);
    if (!spec) continue;
    sink.guard(xrd, () => {
      checkNames(xrd, spec, sink);
      checkClaimNames(xrd, spec, sink);
      checkReferenceable(xrd, spec, sink);
      checkCompositionRefs(xrd, spec, ctx, sink);
      checkSchemaKeywords(xrd, spec, sink);
    });
  }
  return sink.findings;
}

function checkNames(xrd: Manifest, spec: Record<string, unknown>, sink: FindingSink): void {
  const group = asString(spec.group);
  const names = asObject(spec.names);
  const plural = asString(names?.plural);
  if (!group || !plural) return;
  const add = (pointer: string, message: string) => sink.add(xrd, pointer, "xrd/names", "error", message);
  if (xrd.name !== `${plural}.${group}`) add("/metadata/name", `an XRD must be named <plural>.<group>: "${plural}.${group}", not "${xrd.name ?? ""}"`);
  if (!group.includes(".")) add("/spec/group", `group "${group}" must be a domain name with at least one dot (example.org)`);
  if (plural !== plural.toLowerCase()) add("/spec/names/plural", `plural name "${plural}" must be lowercase`);
}

function checkClaimNames(xrd: Manifest, spec: Record<string, unknown>, sink: FindingSink): void {
  const claim = asObject(spec.claimNames);
  if (!claim) return;
  const names = asObject(spec.names) ?? {};
  const add = (pointer: string, message: string) => sink.add(xrd, pointer, "xrd/claim-names", "error", message);
  const legacy = xrd.apiVersion === "apiextensions.crossplane.io/v1" || spec.scope === "LegacyCluster";
  if (!legacy) add("/spec/claimNames", "only LegacyCluster composite resources can offer claims (set scope: LegacyCluster or drop claimNames)");
  if (claim.kind !== undefined && claim.kind === names.kind)
    add("/spec/claimNames/kind", `the claim kind "${String(claim.kind)}" is the XR kind too; they must differ`);
  if (claim.plural !== undefined && claim.plural === names.plural) {
    add("/spec/claimNames/plural", `the claim plural "${String(claim.plural)}" is the XR plural too; they must differ`);
  }
}

function checkReferenceable(xrd: Manifest, spec: Record<string, unknown>, sink: FindingSink): void {
  const versions = asArray(spec.versions).map((v) => asObject(v) ?? {});
  if (versions.length === 0) return;
  const referenceable = versions.flatMap((v, i) => (v.referenceable === true ? [i] : []));
  const add = (pointer: string, message: string) => sink.add(xrd, pointer, "xrd/referenceable", "error", message);
  if (referenceable.length !== 1) {
    const which = referenceable.map((i) => String(versions[i]!.name)).join(", ");
    add("/spec/versions", `exactly one version must be referenceable; ${referenceable.length === 0 ? "none is" : `${which} are`}`);
    return;
  }
  const i = referenceable[0]!;
  if (versions[i]!.served === false) add(`/spec/versions/${i}/served`, `the referenceable version ${String(versions[i]!.name)} must be served`);
}

function checkCompositionRefs(xrd: Manifest, spec: Record<string, unknown>, ctx: RuleContext, sink: FindingSink): void {
  const group = asString(spec.group);
  const kind = asString(asObject(spec.names)?.kind);
  for (const key of ["defaultCompositionRef", "enforcedCompositionRef"]) {
    const name = asString(asObject(spec[key])?.name);
    if (!name) continue;
    const at = `/spec/${key}/name`;
    const composition = ctx.index.compositions.find((c) => c.name === name);
    if (!composition) {
      const severity = ctx.index.compositions.length === 0 ? "warning" : "error";
      sink.add(xrd, at, "xrd/composition-ref", severity, `${key} names Composition "${name}", which is not in the repository`);
      continue;
    }
    const ref = asObject(asObject(composition.object.spec)?.compositeTypeRef) ?? {};
    const refGroup = asString(ref.apiVersion)?.split("/")[0];
    if (refGroup !== group || ref.kind !== kind) {
      sink.add(
        xrd,
        at,
        "xrd/composition-ref",
        "error",
        `${key} names Composition "${name}" (${composition.file}), which is for ${String(ref.apiVersion)} ${String(ref.kind)}, not ${kind ?? "?"}`,
      );
    }
  }
}

/**
 * Keys of a version's schema that are no schema keyword (`requried`, `minimun`): Crossplane reads
 * the schema into a CRD's JSONSchemaProps, which drops what it does not know, so nothing enforces
 * them and nothing says so.
 */
function checkSchemaKeywords(xrd: Manifest, spec: Record<string, unknown>, sink: FindingSink): void {
  asArray(spec.versions).forEach((version, i) => {
    const schema = asObject(asObject(asObject(version)?.schema)?.openAPIV3Schema);
    if (!schema) return;
    for (const e of unknownFieldsOf(SCHEMA_PROPS, schema)) {
      const { additionalProperty: name, known } = e.params as { additionalProperty: string; known: string[] };
      const guess = closest(name, known);
      const at = `/spec/versions/${i}/schema/openAPIV3Schema${e.instancePath}${toPointer([name])}`;
      sink.add(
        xrd,
        at,
        "xrd/schema-keyword",
        "warning",
        `\`${name}\` is no schema keyword: Crossplane drops it when it makes the XR's CRD, so nothing enforces it${guess ? `; did you mean \`${guess}\`?` : ""}`,
      );
    }
  });
}
