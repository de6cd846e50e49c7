import { createHash } from "node:crypto";
import type { WorkStore } from "../cache/store.js";
import type { Finding } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";
import type { SchemaEntry, SchemaRegistry } from "./schemas/registry.js";
import { schemaText, type SchemaEngine } from "./engine.js";
import type { SchemaProblem } from "./openapi.js";

/** What checking an object against a schema found, and whether it showed its CRD older than the built-in schema. */
type Alternatives = ReturnType<SchemaRegistry["alternatives"]>;

export interface Checked {
  findings: Finding[];
  stale: boolean;
}

/**
 * Objects an earlier run checked against a schema, kept in the work store by the file's content,
 * the object's place in it and the schema's content: such an object is not validated again. A
 * clean result is a mark; a result with findings keeps them (their positions included) with the
 * alternatives that decided them, used only while those are the same. Only objects without YAML 1.1 scalars
 * (what those decide waits for the whole run) and only against schemas whose whole content is in
 * the key: a definition's (CRD, XRD, schema location, built-in) or Kubernetes' own kinds (this
 * build's validators, which the store's build id covers).
 */
export class KnownClean {
  private readonly entryKeys = new WeakMap<SchemaEntry, string | null>();

  constructor(private readonly store: WorkStore) {}

  /** The key of `m` checked against `entry`; undefined when the result cannot be kept. */
  key(m: Manifest, entry: SchemaEntry): string | undefined {
    const file = m.source.key;
    const schema = this.entryKey(entry);
    if (file === undefined || schema === null || m.source.yaml11Of(m.docIndex, m.pointerPrefix).length > 0) return undefined;
    // The parts cannot run into each other: the file's key has no colon, the index and the prefix (`/items/3`) neither.
    return `clean:${file}:${m.docIndex}:${m.pointerPrefix}:${schema}`;
  }

  has(key: string): boolean {
    return this.store.has(key);
  }

  add(key: string): void {
    this.store.mark(key);
  }

  /**
   * The findings an earlier run made for the object (`clean`: its key from `key`), when the
   * alternatives that decided them (the equally near definitions of its kind, the built-in one)
   * are the same now: an object another definition accepts has none, one only the built-in
   * accepts marks its CRD as older. The alternatives are looked up only when findings are kept.
   */
  checked(clean: string, alternatives: () => Alternatives): Checked | undefined {
    const kept = this.store.get(`checked:${clean}`) as (Checked & { alternatives: string }) | undefined;
    return kept && kept.alternatives === this.alternativesKey(alternatives()) ? kept : undefined;
  }

  keepChecked(clean: string, checked: Checked, alternatives: () => Alternatives): void {
    const key = this.alternativesKey(alternatives());
    if (key !== undefined) this.store.set(`checked:${clean}`, { ...checked, alternatives: key });
  }

  /** The alternatives' schemas; undefined when one of them cannot be kept. */
  private alternativesKey({ tied, builtin }: Alternatives): string | undefined {
    const keys = [...tied, ...(builtin ? [builtin] : [])].map((e) => this.entryKey(e));
    return keys.includes(null) ? undefined : keys.join(",");
  }

  /** The secret values an earlier run found in the object (see rendered/secrets.ts), looking for the same extra fields. */
  secretValues(m: Manifest, fields: readonly string[]): readonly string[] | undefined {
    const key = this.secretsKey(m, fields);
    if (key === undefined) return undefined;
    if (this.store.has(`none:${key}`)) return [];
    return this.store.get(key) as string[] | undefined;
  }

  keepSecretValues(m: Manifest, fields: readonly string[], values: readonly string[]): void {
    const key = this.secretsKey(m, fields);
    // Most objects hold none: a mark, read without deserializing anything.
    if (key !== undefined) values.length ? this.store.set(key, values) : this.store.mark(`none:${key}`);
  }

  private secretsKey(m: Manifest, fields: readonly string[]): string | undefined {
    const file = m.source.key;
    return file === undefined ? undefined : `secrets:${file}:${m.docIndex}:${m.pointerPrefix}:${JSON.stringify(fields)}`;
  }

  /**
   * The schema's own problems (an invalid pattern, a schema that cannot be used), known once it is
   * compiled: kept by its content, so a run whose objects are all known clean compiles nothing.
   */
  problems(entry: SchemaEntry, engine: SchemaEngine): SchemaProblem[] {
    const key = entry.external ? null : this.entryKey(entry);
    if (key === null) return engine.problems(entry);
    const kept = this.store.get(`problems:${key}`) as SchemaProblem[] | undefined;
    if (kept) return kept;
    const problems = engine.problems(entry);
    this.store.set(`problems:${key}`, problems);
    return problems;
  }

  private entryKey(entry: SchemaEntry): string | null {
    let key = this.entryKeys.get(entry);
    if (key === undefined) {
      // Kubernetes' own kinds validate with this build's shipped validators.
      if (entry.external) key = entry.source === "kubernetes" ? `kubernetes:${entry.gvk.group}/${entry.gvk.version}/${entry.gvk.kind}` : null;
      else
        key = createHash("sha256")
          // The source too: what is required of an object (a spec) differs between a built-in schema and a definition's.
          .update(`${entry.source}|${entry.structural}|${entry.schema ? schemaText(entry.schema) : "null"}`)
          .digest("base64url");
      this.entryKeys.set(entry, key);
    }
    return key;
  }
}
