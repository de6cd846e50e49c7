import type { JsonObject } from "../../core/json.js";
import { annotations, labels } from "../resources.js";
import { deepCopy, isObject } from "../yaml.js";
import { lookup, PathError, pathMatch, setSlot, slotValue, smarterPathSplitter } from "./kyaml-path.js";
import { matchesSelector, SelectorError } from "./label-selector.js";
import { SDK_FAILURE, sdkSort, type BuiltinOutcome, type ResourceList } from "./types.js";

/**
 * The catalog's apply-replacements (functions/go/apply-replacements): kustomize's replacements
 * filter (api/filters/replacement, kustomize v0.19) over the ResourceList's items, configured by
 * an `ApplyReplacements` object. Each replacement reads one value from the single resource its
 * source selects, and writes it to every field path of every selected target.
 */

interface ResId {
  group: string;
  version: string;
  kind: string;
  name: string;
  namespace: string;
}

interface Options {
  delimiter: string;
  index: number;
  create: boolean;
}

interface Selector extends ResId {
  annotationSelector: string;
  labelSelector: string;
}

interface Replacement {
  source?: ResId & { fieldPath: string; options?: Options };
  targets?: { select?: Selector; reject: Selector[]; fieldPaths: string[]; options?: Options }[];
}

class ReplacementError extends Error {}

const PREVIOUS_NAMES = "internal.config.kubernetes.io/previousNames";
const PREVIOUS_NAMESPACES = "internal.config.kubernetes.io/previousNamespaces";
const PREVIOUS_KINDS = "internal.config.kubernetes.io/previousKinds";

/**
 * Releases before v0.1.2 were built on kustomize api v0.10, whose replacements filter skipped a
 * target field path that does not exist; since kustomize #4789 (api v0.12, apply-replacements
 * v0.1.2) it is an error.
 */
function skipsMissingTargets(tag: string | undefined): boolean {
  const m = /^v?0\.1\.(\d+)$/.exec(tag ?? "") ?? /^v?0\.0\.\d+$/.exec(tag ?? "");
  return m !== null && (m[1] === undefined || Number(m[1]) < 2);
}

export function applyReplacements(input: ResourceList, tag?: string): BuiltinOutcome {
  const lenient = skipsMissingTargets(tag);
  const list = deepCopy(input);
  const results = [...(list.results ?? [])];
  const fail = (message: string): BuiltinOutcome => ({
    list: { ...list, items: sdkSort(list.items), results: [...results, { severity: "error", message }] },
    ok: false,
    stderr: SDK_FAILURE,
  });
  const fc = list.functionConfig;
  if (!fc || Object.keys(fc).length === 0) return fail("FunctionConfig is missing. Expect `ApplyReplacements`");
  if (fc.kind !== "ApplyReplacements" || fc.apiVersion !== "fn.kpt.dev/v1alpha1") {
    return fail(
      `received functionConfig of kind ${String(fc.kind ?? "")} and apiVersion ${String(fc.apiVersion ?? "")}, only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported`,
    );
  }
  let replacements: Replacement[];
  try {
    replacements = decode(fc.replacements);
  } catch (err) {
    if (!(err instanceof ReplacementError)) throw err;
    return fail(`unable to convert functionConfig to replacements:\n${err.message}`);
  }
  try {
    for (const r of replacements) {
      if (!r.source || !r.targets) throw new ReplacementError("replacements must specify a source and at least one target");
      const value = sourceValue(list.items, r.source);
      applyTo(list.items, value, r.targets, lenient);
    }
  } catch (err) {
    if (err instanceof ReplacementError || err instanceof PathError || err instanceof SelectorError) return fail(err.message);
    throw err;
  }
  return { list: { ...list, items: sdkSort(list.items), results }, ok: true };
}

function text(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

function decodeResId(o: JsonObject): ResId {
  return { group: text(o.group), version: text(o.version), kind: text(o.kind), name: text(o.name), namespace: text(o.namespace) };
}

function decodeOptions(v: unknown): Options | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new ReplacementError("json: cannot unmarshal into Go struct field options of type types.FieldOptions");
  const index = v.index === undefined ? 0 : Number(v.index);
  if (!Number.isInteger(index)) throw new ReplacementError("json: cannot unmarshal into Go struct field FieldOptions.index of type int");
  return { delimiter: text(v.delimiter), index, create: v.create === true };
}

function decodeSelector(v: unknown): Selector {
  if (!isObject(v)) throw new ReplacementError("json: cannot unmarshal into Go struct field TargetSelector.select of type types.Selector");
  return { ...decodeResId(v), annotationSelector: text(v.annotationSelector), labelSelector: text(v.labelSelector) };
}

function decode(v: unknown): Replacement[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ReplacementError("json: cannot unmarshal object into Go struct field Replacements.replacements of type []types.Replacement");
  return v.map((raw) => {
    if (!isObject(raw)) throw new ReplacementError("json: cannot unmarshal into Go value of type types.Replacement");
    const r: Replacement = {};
    if (isObject(raw.source)) r.source = { ...decodeResId(raw.source), fieldPath: text(raw.source.fieldPath), options: decodeOptions(raw.source.options) };
    if (Array.isArray(raw.targets)) {
      r.targets = raw.targets.filter(isObject).map((t) => ({
        select: t.select === undefined || t.select === null ? undefined : decodeSelector(t.select),
        reject: Array.isArray(t.reject) ? t.reject.map(decodeSelector) : [],
        fieldPaths: Array.isArray(t.fieldPaths) ? t.fieldPaths.map(text) : [],
        options: decodeOptions(t.options),
      }));
    }
    return r;
  });
}

/** The resource's ids: its own, then those of its previous names (kustomize's build annotations). */
function resIds(o: JsonObject): ResId[] {
  const apiVersion = text(o.apiVersion);
  const slash = apiVersion.indexOf("/");
  const [group, version] = slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const meta = isObject(o.metadata) ? o.metadata : {};
  const ids: ResId[] = [{ group, version, kind: text(o.kind), name: text(meta.name), namespace: text(meta.namespace) }];
  const a = annotations(o);
  if (a[PREVIOUS_NAMES] === undefined) return ids;
  const names = a[PREVIOUS_NAMES]!.split(",");
  const namespaces = (a[PREVIOUS_NAMESPACES] ?? "").split(",");
  const kinds = (a[PREVIOUS_KINDS] ?? "").split(",");
  if (names.length !== namespaces.length || names.length !== kinds.length) {
    throw new ReplacementError("number of previous names, number of previous namespaces, number of previous kinds not equal");
  }
  names.forEach((name, i) => ids.push({ group, version, kind: kinds[i]!, name, namespace: namespaces[i]! }));
  return ids;
}

/** ResId.IsSelectedBy: names and GVK parts compare when the selector sets them; namespaces as effective ones ("" is default). */
function isSelectedBy(id: ResId, selector: ResId): boolean {
  const effective = (ns: string) => (ns === "" ? "default" : ns);
  return (
    (selector.name === "" || selector.name === id.name) &&
    (selector.namespace === "" || effective(selector.namespace) === effective(id.namespace)) &&
    (selector.group === "" || selector.group === id.group) &&
    (selector.version === "" || selector.version === id.version) &&
    (selector.kind === "" || selector.kind === id.kind)
  );
}

function resIdString(id: ResId): string {
  const gvk = [id.kind || "[noKind]", id.version || "[noVer]", id.group || "[noGrp]"].join(".");
  return `${gvk}/${id.name || "[noName]"}.${id.namespace || "[noNs]"}`;
}

function sourceString(s: NonNullable<Replacement["source"]>): string {
  const parts = [resIdString(s)];
  if (s.fieldPath) parts.push(s.fieldPath);
  if (s.options && (s.options.delimiter || s.options.create)) parts.push(`${s.options.delimiter}(${s.options.index}), create=${s.options.create}`);
  return parts.join(":");
}

function sourceValue(items: JsonObject[], source: NonNullable<Replacement["source"]>): unknown {
  const matches = items.filter((o) => resIds(o).some((id) => isSelectedBy(id, source)));
  if (matches.length > 1) throw new ReplacementError(`multiple matches for selector ${sourceString(source)}`);
  if (matches.length === 0) throw new ReplacementError(`nothing selected by ${sourceString(source)}`);
  const fieldPath = source.fieldPath || "metadata.name";
  let value: unknown;
  try {
    value = lookup(matches[0], smarterPathSplitter(fieldPath, "."));
  } catch (err) {
    if (err instanceof PathError) throw new ReplacementError(`error looking up replacement source: ${err.message}`);
    throw err;
  }
  if (value === undefined || value === null || (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0)) {
    throw new ReplacementError(`fieldPath \`${fieldPath}\` is missing for replacement source ${resIdString(source)}`);
  }
  const options = source.options;
  if (!options || options.delimiter === "") return deepCopy(value);
  if (isObject(value) || Array.isArray(value)) throw new ReplacementError("delimiter option can only be used with scalar nodes");
  const parts = text(value).split(options.delimiter);
  if (options.index >= parts.length || options.index < 0)
    throw new ReplacementError(`options.index ${options.index} is out of bounds for value ${text(value)}`);
  return parts[options.index];
}

function matchesAnnoAndLabel(o: JsonObject, selector: Selector): boolean {
  return matchesSelector(selector.annotationSelector, annotations(o)) && matchesSelector(selector.labelSelector, labels(o));
}

function isEmptyResId(s: ResId): boolean {
  return !s.group && !s.version && !s.kind && !s.name && !s.namespace;
}

function applyTo(items: JsonObject[], value: unknown, targets: NonNullable<Replacement["targets"]>, lenient: boolean): void {
  for (const target of targets) {
    if (!target.select) throw new ReplacementError("target must specify resources to select");
    const fieldPaths = target.fieldPaths.length ? target.fieldPaths : ["metadata.name"];
    for (const o of items) {
      const ids = resIds(o);
      if (!matchesAnnoAndLabel(o, target.select)) continue;
      if (target.reject.some((r) => (r.annotationSelector !== "" || r.labelSelector !== "") && matchesAnnoAndLabel(o, r))) continue;
      const rejected = target.reject.some((r) => !isEmptyResId(r) && ids.some((id) => isSelectedBy(id, r)));
      if (ids.some((id) => isSelectedBy(id, target.select!)) && !rejected) copyToTarget(o, value, fieldPaths, target.options, lenient);
    }
  }
}

function kindOf(v: unknown): "scalar" | "map" | "seq" {
  return isObject(v) ? "map" : Array.isArray(v) ? "seq" : "scalar";
}

function copyToTarget(o: JsonObject, value: unknown, fieldPaths: string[], options: Options | undefined, lenient: boolean): void {
  const holder = { root: o };
  for (const fp of fieldPaths) {
    const create = options?.create ? kindOf(value) : undefined;
    const problem = `unable to ${create ? "find or create" : "find"} field "${fp}" in replacement target`;
    let slots;
    try {
      slots = pathMatch({ container: holder as unknown as JsonObject, key: "root" }, smarterPathSplitter(fp, "."), create);
    } catch (err) {
      if (err instanceof PathError) throw new ReplacementError(`${problem}: ${err.message}`);
      throw err;
    }
    if (slots.length === 0 && lenient) continue;
    if (slots.length === 0) throw new ReplacementError(problem);
    for (const slot of slots) {
      const current = slotValue(slot);
      let next = deepCopy(value);
      if (options && options.delimiter !== "") {
        if (isObject(current) || Array.isArray(current)) throw new ReplacementError("delimiter option can only be used with scalar nodes");
        const parts = text(current).split(options.delimiter);
        const v = text(next);
        if (options.index < 0) parts.unshift(v);
        else if (options.index >= parts.length) parts.push(v);
        else parts[options.index] = v;
        next = parts.join(options.delimiter);
      }
      setSlot(slot, isObject(current) || Array.isArray(current) ? next : keepType(current, next));
    }
  }
}

/** A scalar target keeps its type, as kustomize copies only the text into the target's node. */
function keepType(current: unknown, next: unknown): unknown {
  if (isObject(next) || Array.isArray(next)) return next;
  const t = text(next);
  if (typeof current === "string") return t;
  if (typeof current === "number") return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? Number(t) : t;
  if (typeof current === "boolean") return t === "true" ? true : t === "false" ? false : t;
  return next;
}
