import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as jsyaml from "js-yaml";
import { isPlainObject } from "../../core/json.js";
import { gvkOf, type Gvk, type OpenAPISchema } from "./types.js";

export interface BuiltinSchema {
  gvk: Gvk;
  schema: OpenAPISchema;
  file: string;
}

/**
 * The schemas this project ships in `schemas/`: YAML files listing `{apiVersion, kind, schema}`.
 * `$use: <fragment>` inlines a fragment from `schemas/_fragments.yaml` (keys beside it override
 * the fragment's), so shared shapes are written once.
 */
export function loadBuiltinSchemas(dir = schemasDir()): BuiltinSchema[] {
  // Read once per process (the registry, the P&T input and the Kptfile checks each ask): the same
  // files give the same schemas, frozen so that no reader can change another's.
  const names = fs.readdirSync(dir).filter((f) => f.endsWith(".yaml"));
  const signature = names.map((f) => `${f}:${fs.statSync(path.join(dir, f)).mtimeMs}`).join("|");
  const known = loaded.get(dir);
  if (known?.signature === signature) return known.schemas;
  const schemas = deepFreeze(shippedSchemas(dir, names) ?? readBuiltinSchemas(dir, names));
  loaded.set(dir, { signature, schemas });
  return schemas;
}

/** Written beside the bundle by scripts/precompile.ts: the schemas read and expanded, with the hash of the files they came from. */
export const SHIPPED_SCHEMAS = "builtin-schemas.json";

/** The hash of the schema files' names and bytes: a shipped copy is used only for these exact files. */
export function schemaFilesHash(dir: string, names = fs.readdirSync(dir).filter((f) => f.endsWith(".yaml"))): string {
  const hash = createHash("sha256");
  for (const name of [...names].sort())
    hash
      .update(`${name}\0`)
      .update(fs.readFileSync(path.join(dir, name)))
      .update("\0");
  return hash.digest("hex");
}

/**
 * The bundle's pre-expanded copy of the schemas, when it was made from these very files: parsing
 * and expanding the YAML cost a run ~40 ms before it did anything, JSON ~2 ms.
 */
function shippedSchemas(dir: string, names: string[]): BuiltinSchema[] | undefined {
  const shipped = path.join(path.dirname(fileURLToPath(import.meta.url)), SHIPPED_SCHEMAS);
  try {
    const copy = JSON.parse(fs.readFileSync(shipped, "utf8")) as { hash: string; schemas: BuiltinSchema[] };
    return copy.hash === schemaFilesHash(dir, names) ? copy.schemas : undefined;
  } catch {
    return undefined;
  }
}

const loaded = new Map<string, { signature: string; schemas: BuiltinSchema[] }>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function readBuiltinSchemas(dir: string, names: string[]): BuiltinSchema[] {
  const fragments = readYaml(path.join(dir, "_fragments.yaml")) as Record<string, OpenAPISchema>;
  const out: BuiltinSchema[] = [];
  for (const name of names.filter((f) => !f.startsWith("_")).sort()) {
    const doc = readYaml(path.join(dir, name)) as { schemas?: { apiVersion: string; kind: string; schema: OpenAPISchema }[] };
    for (const entry of doc.schemas ?? []) {
      const gvk = gvkOf(entry.apiVersion, entry.kind);
      out.push({ gvk, schema: expand(entry.schema, fragments, []) as OpenAPISchema, file: `schemas/${name}` });
    }
  }
  return out;
}

function expand(node: unknown, fragments: Record<string, unknown>, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => expand(n, fragments, stack));
  if (!isPlainObject(node)) return node;
  let out: Record<string, unknown> = {};
  const use = node.$use;
  if (typeof use === "string") {
    if (!(use in fragments)) throw new Error(`schemas: unknown fragment "${use}"`);
    if (stack.includes(use)) throw new Error(`schemas: fragment "${use}" uses itself`);
    out = { ...(expand(fragments[use], fragments, [...stack, use]) as Record<string, unknown>) };
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "$use") continue;
    out[key] =
      key === "properties" && isPlainObject(out.properties)
        ? { ...out.properties, ...(expand(value, fragments, stack) as object) }
        : expand(value, fragments, stack);
  }
  return out;
}

/** Our own files: js-yaml (a few times faster than `yaml` here), YAML 1.2 core schema, duplicate keys refused. */
function readYaml(file: string): unknown {
  return jsyaml.load(fs.readFileSync(file, "utf8"), { schema: jsyaml.CORE_SCHEMA });
}

/** `schemas/` beside the package, found from this module whether it runs from src/ or dist/. */
export function schemasDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "schemas");
    if (fs.existsSync(path.join(candidate, "_fragments.yaml"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("composition-ci: cannot find its schemas/ directory");
    dir = parent;
  }
}
