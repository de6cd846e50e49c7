import { re2Error } from "../../../go/re2.js";
import type {
  Combine,
  ConnectionDetail,
  ConvertTransform,
  MatchPattern,
  MathTransform,
  Patch,
  PatchSet,
  ReadinessCheck,
  Resources,
  ComposedTemplate,
  StringTransform,
  Transform,
} from "./types.js";

/**
 * Validation of a patch-and-transform input, with the field paths and wording of
 * apimachinery's field errors (the function reports them as `invalid Function input: ...`).
 */
export type FieldErrorType = "FieldValueRequired" | "FieldValueInvalid";

export class FieldError extends Error {
  constructor(
    public field: string,
    readonly type: FieldErrorType,
    readonly detail: string,
    readonly value?: unknown,
  ) {
    super();
  }

  override get message(): string {
    if (this.type === "FieldValueRequired") return `${this.field}: Required value: ${this.detail}`;
    return `${this.field}: Invalid value: ${reprValue(this.value)}: ${this.detail}`;
  }

  override toString(): string {
    return this.message;
  }
}

function reprValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined || v === null) return "null";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

const required = (field: string, detail: string) => new FieldError(field, "FieldValueRequired", detail);
const invalid = (field: string, value: unknown, detail: string) => new FieldError(field, "FieldValueInvalid", detail, value);

/** Prefixes a field error's path (apimachinery's path.Child(err.Field)). */
export function wrapField(err: FieldError | undefined, prefix: string): FieldError | undefined {
  if (err) err.field = `${prefix}.${err.field}`;
  return err;
}

function firstError<T>(items: T[] | undefined, prefix: string, check: (t: T) => FieldError | undefined) {
  for (const [i, item] of (items ?? []).entries()) {
    const err = check(item);
    if (err) return wrapField(err, `${prefix}[${i}]`);
  }
  return undefined;
}

export function validateResources(r: Resources): FieldError | undefined {
  for (const ps of r.patchSets ?? []) {
    const err = validatePatchSet(ps);
    if (err) return err;
  }
  if (!r.resources?.length && !r.environment?.patches?.length) {
    return required("resources", "resources or environment patches are required");
  }
  return firstError(r.resources, "resources", validateComposedTemplate) ?? wrapField(validateEnvironmentPatches(r.environment?.patches), "environment");
}

export function validateComposedTemplate(t: ComposedTemplate): FieldError | undefined {
  if (!t.name) return required("name", "name is required");
  return (
    firstError(t.patches, "patches", validatePatch) ??
    firstError(t.connectionDetails, "connectionDetails", validateConnectionDetail) ??
    firstError(t.readinessChecks, "readinessChecks", validateReadinessCheck)
  );
}

function validatePatchSet(ps: PatchSet): FieldError | undefined {
  if (!ps.name) return required("name", "name is required");
  return firstError(ps.patches, "patches", validatePatch);
}

const ENVIRONMENT_PATCH_TYPES = new Set([
  "FromCompositeFieldPath",
  "ToCompositeFieldPath",
  "CombineFromComposite",
  "CombineToComposite",
  "FromEnvironmentFieldPath",
  "ToEnvironmentFieldPath",
]);

function validateEnvironmentPatches(patches: Patch[] | undefined): FieldError | undefined {
  for (const [i, p] of (patches ?? []).entries()) {
    const type = patchType(p);
    if (!ENVIRONMENT_PATCH_TYPES.has(type)) return invalid(`patches[${i}][type]`, type, "invalid environment patch type");
    const err = validatePatch(p);
    if (err) return wrapField(err, `patches[${i}]`);
  }
  return undefined;
}

export function patchType(p: Patch): string {
  return p.type ?? "FromCompositeFieldPath";
}

const READINESS_TYPES = new Set(["NonEmpty", "MatchString", "MatchInteger", "MatchTrue", "MatchFalse", "MatchCondition", "None"]);

export function validateReadinessCheck(r: ReadinessCheck): FieldError | undefined {
  if (!READINESS_TYPES.has(r.type)) return invalid("type", r.type ?? "", "unknown readiness check type");
  switch (r.type) {
    case "None":
      return undefined;
    case "MatchString":
      if (r.matchString == null) return required("matchString", "cannot be nil for type MatchString");
      break;
    case "MatchInteger":
      if (r.matchInteger == null) return required("matchInteger", "cannot be nil for type MatchInteger");
      break;
    case "MatchCondition":
      if (!r.matchCondition) return undefined;
      if (!r.matchCondition.type) return required("matchCondition.type", "cannot be empty for type MatchCondition");
      if (!r.matchCondition.status) return required("matchCondition.status", "cannot be empty for type MatchCondition");
      return undefined;
  }
  if (r.fieldPath == null) return required("fieldPath", "cannot be empty");
  return undefined;
}

const FIELD_PATH_PATCHES = new Set(["FromCompositeFieldPath", "ToCompositeFieldPath", "FromEnvironmentFieldPath", "ToEnvironmentFieldPath"]);
const COMBINE_PATCHES = new Set(["CombineFromComposite", "CombineToComposite", "CombineFromEnvironment", "CombineToEnvironment"]);
const TO_POLICIES = new Set([
  "Replace",
  "MergeObjects",
  "MergeObjectsAppendArrays",
  "ForceMergeObjects",
  "ForceMergeObjectsAppendArrays",
  "MergeObject",
  "AppendArray",
]);

export function validatePatch(p: Patch): FieldError | undefined {
  const type = patchType(p);
  if (FIELD_PATH_PATCHES.has(type)) {
    if (!p.fromFieldPath) return required("fromFieldPath", `fromFieldPath must be set for patch type ${type}`);
  } else if (type === "PatchSet") {
    if (!p.patchSetName) return required("patchSetName", `patchSetName must be set for patch type ${type}`);
  } else if (COMBINE_PATCHES.has(type)) {
    if (!p.combine) return required("combine", `combine must be set for patch type ${type}`);
    if (!p.toFieldPath) return required("toFieldPath", `toFieldPath must be set for patch type ${type}`);
    return wrapField(validateCombine(p.combine), "combine");
  } else {
    return invalid("type", type, "unknown patch type");
  }
  const err = firstError(p.transforms, "transforms", validateTransform);
  if (err) return err;
  if (p.policy) {
    const to = toFieldPathPolicy(p);
    if (!TO_POLICIES.has(to)) return invalid("policy.toFieldPathPolicy", to, "unknown toFieldPathPolicy");
    const from = fromFieldPathPolicy(p);
    if (from !== "Required" && from !== "Optional") return invalid("policy.fromFieldPathPolicy", from, "unknown fromFieldPathPolicy");
  }
  return undefined;
}

export function toFieldPathPolicy(p: Patch): string {
  return p.policy?.toFieldPath ?? "Replace";
}

export function fromFieldPathPolicy(p: Patch): string {
  return p.policy?.fromFieldPath ?? "Optional";
}

export function validateCombine(c: Combine): FieldError | undefined {
  if (c.strategy === "string") {
    if (!c.string) return required("string", `string must be set for combine strategy ${c.strategy}`);
  } else if (!c.strategy) {
    return required("strategy", "a combine strategy must be provided");
  } else {
    return invalid("strategy", c.strategy, "unknown strategy type");
  }
  if (!c.variables?.length) return required("variables", "at least one variable must be provided");
  for (const [i, v] of c.variables.entries()) {
    if (!v.fromFieldPath) return required(`variables[${i}].fromFieldPath`, "fromFieldPath must be set for each combine variable");
  }
  return undefined;
}

export function validateTransform(t: Transform): FieldError | undefined {
  switch (t.type) {
    case "math":
      if (!t.math) return required("math", "given transform type math requires configuration");
      return wrapField(validateMathTransform(t.math), "math");
    case "map":
      if (!t.map) return required("map", "given transform type map requires configuration");
      if (Object.keys(t.map).length === 0) {
        return required("map.pairs", "at least one pair must be specified if a map transform is specified");
      }
      return undefined;
    case "match":
      if (!t.match) return required("match", "given transform type match requires configuration");
      if (!t.match.patterns?.length) {
        return required("match.patterns", "at least one pattern must be specified if a match transform is specified");
      }
      return wrapField(firstError(t.match.patterns, "patterns", validateMatchPattern), "match");
    case "string":
      if (!t.string) return required("string", "given transform type string requires configuration");
      return wrapField(validateStringTransform(t.string), "string");
    case "convert":
      if (!t.convert) return required("convert", "given transform type convert requires configuration");
      return wrapField(validateConvertTransform(t.convert), "convert");
    default:
      return invalid("type", t.type, "unknown transform type");
  }
}

export function validateMathTransform(m: MathTransform): FieldError | undefined {
  if (!m.type) return required("type", "math transform type is required");
  switch (m.type) {
    case "Multiply":
      return m.multiply == null ? required("multiply", "must specify a value if a multiply math transform is specified") : undefined;
    case "ClampMin":
      return m.clampMin == null ? required("clampMin", "must specify a value if a clamp min math transform is specified") : undefined;
    case "ClampMax":
      return m.clampMax == null ? required("clampMax", "must specify a value if a clamp max math transform is specified") : undefined;
    default:
      return invalid("type", m.type, "unknown math transform type");
  }
}

function validateMatchPattern(p: MatchPattern): FieldError | undefined {
  switch (p.type ?? "literal") {
    case "literal":
    case "":
      return p.literal == null ? required("literal", "literal pattern type requires a literal") : undefined;
    case "regexp":
      if (p.regexp == null) return required("regexp", "regexp pattern type requires a regexp");
      return re2Error(p.regexp) ? invalid("regexp", p.regexp, "invalid regexp") : undefined;
    default:
      return invalid("type", p.type, "unknown pattern type");
  }
}

function validateStringTransform(s: StringTransform): FieldError | undefined {
  if (!s.type) return required("type", "string transform type is required");
  switch (s.type) {
    case "Format":
      return s.fmt == null ? required("fmt", "format transform requires a format") : undefined;
    case "Convert":
      return s.convert == null ? required("convert", "convert transform requires a conversion type") : undefined;
    case "TrimPrefix":
    case "TrimSuffix":
      return s.trim == null ? required("trim", "trim transform requires a trim value") : undefined;
    case "Regexp":
      if (!s.regexp) return required("regexp", "regexp transform requires a regexp");
      if (!s.regexp.match) return required("regexp.match", "regexp transform requires a match");
      return re2Error(s.regexp.match) ? invalid("regexp.match", s.regexp.match, "invalid regexp") : undefined;
    case "Join":
      return s.join == null ? required("join", "join transform requires a join") : undefined;
    case "Replace":
      if (!s.replace) return required("replace", "replace transform requires a replace");
      return s.replace.search ? undefined : required("replace.search", "replace transform requires a search");
    default:
      return invalid("type", s.type, "unknown string transform type");
  }
}

const IO_TYPES = new Set(["string", "bool", "int", "int64", "float64", "object", "array"]);
const FORMATS = new Set(["none", "quantity", "json"]);

export function isValidIoType(t: string | undefined): boolean {
  return t !== undefined && IO_TYPES.has(t);
}

export function convertFormat(t: ConvertTransform): string {
  return t.format || "none";
}

export function validateConvertTransform(t: ConvertTransform): FieldError | undefined {
  if (!FORMATS.has(convertFormat(t))) return invalid("format", t.format, "invalid format");
  if (!isValidIoType(t.toType)) return invalid("toType", t.toType ?? "", "invalid type");
  return undefined;
}

const CONNECTION_TYPES = new Set(["FromConnectionSecretKey", "FromFieldPath", "FromValue"]);

export function validateConnectionDetail(cd: ConnectionDetail): FieldError | undefined {
  if (!cd.type) return required("type", "connection detail type is required");
  if (!CONNECTION_TYPES.has(cd.type)) return invalid("type", cd.type, "unknown connection detail type");
  if (!cd.name) return required("name", "name is required");
  if (cd.type === "FromValue" && cd.value == null) return required("value", "value connection detail requires a value");
  if (cd.type === "FromConnectionSecretKey" && cd.fromConnectionSecretKey == null) {
    return required("fromConnectionSecretKey", "from connection secret key connection detail requires a key");
  }
  if (cd.type === "FromFieldPath" && cd.fromFieldPath == null) {
    return required("fromFieldPath", "from field path connection detail requires a field path");
  }
  return undefined;
}
