import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { shippedValidatorsDir, validatorKey, ValidatorCompiler } from "../../src/validate/compile.js";
import { toJsonSchema } from "../../src/validate/openapi.js";
import { loadBuiltinSchemas } from "../../src/validate/schemas/builtin.js";
import { REPO } from "../helpers.js";

describe("the built-in schemas' validators ship precompiled (dist/validators)", () => {
  it("every built-in kind has one, under the key the engine asks for, and a first run loads it instead of compiling", () => {
    const dir = shippedValidatorsDir();
    expect(dir).toBe(path.join(REPO, "dist/validators"));
    const compiler = new ValidatorCompiler(); // no cache directory: a first run
    for (const builtin of loadBuiltinSchemas()) {
      const json = toJsonSchema(builtin.schema, { structural: true });
      expect(fs.existsSync(path.join(dir!, `${validatorKey(json)}.cjs`)), `${builtin.gvk.group}/${builtin.gvk.version} ${builtin.gvk.kind}: run npm run bundle`).toBe(true);
      compiler.compile(json);
    }
    expect(compiler.stats.compiled).toBe(0);
    expect(compiler.stats.fromDisk).toBeGreaterThan(30);
  });
});
