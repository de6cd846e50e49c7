/**
 * Compiles the validators of the built-in schemas (schemas/*.yaml) into OUTDIR/validators/, as the
 * validator cache keeps them (`<key>.cjs`), with an index of which kind each is, and writes the
 * schemas themselves, read and expanded, to OUTDIR/builtin-schemas.json with the hash of the files
 * (the bundle reads that instead of the YAML when the files are the same). Run by
 * scripts/bundle.mjs: the package ships them, so a first run in CI does not compile them.
 * Usage: node --import tsx scripts/precompile.ts OUTDIR
 */
import fs from "node:fs";
import path from "node:path";
import { standaloneValidator, validatorKey } from "../src/validate/compile.js";
import { toJsonSchema } from "../src/validate/openapi.js";
import { loadBuiltinSchemas, schemaFilesHash, schemasDir, SHIPPED_SCHEMAS } from "../src/validate/schemas/builtin.js";
import { gvkLabel } from "../src/validate/schemas/types.js";

const out = path.join(process.argv[2] ?? "dist", "validators");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const index: Record<string, string> = {};
for (const builtin of loadBuiltinSchemas()) {
  // As the schema engine converts a built-in entry (structural) before it compiles it.
  const json = toJsonSchema(builtin.schema, { structural: true });
  const key = validatorKey(json);
  if (!index[key]) fs.writeFileSync(path.join(out, `${key}.cjs`), standaloneValidator(json));
  index[key] = index[key] ? `${index[key]}, ${gvkLabel(builtin.gvk)}` : gvkLabel(builtin.gvk);
}
fs.writeFileSync(path.join(out, "index.json"), JSON.stringify(index, Object.keys(index).sort(), 2) + "\n");

const dir = schemasDir();
fs.writeFileSync(path.join(process.argv[2] ?? "dist", SHIPPED_SCHEMAS), JSON.stringify({ hash: schemaFilesHash(dir), schemas: loadBuiltinSchemas(dir) }));
