import type { Manifest } from "../manifest/manifest.js";
import type { ValidatorCompiler, Validator } from "./compile.js";
import { violationsFromAjv, type Violation } from "./messages.js";
import { toJsonSchema, type JsonSchema, type SchemaProblem } from "./openapi.js";
import type { SchemaEntry } from "./schemas/registry.js";
import { applyStructural, cloneJson } from "./structural.js";
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

  constructor(private readonly compiler: ValidatorCompiler) {}

  validate(manifest: Manifest, entry: SchemaEntry): Violation[] {
    return this.validateObject(manifest.object, entry);
  }

  /** The same for an object embedded in a manifest (a function's input, say). */
  validateObject(value: unknown, entry: SchemaEntry): Violation[] {
    const prepared = this.prepare(entry);
    if (!entry.schema || !entry.structural) {
      // Validators from other packages are not ours to trust with the manifest's own object.
      const copy = cloneJson(value);
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
      if (entry.external) {
        prepared = { validator: entry.external, problems: [] };
      } else {
        prepared = this.compile(entry);
      }
      this.prepared.set(entry, prepared);
    }
    return prepared;
  }
}
