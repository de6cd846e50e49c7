import { checkConstraint, compareVersions, newConstraint, newVersion, versionString, type Version } from "../../go/semver.js";
import { GoFunc, GoStruct, T, type GoType, type Value } from "../../go/values.js";
import { fn } from "./cast.js";

/** sprig's semver and semverCompare; a version is a *semver.Version with its methods. */

const VERSION: GoType = { name: "semver.Version", kind: "struct", fields: [], stringer: (v) => versionString(inner(v)) };
const methods: Record<string, (recv: GoStruct) => GoFunc> = {};
const PTR: GoType = {
  name: "*semver.Version",
  kind: "ptr",
  elem: VERSION,
  fields: [],
  methods,
  stringer: (v) => versionString(inner(v)),
  json: (v) => versionString(inner(v)),
};
Object.assign(VERSION, { methods });

const store = new WeakMap<GoStruct, Version>();
const inner = (v: GoStruct) => store.get(v)!;

export function versionValue(v: Version, pointer = true): GoStruct {
  const s = new GoStruct(pointer ? PTR : VERSION, {});
  store.set(s, v);
  return s;
}

const method = (params: GoType[], result: GoType, impl: (v: Version, args: Value[]) => Value) => (recv: GoStruct) =>
  new GoFunc({ params, result }, (args) => impl(inner(recv), args));
const other = (x: Value) => inner(x as GoStruct);

Object.assign(methods, {
  Major: method([], T.uint64, (v) => v.major),
  Minor: method([], T.uint64, (v) => v.minor),
  Patch: method([], T.uint64, (v) => v.patch),
  Prerelease: method([], T.string, (v) => v.pre),
  Metadata: method([], T.string, (v) => v.metadata),
  Original: method([], T.string, (v) => v.original),
  String: method([], T.string, (v) => versionString(v)),
  Compare: method([PTR], T.int, (v, [o]) => compareVersions(v, other(o))),
  LessThan: method([PTR], T.bool, (v, [o]) => compareVersions(v, other(o)) < 0),
  LessThanEqual: method([PTR], T.bool, (v, [o]) => compareVersions(v, other(o)) <= 0),
  GreaterThan: method([PTR], T.bool, (v, [o]) => compareVersions(v, other(o)) > 0),
  GreaterThanEqual: method([PTR], T.bool, (v, [o]) => compareVersions(v, other(o)) >= 0),
  Equal: method([PTR], T.bool, (v, [o]) => compareVersions(v, other(o)) === 0),
  IncPatch: method([], VERSION, (v) => inc(v, v.pre ? { pre: "" } : { pre: "", patch: v.patch + 1 })),
  IncMinor: method([], VERSION, (v) => inc(v, { pre: "", patch: 0, minor: v.minor + 1 })),
  IncMajor: method([], VERSION, (v) => inc(v, { pre: "", patch: 0, minor: 0, major: v.major + 1 })),
});

function inc(v: Version, change: Partial<Version>): GoStruct {
  const next: Version = { ...v, metadata: "", ...change };
  next.original = (v.original.startsWith("v") ? "v" : "") + versionString(next);
  return versionValue(next, false);
}

export const semverFuncs = {
  semver: fn([T.string], PTR, ([s]) => versionValue(newVersion(s as string)), { error: true }),
  semverCompare: fn([T.string, T.string], T.bool, ([c, v]) => checkConstraint(newConstraint(c as string), newVersion(v as string)), { error: true }),
};
