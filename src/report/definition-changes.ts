/**
 * What a changed CompositeResourceDefinition means for the people who write its XRs and claims,
 * known without rendering anything: fields added or removed, newly required or optional,
 * defaults, enums and types changed, printer columns. A removed field, a newly required one,
 * a narrower enum or another type is breaking: XRs written for the base may be refused.
 */
import { jsonEqual } from "../manifest/fieldpath.js";

export interface DefinitionChange {
  /** `spec.parameters.size` (version-qualified when the XRD serves several: `v1: spec.size`). */
  path: string;
  what: string;
  breaking: boolean;
}

export interface DefinitionDiff {
  kind: string;
  name: string;
  file: string;
  changes: DefinitionChange[];
}

type Schema = Record<string, unknown>;
type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);

/** The changes between two versions of one XRD object (base, head); empty when what users write is the same. */
export function xrdChanges(base: Json, head: Json): DefinitionChange[] {
  const versionsOf = (o: Json) => new Map(((asObject(o.spec)?.versions as unknown[]) ?? []).map((v) => asObject(v) ?? {}).map((v) => [String(v.name), v]));
  const before = versionsOf(base);
  const after = versionsOf(head);
  const several = new Set([...before.keys(), ...after.keys()]).size > 1;
  const out: DefinitionChange[] = [];
  for (const [name, v] of after) {
    const prefix = several ? `${name}: ` : "";
    const old = before.get(name);
    if (!old) {
      out.push({ path: name, what: "version added", breaking: false });
      continue;
    }
    if (old.served !== false && v.served === false) out.push({ path: name, what: "no longer served", breaking: true });
    compareSchemas(schemaOf(old), schemaOf(v), "", prefix, out);
    compareColumns(old, v, prefix, out);
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ path: name, what: "version removed", breaking: true });
  return out;
}

function schemaOf(version: Json): Schema {
  return asObject(asObject(version.schema)?.openAPIV3Schema) ?? {};
}

function compareSchemas(a: Schema, b: Schema, path: string, prefix: string, out: DefinitionChange[]): void {
  const at = (field: string) => `${prefix}${path ? `${path}.` : ""}${field}`;
  const here = `${prefix}${path || "(root)"}`;
  if (a.type !== b.type && a.type !== undefined && b.type !== undefined)
    out.push({ path: here, what: `type ${String(a.type)} → ${String(b.type)}`, breaking: true });
  if (!jsonEqual(a.default, b.default)) {
    out.push({
      path: here,
      what:
        b.default === undefined
          ? `default ${show(a.default)} removed`
          : a.default === undefined
            ? `default ${show(b.default)} added`
            : `default ${show(a.default)} → ${show(b.default)}`,
      breaking: false,
    });
  }
  const ea = Array.isArray(a.enum) ? a.enum : undefined;
  const eb = Array.isArray(b.enum) ? b.enum : undefined;
  const dropped = ea && eb ? ea.filter((x) => !eb.some((y) => jsonEqual(x, y))) : [];
  // An enum is a set: its order changes nothing.
  if (!ea !== !eb || dropped.length > 0 || (ea && eb && eb.some((y) => !ea.some((x) => jsonEqual(x, y))))) {
    out.push({ path: here, what: `enum ${ea ? show(ea) : "(any)"} → ${eb ? show(eb) : "(any)"}`, breaking: (!ea && !!eb) || dropped.length > 0 });
  }
  const pa = asObject(a.properties) ?? {};
  const pb = asObject(b.properties) ?? {};
  const ra = new Set((a.required as string[] | undefined) ?? []);
  const rb = new Set((b.required as string[] | undefined) ?? []);
  for (const field of Object.keys(pb)) {
    if (!(field in pa))
      out.push({
        path: at(field),
        what: `added${rb.has(field) ? ", required" : ""}${asObject(pb[field])?.default !== undefined ? ` (default ${show(asObject(pb[field])!.default)})` : ""}`,
        breaking: rb.has(field) && asObject(pb[field])?.default === undefined,
      });
  }
  for (const field of Object.keys(pa)) if (!(field in pb)) out.push({ path: at(field), what: "removed", breaking: true });
  for (const field of Object.keys(pb)) {
    if (!(field in pa)) continue;
    if (!ra.has(field) && rb.has(field)) out.push({ path: at(field), what: "now required", breaking: true });
    if (ra.has(field) && !rb.has(field)) out.push({ path: at(field), what: "no longer required", breaking: false });
    compareSchemas(asObject(pa[field]) ?? {}, asObject(pb[field]) ?? {}, path ? `${path}.${field}` : field, prefix, out);
  }
  const ia = asObject(a.items);
  const ib = asObject(b.items);
  if (ia && ib) compareSchemas(ia, ib, `${path}[*]`, prefix, out);
}

function compareColumns(a: Json, b: Json, prefix: string, out: DefinitionChange[]): void {
  const names = (v: Json) => ((v.additionalPrinterColumns as unknown[]) ?? []).map((c) => String(asObject(c)?.name ?? ""));
  const before = names(a);
  const after = names(b);
  for (const c of after) if (!before.includes(c)) out.push({ path: `${prefix}printer column ${c}`, what: "added", breaking: false });
  for (const c of before) if (!after.includes(c)) out.push({ path: `${prefix}printer column ${c}`, what: "removed", breaking: false });
}

function show(v: unknown): string {
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
