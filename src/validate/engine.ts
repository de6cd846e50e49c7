import type { Manifest } from "../manifest/manifest.js";
import type { ValidatorCompiler, Validator } from "./compile.js";
import { violationsFromAjv, type Violation } from "./messages.js";
import { toJsonSchema, type JsonSchema, type SchemaProblem } from "./openapi.js";
import type { SchemaEntry } from "./schemas/registry.js";
import { applyStructural } from "./structural.js";
import { clonePlainJson } from "../core/json.js";
import { celViolations } from "./cel.js";

interface Prepared {
  json?: JsonSchema;
  validator: Validator;
  problems: SchemaProblem[];
  /** The schema could not be compiled: nothing of it applies (defaults and CEL rules neither). */
  unusable?: boolean;
}

/**
 * Validates one object against one schema entry as the API server would: prune nulls and apply
 * defaults (copy on write), then check the result. The manifest itself is never changed.
 */
export class SchemaEngine {
  private readonly prepared = new WeakMap<SchemaEntry, Prepared>();
  /** Set when the engine is shared by two registries (diff's trees): entries alike in content share their work. */
  private readonly alike?: { prepared: Map<string, Prepared>; violations: Map<string, WeakMap<object, Violation[]>> };
  private remembering = false;

  /**
   * With `shared`, one engine serves the registries of two trees: entries with the same schema
   * (another object, from the other registry) are prepared once, and while `remember` runs, an
   * object validated against one is not validated again against the other (validation is a
   * function of the two, and what was read from files is never changed).
   */
  constructor(
    private readonly compiler: ValidatorCompiler,
    shared = false,
  ) {
    if (shared) this.alike = { prepared: new Map(), violations: new Map() };
  }

  /**
   * Runs `fn` with validations remembered by object (a shared engine only): for checking what
   * was read from the files, never for objects that may change between two checks (rendered ones).
   */
  remember<T>(fn: () => T): T {
    const before = this.remembering;
    this.remembering = this.alike !== undefined;
    try {
      return fn();
    } finally {
      this.remembering = before;
    }
  }

  validate(manifest: Manifest, entry: SchemaEntry): Violation[] {
    return this.validateObject(manifest.object, entry);
  }

  /** The same for an object embedded in a manifest (a function's input, say). */
  validateObject(value: unknown, entry: SchemaEntry): Violation[] {
    if (!this.remembering || !this.alike || typeof value !== "object" || value === null) return this.check(value, entry);
    const key = contentKey(entry);
    let known = this.alike.violations.get(key);
    if (!known) this.alike.violations.set(key, (known = new WeakMap()));
    let violations = known.get(value);
    if (!violations) known.set(value, (violations = this.check(value, entry)));
    return violations;
  }

  private check(value: unknown, entry: SchemaEntry): Violation[] {
    const prepared = this.prepare(entry);
    if (!entry.schema || !entry.structural) {
      // Validators from other packages are not ours to trust with the manifest's own object.
      const copy = clonePlainJson(value);
      return violationsFromAjv(prepared.validator(copy), prepared.json, copy);
    }
    if (prepared.unusable) return [];
    // Defaults and pruning on a copy-on-write view: the manifest itself is never changed.
    const { value: object, errors } = applyStructural(entry.schema, value);
    const violations: Violation[] = [...errors];
    violations.push(...violationsFromAjv(prepared.validator(object), prepared.json, object));
    violations.push(...celViolations(entry.schema, object));
    return violations;
  }

  /** Problems in the schema itself (an invalid RE2 pattern, say), known once it is compiled. */
  problems(entry: SchemaEntry): SchemaProblem[] {
    return this.prepare(entry).problems;
  }

  /** A schema that cannot be compiled is a problem of the definition; its kind then validates without it. */
  private compile(entry: SchemaEntry): Prepared {
    const problems: SchemaProblem[] = [];
    try {
      const json = toJsonSchema(entry.schema ?? {}, { structural: entry.structural }, problems);
      return { json, validator: this.compiler.compile(json), problems };
    } catch (err) {
      problems.push({ path: "(root)", message: `the schema cannot be used, so it was not applied: ${(err as Error).message.split("\n")[0]}` });
      return { validator: () => [], problems, unusable: true };
    }
  }

  private prepare(entry: SchemaEntry): Prepared {
    let prepared = this.prepared.get(entry);
    if (!prepared) {
      const key = this.alike && contentKey(entry);
      prepared = key === undefined ? undefined : this.alike!.prepared.get(key);
      if (!prepared) {
        prepared = entry.external ? { validator: entry.external, problems: [] } : this.compile(entry);
        if (key !== undefined) this.alike!.prepared.set(key, prepared);
      }
      this.prepared.set(entry, prepared);
    }
    return prepared;
  }
}

/** What validation against an entry depends on: its schema's content, structural or not, its external validator. */
const contentKeys = new WeakMap<SchemaEntry, string>();
const schemaTexts = new WeakMap<object, string>();
const externalIds = new WeakMap<object, number>();

function contentKey(entry: SchemaEntry): string {
  let key = contentKeys.get(entry);
  if (key === undefined) {
    const text = entry.schema ? schemaText(entry.schema) : "";
    let external = 0;
    if (entry.external) {
      external = externalIds.get(entry.external) ?? 0;
      if (!external) externalIds.set(entry.external, (external = nextExternal++));
    }
    key = `${entry.structural ? 1 : 0}|${external}|${text}`;
    contentKeys.set(entry, key);
  }
  return key;
}
let nextExternal = 1;

/** A schema as text, once per schema object: what validation against it depends on. */
export function schemaText(schema: object): string {
  let known = schemaTexts.get(schema);
  if (known === undefined) {
    known = JSON.stringify(schema);
    // Infinity and NaN print as null: only then is the slower, exact form needed.
    if (known.includes("null")) known = JSON.stringify(schema, exactNumbers);
    schemaTexts.set(schema, known);
  }
  return known;
}

/** JSON would print Infinity and NaN as null: keep them apart. */
function exactNumbers(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isFinite(value) ? `\u0000${value}` : value;
}
