import { groupOf, type Manifest } from "../../../manifest/manifest.js";
import type { Finding } from "../../../core/finding.js";
import { getConversionFunc } from "./transforms.js";
import type { ComposedTemplate, Patch, ReadinessCheck, Resources, Transform } from "./types.js";
import { re2Error } from "../../../go/re2.js";
import { decodeResources } from "./input.js";
import { schemaAtPath, schemaValueType } from "../../../validate/schema-path.js";
import { gvkLabel, gvkOf, type OpenAPISchema } from "../../../validate/schemas/types.js";
import { isLegacyResourcesMode } from "../../../validate/rules/composition.js";
import { asArray, asObject, asString, FindingSink, ptr, type RuleContext } from "../../../validate/rules/context.js";
import { AMBIGUOUS_BOOLEAN, embeddedYaml11 } from "../../../validate/yaml11.js";

/**
 * pt/*: function-patch-and-transform inputs (and `mode: Resources` Compositions) checked
 * against the schemas they patch: field paths exist, transforms fit the values they get,
 * patch sets exist, resource names are unique.
 */

interface Target {
  schema: OpenAPISchema;
  label: string;
}

interface Scope {
  composition: Manifest;
  sink: FindingSink;
  xr?: Target;
}

export function ptRules(ctx: RuleContext): Finding[] {
  const sink = new FindingSink();
  for (const composition of ctx.index.compositions) sink.guard(composition, () => checkComposition(composition, ctx, sink));
  return sink.findings;
}

function checkComposition(composition: Manifest, ctx: RuleContext, sink: FindingSink): void {
  const spec = asObject(composition.object.spec) ?? {};
  const scope: Scope = { composition, sink, xr: xrTarget(spec, ctx, composition.file) };
  // The rules read the input as the function decodes it; one it cannot decode has a schema finding already.
  for (const { input, at } of ptInputs(composition)) {
    const decoded = decodeResources(input);
    if ("input" in decoded) checkInput(scope, decoded.input, at, ctx);
  }
}

/**
 * A Composition's function-patch-and-transform inputs, undecoded, with their pointers: each
 * pipeline step's Resources input, or, in `mode: Resources`, the Composition's own keys.
 */
export function ptInputs(composition: Manifest): { input: Record<string, unknown>; at: string }[] {
  const spec = asObject(composition.object.spec) ?? {};
  if (isLegacyResourcesMode(composition.object)) {
    // Keys the Composition leaves out stay out: undefined is not a value the decoder accepts.
    const legacy = Object.fromEntries(
      Object.entries({ resources: spec.resources, patchSets: spec.patchSets, environment: spec.environment }).filter(([, v]) => v !== undefined),
    );
    return [{ input: legacy, at: "/spec" }];
  }
  const inputs: { input: Record<string, unknown>; at: string }[] = [];
  asArray(spec.pipeline).forEach((raw, i) => {
    const input = asObject(asObject(raw)?.input);
    if (input && groupOf(asString(input.apiVersion) ?? "") === "pt.fn.crossplane.io" && input.kind === "Resources")
      inputs.push({ input, at: ptr("spec", "pipeline", i, "input") });
  });
  return inputs;
}

function xrTarget(spec: Record<string, unknown>, ctx: RuleContext, near: string): Target | undefined {
  const ref = asObject(spec.compositeTypeRef);
  return targetFor(asString(ref?.apiVersion), asString(ref?.kind), ctx, near);
}

/** The schema of a kind as the Composition at `near` sees it (its own package's definition first). */
function targetFor(apiVersion: string | undefined, kind: string | undefined, ctx: RuleContext, near: string): Target | undefined {
  if (!apiVersion || !kind) return undefined;
  const gvk = gvkOf(apiVersion, kind);
  const entry = ctx.registry.get(gvk, near);
  return entry?.schema ? { schema: entry.schema, label: gvkLabel(gvk) } : undefined;
}

function checkInput(scope: Scope, input: Resources, base: string, ctx: RuleContext): void {
  const patchSets = new Map<string, number>();
  asArray(input.patchSets).forEach((ps, k) => {
    const name = asString(asObject(ps)?.name);
    if (name) patchSets.set(name, k);
  });
  const names = new Map<string, number>();
  asArray(input.resources).forEach((raw, i) => {
    const resource = (asObject(raw) ?? {}) as ComposedTemplate;
    const at = `${base}/resources/${i}`;
    if (typeof resource.name === "string") {
      if (names.has(resource.name)) {
        scope.sink.add(
          scope.composition,
          `${at}/name`,
          "pt/duplicate-resource",
          "error",
          `resource name "${resource.name}" is used twice (also resources[${names.get(resource.name)}]); names must be unique in one input`,
        );
      } else names.set(resource.name, i);
    }
    const base_ = asObject(resource.base);
    const composed = targetFor(asString(base_?.apiVersion), asString(base_?.kind), ctx, scope.composition.file);
    if (base_) checkBase(scope, base_, `${at}/base`, ctx);
    asArray(resource.patches).forEach((p, j) => {
      const patch = (asObject(p) ?? {}) as Patch;
      const pAt = `${at}/patches/${j}`;
      if (patch.type !== "PatchSet") return checkPatch(scope, patch, pAt, composed);
      const k = patchSets.get(patch.patchSetName ?? "");
      if (k === undefined) {
        const known = [...patchSets.keys()];
        scope.sink.add(
          scope.composition,
          `${pAt}/patchSetName`,
          "pt/patchset-missing",
          "error",
          `patch set "${patch.patchSetName ?? ""}" is not defined in this input (patch sets: ${known.join(", ") || "none"})`,
        );
        return;
      }
      asArray(asObject(asArray(input.patchSets)[k])?.patches).forEach((sp, m) => {
        checkPatch(scope, (asObject(sp) ?? {}) as Patch, `${base}/patchSets/${k}/patches/${m}`, composed);
      });
    });
    asArray(resource.readinessChecks).forEach((rc, k) =>
      checkReadiness(scope, (asObject(rc) ?? {}) as unknown as ReadinessCheck, `${at}/readinessChecks/${k}`, composed),
    );
  });
  asArray(input.environment?.patches).forEach((p, j) => checkEnvironmentPatch(scope, (asObject(p) ?? {}) as Patch, `${base}/environment/patches/${j}`));
}

/**
 * What a composed resource's base can be checked for before patches fill it: a partial object,
 * so never `required` (and not CEL rules, which read fields patches set), but unknown fields,
 * types, enums and formats, each at the base's own line.
 */
export const BASE_CHECKED_RULES = new Set(["schema/unknown-field", "schema/type", "schema/enum", "schema/format"]);

function checkBase(scope: Scope, base: Record<string, unknown>, at: string, ctx: RuleContext): void {
  const apiVersion = asString(base.apiVersion);
  const kind = asString(base.kind);
  if (!apiVersion || !kind) return;
  const entry = ctx.registry.get(gvkOf(apiVersion, kind), scope.composition.file);
  if (!entry) return;
  const read = embeddedYaml11(scope.composition, at, base, ctx.engine.validateObject(base, entry), (o) => ctx.engine.validateObject(o, entry), ctx.yaml11);
  for (const f of read.findings) scope.sink.add(scope.composition, `${at}${f.pointer}`, AMBIGUOUS_BOOLEAN, "warning", `composed ${kind} base: ${f.message}`);
  // Against a definition elsewhere while a nearer package could not be fetched: a guess, a warning.
  const distant = !ctx.registry.isRelated(entry, scope.composition.file);
  for (const v of read.violations) {
    if (!BASE_CHECKED_RULES.has(v.rule)) continue;
    const severity = distant && (v.severity ?? "error") === "error" ? "warning" : (v.severity ?? "error");
    const against = distant ? ` (checked against ${entry.origin}; the package that defines ${kind} for this Composition could not be fetched)` : "";
    scope.sink.add(scope.composition, `${at}${v.pointer}`, v.rule, severity, `composed ${kind} base: ${v.message}${against}`);
  }
}

/** The patch types between the XR (or environment) and a composed resource; PatchSet is expanded by the caller. */
const RESOURCE_PATCH_TYPES = new Set([
  "FromCompositeFieldPath",
  "CombineFromComposite",
  "FromEnvironmentFieldPath",
  "CombineFromEnvironment",
  "ToCompositeFieldPath",
  "CombineToComposite",
  "ToEnvironmentFieldPath",
  "CombineToEnvironment",
]);

/** A patch between the XR (or environment) and one composed resource. */
function checkPatch(scope: Scope, patch: Patch, at: string, composed: Target | undefined): void {
  const type = patch.type ?? "FromCompositeFieldPath";
  if (!RESOURCE_PATCH_TYPES.has(type)) return; // an unknown type is a schema finding
  let fromType: string | undefined;
  switch (type) {
    case "FromCompositeFieldPath":
      fromType = checkPath(scope, patch.fromFieldPath, `${at}/fromFieldPath`, scope.xr, "pt/from-field-path", "fromFieldPath");
      checkPath(scope, patch.toFieldPath ?? patch.fromFieldPath, `${at}/toFieldPath`, composed, "pt/to-field-path", "toFieldPath");
      break;
    case "CombineFromComposite":
      checkCombineVariables(scope, patch, at);
      checkPath(scope, patch.toFieldPath, `${at}/toFieldPath`, composed, "pt/to-field-path", "toFieldPath");
      break;
    case "FromEnvironmentFieldPath":
    case "CombineFromEnvironment":
      checkPath(scope, patch.toFieldPath, `${at}/toFieldPath`, composed, "pt/to-field-path", "toFieldPath");
      break;
    case "ToCompositeFieldPath":
      fromType = knownType(patch.fromFieldPath, composed);
      checkPath(scope, patch.toFieldPath ?? patch.fromFieldPath, `${at}/toFieldPath`, scope.xr, "pt/to-field-path", "toFieldPath");
      break;
    case "CombineToComposite":
      checkPath(scope, patch.toFieldPath, `${at}/toFieldPath`, scope.xr, "pt/to-field-path", "toFieldPath");
      break;
  }
  if (type.startsWith("Combine")) fromType = combineResultType(patch);
  checkTransforms(scope, asArray(patch.transforms), at, fromType, patch.fromFieldPath);
}

/** A patch between the XR and the environment (`environment.patches`). */
function checkEnvironmentPatch(scope: Scope, patch: Patch, at: string): void {
  const type = patch.type ?? "FromCompositeFieldPath";
  let fromType: string | undefined;
  if (type === "FromCompositeFieldPath")
    fromType = checkPath(scope, patch.fromFieldPath, `${at}/fromFieldPath`, scope.xr, "pt/from-field-path", "fromFieldPath");
  if (type === "CombineFromComposite") checkCombineVariables(scope, patch, at);
  if (type === "ToCompositeFieldPath" || type === "CombineToComposite") {
    checkPath(scope, patch.toFieldPath ?? patch.fromFieldPath, `${at}/toFieldPath`, scope.xr, "pt/to-field-path", "toFieldPath");
  }
  if (type.startsWith("Combine")) fromType = combineResultType(patch);
  checkTransforms(scope, asArray(patch.transforms), at, fromType, patch.fromFieldPath);
}

function checkCombineVariables(scope: Scope, patch: Patch, at: string): void {
  asArray(patch.combine?.variables).forEach((v, k) => {
    const from = asString(asObject(v)?.fromFieldPath);
    checkPath(scope, from, `${at}/combine/variables/${k}/fromFieldPath`, scope.xr, "pt/from-field-path", "fromFieldPath");
  });
}

/** A combine's string strategy yields a string; nothing else is known. */
function combineResultType(patch: Patch): string | undefined {
  return patch.combine?.strategy === "string" ? "string" : undefined;
}

/** Reports a path the target's schema cannot hold; returns the value type when the schema says. */
function checkPath(scope: Scope, path: string | undefined, at: string, target: Target | undefined, rule: string, what: string): string | undefined {
  if (!path || !target) return undefined;
  const result = schemaAtPath(target.schema, path);
  if (result.status === "found") return schemaValueType(result.schema);
  if (result.status === "missing" || result.status === "invalid") {
    scope.sink.add(scope.composition, at, rule, "error", `${what} "${path}" does not exist in the schema of ${target.label}: ${result.message}`);
  }
  return undefined;
}

function knownType(path: string | undefined, target: Target | undefined): string | undefined {
  if (!path || !target) return undefined;
  const result = schemaAtPath(target.schema, path);
  return result.status === "found" ? schemaValueType(result.schema) : undefined;
}

function checkReadiness(scope: Scope, check: ReadinessCheck, at: string, composed: Target | undefined): void {
  const needsPath = ["NonEmpty", "MatchString", "MatchInteger", "MatchTrue", "MatchFalse"].includes(check.type);
  if (!needsPath) return;
  const add = (pointer: string, message: string) => scope.sink.add(scope.composition, pointer, "pt/readiness-field-path", "error", message);
  if (!check.fieldPath) return add(at, `a ${check.type} readiness check needs a fieldPath`);
  const type = checkPath(scope, check.fieldPath, `${at}/fieldPath`, composed, "pt/readiness-field-path", "fieldPath");
  const wants: Record<string, string> = { MatchString: "string", MatchInteger: "integer", MatchTrue: "boolean", MatchFalse: "boolean" };
  const want = wants[check.type];
  if (type && want && type !== want && !(want === "integer" && type === "number")) {
    add(`${at}/type`, `a ${check.type} readiness check on ${check.fieldPath} can never pass: the schema makes it a ${type}`);
  }
}

/** Follows the value type through the transforms, reporting a transform that cannot take its input. */
function checkTransforms(scope: Scope, transforms: unknown[], at: string, inputType: string | undefined, from: string | undefined): void {
  let type = inputType;
  let source = from ? `fromFieldPath "${from}"` : "the combined value";
  transforms.forEach((raw, k) => {
    const t = (asObject(raw) ?? {}) as Transform;
    const tAt = `${at}/transforms/${k}`;
    const add = (pointer: string, message: string) => scope.sink.add(scope.composition, pointer, "pt/transform", "error", message);
    const needs = (want: string[], what: string) => {
      if (type && !want.includes(type)) add(tAt, `a ${what} transform cannot take ${source}: it is a ${type}, and ${what} needs a ${want.join(" or ")}`);
    };
    type = transformOutput(t, type, tAt, needs, add);
    source = `the output of transforms[${k}] (${t.type ?? "?"})`;
  });
}

type Needs = (want: string[], what: string) => void;
type Add = (pointer: string, message: string) => void;

function transformOutput(t: Transform, type: string | undefined, at: string, needs: Needs, add: Add): string | undefined {
  switch (t.type) {
    case "math":
      needs(["integer", "number"], "math");
      return type === "integer" || type === "number" ? type : undefined;
    case "map": {
      const pairs = asObject(t.map);
      if (!pairs || Object.keys(pairs).length === 0) add(`${at}/map`, 'a map transform with no pairs maps nothing: every input fails with "key not found"');
      needs(["string"], "map");
      return undefined;
    }
    case "match":
      asArray(t.match?.patterns).forEach((p, i) => {
        const regexp = asString(asObject(p)?.regexp);
        const err = asObject(p)?.type === "regexp" && regexp !== undefined ? re2Error(regexp) : undefined;
        if (err) add(`${at}/match/patterns/${i}/regexp`, `invalid RE2 regexp ${JSON.stringify(regexp)}: ${err}`);
      });
      needs(["string"], "match");
      return undefined;
    case "string":
      return stringOutput(t, at, needs, add);
    case "convert":
      return convertOutput(t, type, at, add);
    default:
      return undefined;
  }
}

function stringOutput(t: Transform, at: string, needs: Needs, add: Add): string {
  const s = t.string ?? {};
  if (s.type === "Regexp") {
    const err = s.regexp?.match !== undefined ? re2Error(s.regexp.match) : undefined;
    if (err) add(`${at}/string/regexp/match`, `invalid RE2 regexp ${JSON.stringify(s.regexp?.match)}: ${err}`);
  }
  if (s.type === "Join") needs(["array"], "string Join");
  return "string";
}

const GO_TYPES: Record<string, string> = { string: "string", integer: "int64", boolean: "bool", object: "object", array: "array" };
const JSON_TYPES: Record<string, string> = {
  string: "string",
  int: "integer",
  int64: "integer",
  float64: "number",
  bool: "boolean",
  object: "object",
  array: "array",
};

function convertOutput(t: Transform, type: string | undefined, at: string, add: Add): string | undefined {
  const toType = t.convert?.toType;
  if (!toType) return undefined;
  const from = type ? GO_TYPES[type] : undefined;
  if (from) {
    try {
      getConversionFunc(t.convert!, from);
    } catch (err) {
      add(`${at}/convert`, `a convert transform cannot take a ${type}: ${(err as Error).message}`);
    }
  }
  return JSON_TYPES[toType];
}
