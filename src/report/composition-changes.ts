// report/: findings and changes as text, JSON, SARIF, JUnit and markdown, and the GitHub calls that post them.
import type { DefinitionChange } from "./definition-changes.js";
import { jsonEqual } from "../manifest/fieldpath.js";

/**
 * What a change does to the objects that steer rendering and installation, known without
 * rendering anything: a Composition's pipeline steps and composed resources (by name) added,
 * removed or changed; a ManagedResourceActivationPolicy's activations; a package's dependencies
 * and a package object's version. Shown where the rendered diff would be, so a change that renders
 * nothing still says what it does.
 */

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The same value, whatever the order of an object's keys (lists keep their order: a patch list's order matters). */
const same = jsonEqual;

/** The changes between two versions of one Composition. */
export function compositionChanges(base: Json, head: Json): DefinitionChange[] {
  const [a, b] = [asObject(base.spec) ?? {}, asObject(head.spec) ?? {}];
  const out: DefinitionChange[] = [];
  const ta = asObject(a.compositeTypeRef);
  const tb = asObject(b.compositeTypeRef);
  if (!same(ta, tb))
    out.push({ path: "compositeTypeRef", what: `${typeText(ta)} → ${typeText(tb)}: XRs of ${typeText(ta)} no longer use this Composition`, breaking: true });
  if (a.mode !== b.mode) out.push({ path: "mode", what: `${String(a.mode ?? "(none)")} → ${String(b.mode ?? "(none)")}`, breaking: false });
  const steps = (spec: Json) =>
    new Map(
      asList(spec.pipeline)
        .map((s) => asObject(s) ?? {})
        .map((s) => [String(s.step ?? ""), s]),
    );
  const [sa, sb] = [steps(a), steps(b)];
  for (const [name, s] of sb) {
    const old = sa.get(name);
    const fn = String(asObject(s.functionRef)?.name ?? "");
    if (!old) {
      out.push({ path: `step ${name}`, what: `added (function ${fn})`, breaking: false });
      continue;
    }
    const oldFn = String(asObject(old.functionRef)?.name ?? "");
    if (oldFn !== fn) out.push({ path: `step ${name}`, what: `function ${oldFn} → ${fn}`, breaking: false });
    if (!same(old.input, s.input) && !hasResources(old.input) && !hasResources(s.input))
      out.push({ path: `step ${name}`, what: "input changed", breaking: false });
    if (!same(old.credentials, s.credentials) || !same(old.requirements, s.requirements))
      out.push({ path: `step ${name}`, what: "credentials or requirements changed", breaking: false });
    out.push(...resourceChanges(asObject(old.input), asObject(s.input), `step ${name}: `));
  }
  for (const [name, s] of sa)
    if (!sb.has(name)) out.push({ path: `step ${name}`, what: `removed (function ${String(asObject(s.functionRef)?.name ?? "")})`, breaking: false });
  const order = (m: Map<string, Json>) => [...m.keys()].filter((k) => sa.has(k) && sb.has(k));
  if (!same(order(sa), order(sb))) out.push({ path: "pipeline", what: `steps reordered: ${order(sb).join(", ")}`, breaking: false });
  // Legacy mode: Resources keeps its resources at spec.resources.
  out.push(...resourceChanges(a, b, ""));
  return out;
}

function typeText(ref: Json | undefined): string {
  return ref ? `${String(ref.apiVersion ?? "?")} ${String(ref.kind ?? "?")}` : "(none)";
}

function hasResources(input: unknown): boolean {
  return Array.isArray(asObject(input)?.resources);
}

/**
 * patch-and-transform's resources (and a legacy Composition's) by name: added, removed (their
 * composed resources are deleted when this merges: breaking), or with their base or patches changed.
 */
function resourceChanges(a: Json | undefined, b: Json | undefined, prefix: string): DefinitionChange[] {
  if (!Array.isArray(a?.resources) && !Array.isArray(b?.resources)) return [];
  const byName = (o: Json | undefined) =>
    new Map(
      asList(o?.resources)
        .map((r) => asObject(r) ?? {})
        .map((r, i) => [String(r.name ?? `resource-${i}`), r]),
    );
  const [ra, rb] = [byName(a), byName(b)];
  const out: DefinitionChange[] = [];
  for (const [name, r] of rb) {
    const old = ra.get(name);
    const kind = String(asObject(r.base)?.kind ?? "");
    if (!old) out.push({ path: `${prefix}resource ${name}`, what: `added${kind ? ` (${kind})` : ""}`, breaking: false });
    else {
      const parts = ["base", "patches", "connectionDetails", "readinessChecks"].filter((k) => !same(old[k], r[k]));
      if (parts.length) out.push({ path: `${prefix}resource ${name}`, what: `${parts.join(", ")} changed`, breaking: false });
    }
  }
  for (const [name, r] of ra) {
    if (rb.has(name)) continue;
    const kind = String(asObject(r.base)?.kind ?? "");
    out.push({
      path: `${prefix}resource ${name}`,
      what: `removed${kind ? ` (${kind})` : ""}: the composed resource is deleted from every XR this Composition renders`,
      breaking: true,
    });
  }
  return out;
}

/** A ManagedResourceActivationPolicy's activations: added and removed patterns. */
export function activationChanges(base: Json, head: Json): DefinitionChange[] {
  const list = (o: Json) => asList(asObject(o.spec)?.activate).map(String);
  const [a, b] = [list(base), list(head)];
  return [
    ...b.filter((x) => !a.includes(x)).map((x) => ({ path: "activate", what: `${x} added: its managed resource definitions are activated`, breaking: false })),
    ...a
      .filter((x) => !b.includes(x))
      .map((x) => ({ path: "activate", what: `${x} removed from this policy (activated definitions stay active)`, breaking: false })),
  ];
}

/** A package's dependencies (crossplane.yaml, upbound.yaml): added, removed, or with another version constraint. */
export function dependencyChanges(base: Json, head: Json): DefinitionChange[] {
  const deps = (o: Json) => {
    const out = new Map<string, string>();
    for (const d of asList(asObject(o.spec)?.dependsOn).map((x) => asObject(x) ?? {})) {
      const pkg = d.package ?? d.provider ?? d.function ?? d.configuration;
      if (typeof pkg === "string") out.set(pkg, String(d.version ?? "(any)"));
    }
    return out;
  };
  const [a, b] = [deps(base), deps(head)];
  const out: DefinitionChange[] = [];
  for (const [pkg, v] of b) {
    const old = a.get(pkg);
    if (old === undefined) out.push({ path: `dependency ${pkg}`, what: `added (${v})`, breaking: false });
    else if (old !== v) out.push({ path: `dependency ${pkg}`, what: `version ${old} → ${v}`, breaking: false });
  }
  for (const [pkg] of a) if (!b.has(pkg)) out.push({ path: `dependency ${pkg}`, what: "removed", breaking: false });
  return out;
}

/** A package object's (Provider, Function, Configuration) package reference, and its runtime config. */
export function packageChanges(base: Json, head: Json): DefinitionChange[] {
  const [a, b] = [asObject(base.spec) ?? {}, asObject(head.spec) ?? {}];
  const out: DefinitionChange[] = [];
  if (a.package !== b.package) out.push({ path: "package", what: `${String(a.package ?? "(none)")} → ${String(b.package ?? "(none)")}`, breaking: false });
  if (!same(a.runtimeConfigRef, b.runtimeConfigRef))
    out.push({
      path: "runtimeConfigRef",
      what: `${JSON.stringify(a.runtimeConfigRef ?? null)} → ${JSON.stringify(b.runtimeConfigRef ?? null)}`,
      breaking: false,
    });
  return out;
}
