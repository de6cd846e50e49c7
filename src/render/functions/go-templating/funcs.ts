import { decodeBase64 } from "../../../gotemplate/encoding.js";
import { marshalYaml, unmarshalYaml } from "../../../gotemplate/goyaml/index.js";
import {
  ExecError,
  GoError,
  GoFunc,
  GoStruct,
  MAP_ANY,
  SLICE_ANY,
  T,
  mapOf,
  nilOf,
  sliceOf,
  typed,
  type FuncMap,
  type GoMap,
  type GoType,
  type Template,
  type Value,
} from "../../../gotemplate/index.js";
import { timeValue } from "../../../gotemplate/timevalue.js";
import { parseTime, UTC, type Instant } from "../../../go/time.js";
import { getSegments, type Segment } from "../../../manifest/fieldpath.js";

/** function-go-templating's own template functions (function_maps.go). */

export const EXTRA_RESOURCES_KEY = "apiextensions.crossplane.io/extra-resources";
const RECURSION_MAX = 1000;

const fn = (params: GoType[], result: GoType, impl: (args: Value[], ctx: { random(): number }) => Value, opts: { variadic?: GoType; error?: boolean } = {}) =>
  new GoFunc({ params, result, variadic: opts.variadic, error: opts.error }, impl);

const isObject = (v: unknown): v is GoMap => typeof v === "object" && v !== null && !Array.isArray(v);

/** fieldpath.Pave(m).GetValueInto(path, &map[string]any): the object, or undefined on any error. */
function objectAt(m: Value, segments: Segment[]): GoMap | null | undefined {
  try {
    const v = getSegments(m, segments) as Value;
    if (v === null) return null;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function listAt(m: Value, segments: Segment[]): Value[] | null | undefined {
  try {
    const v = getSegments(m, segments) as Value;
    if (v === null) return null;
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const f = (name: string): Segment => ({ field: name });

// xpv2.Condition: the struct templates read (.Type, .Status, ...).
const CONDITION: GoType = {
  name: "v2.Condition",
  kind: "struct",
  fields: ["Type", "Status", "LastTransitionTime", "Reason", "Message", "ObservedGeneration"],
  json: (c: GoStruct) => {
    const out: Record<string, Value> = {
      type: c.fields.Type,
      status: c.fields.Status,
      lastTransitionTime: (c.fields.LastTransitionTime as GoStruct).type.json!(c.fields.LastTransitionTime as GoStruct),
      reason: c.fields.Reason,
    };
    if (c.fields.Message) out.message = c.fields.Message;
    if (c.fields.ObservedGeneration) out.observedGeneration = c.fields.ObservedGeneration;
    return out;
  },
  // yaml.v3 writes the struct's fields in order, lower-cased; the time through its MarshalText.
  yaml: (c: GoStruct) =>
    new GoStruct(CONDITION_YAML, {
      type: c.fields.Type,
      status: c.fields.Status,
      lasttransitiontime: (c.fields.LastTransitionTime as GoStruct).type.json!(c.fields.LastTransitionTime as GoStruct),
      reason: c.fields.Reason,
      message: c.fields.Message,
      observedgeneration: c.fields.ObservedGeneration,
    }),
};
const CONDITION_YAML: GoType = {
  name: "v2.Condition",
  kind: "struct",
  fields: ["type", "status", "lasttransitiontime", "reason", "message", "observedgeneration"],
};
const ZERO_TIME: Instant = { sec: -62135596800, nsec: 0, zone: UTC };

function condition(c: GoMap | undefined, type: string): GoStruct {
  let time = ZERO_TIME;
  if (c && typeof c.lastTransitionTime === "string" && c.lastTransitionTime !== "") {
    time = parseTime("2006-01-02T15:04:05Z07:00", c.lastTransitionTime, UTC);
  }
  return new GoStruct(CONDITION, {
    Type: c ? (c.type as string) : type,
    Status: c ? ((c.status as string) ?? "") : "Unknown",
    LastTransitionTime: timeValue(time),
    Reason: c ? ((c.reason as string) ?? "") : "",
    Message: c ? ((c.message as string) ?? "") : "",
    ObservedGeneration: c ? ((c.observedGeneration as number) ?? 0) : 0,
  });
}

/** ConditionedStatus from `status`, if it decodes as one (strings where strings belong). */
function conditionsAt(res: Value, segments: Segment[]): GoMap[] | undefined {
  const status = objectAt(res, segments);
  if (status === undefined) return undefined;
  const list = status?.conditions;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return undefined;
  for (const c of list) {
    if (c === null) continue;
    if (!isObject(c)) return undefined;
    for (const k of ["type", "status", "reason", "message"]) if (c[k] !== undefined && c[k] !== null && typeof c[k] !== "string") return undefined;
    if (c.lastTransitionTime !== undefined && c.lastTransitionTime !== null) {
      if (typeof c.lastTransitionTime !== "string") return undefined;
      try {
        if (c.lastTransitionTime !== "") parseTime("2006-01-02T15:04:05Z07:00", c.lastTransitionTime, UTC);
      } catch {
        return undefined;
      }
    }
  }
  return list.filter(isObject);
}

function getResourceCondition(ct: string, res: Value): GoStruct {
  const conditions = conditionsAt(res, [f("resource"), f("status")]) ?? conditionsAt(res, [f("status")]) ?? [];
  return condition(
    conditions.find((c) => (c.type ?? "") === ct),
    ct,
  );
}

/** getCredentialData: the credential's data as map[string][]byte (nil when absent or malformed). */
function getCredentialData(req: Value, name: string): Value {
  const type = mapOf(T.string, sliceOf(T.uint8));
  const data = objectAt(req, [f("credentials"), f(name), f("credentialData"), f("data")]);
  if (data === undefined) {
    const cred = objectAt(req, [f("credentials"), f(name)]);
    if (cred && isObject(cred.credentialData)) return typed({}, type);
    return nilOf(type);
  }
  const out: Record<string, Value> = {};
  try {
    for (const [k, v] of Object.entries(data ?? {})) out[k] = new Uint8Array(decodeBase64(String(v)));
  } catch {
    return nilOf(type);
  }
  return typed(out, type);
}

/** The function map: the function's own functions and `include` bound to `tmpl`. */
export function templateFuncs(tmpl: Template): FuncMap {
  const included = new Map<string, number>();
  return {
    randomChoice: fn(
      [],
      T.string,
      (choices, ctx) => {
        if (choices.length === 0) throw new GoError("invalid argument to Intn");
        return choices[Math.floor(ctx.random() * choices.length)];
      },
      { variadic: T.string },
    ),
    toYaml: fn([T.any], T.string, ([v]) => marshalYaml(v ?? null), { error: true }),
    fromYaml: fn([T.string], T.any, ([s]) => unmarshalYaml(s as string, { version: 3 }), { error: true }),
    getResourceCondition: fn([T.string, MAP_ANY], CONDITION, ([ct, res]) => getResourceCondition(ct as string, res)),
    setResourceNameAnnotation: fn([T.string], T.string, ([name]) => `gotemplating.fn.crossplane.io/composition-resource-name: ${name}`),
    getComposedResource: fn(
      [MAP_ANY, T.string],
      MAP_ANY,
      ([req, name]) => objectAt(req, [f("observed"), f("resources"), f(name as string), f("resource")]) ?? null,
    ),
    getCompositeResource: fn([MAP_ANY], MAP_ANY, ([req]) => objectAt(req, [f("observed"), f("composite"), f("resource")]) ?? null),
    getComposedConnectionDetails: fn(
      [MAP_ANY, T.string],
      MAP_ANY,
      ([req, name]) => objectAt(req, [f("observed"), f("resources"), f(name as string), f("connectionDetails")]) ?? null,
    ),
    getExtraResources: fn(
      [MAP_ANY, T.string],
      SLICE_ANY,
      ([req, name]) =>
        listAt(req, [f("requiredResources"), f(name as string), f("items")]) ?? listAt(req, [f("extraResources"), f(name as string), f("items")]) ?? null,
    ),
    getExtraResourcesFromContext: fn(
      [MAP_ANY, T.string],
      SLICE_ANY,
      ([req, name]) => listAt(req, [f("context"), f(EXTRA_RESOURCES_KEY), f(name as string), f("items")]) ?? null,
    ),
    getCredentialData: fn([MAP_ANY, T.string], mapOf(T.string, sliceOf(T.uint8)), ([req, name]) => getCredentialData(req, name as string)),
    include: fn(
      [T.string, T.any],
      T.string,
      ([name, data], ctx) => {
        const n = name as string;
        const depth = included.get(n) ?? 0;
        if (depth > RECURSION_MAX) throw new GoError(`rendering template has a nested reference name: ${n}: unable to execute template`);
        included.set(n, depth + 1);
        try {
          return tmpl.executeTemplate(n, data ?? null, ctx as never);
        } catch (err) {
          if (err instanceof ExecError) throw new GoError(err.message);
          throw err;
        } finally {
          included.set(n, (included.get(n) ?? 1) - 1);
        }
      },
      { error: true },
    ),
  };
}
