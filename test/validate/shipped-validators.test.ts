import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { shippedValidatorsDir, validatorKey, ValidatorCompiler } from "../../src/validate/compile.js";
import { toJsonSchema } from "../../src/validate/openapi.js";
import { loadBuiltinSchemas, schemaFilesHash, schemasDir, SHIPPED_SCHEMAS } from "../../src/validate/schemas/builtin.js";
import { REPO } from "../helpers.js";

describe("the built-in schemas' validators ship precompiled (dist/validators)", () => {
  it("every built-in kind has one, under the key the engine asks for, and a first run loads it instead of compiling", () => {
    const dir = shippedValidatorsDir();
    expect(dir).toBe(path.join(REPO, "dist/validators"));
    const compiler = new ValidatorCompiler(); // no cache directory: a first run
    for (const builtin of loadBuiltinSchemas()) {
      const json = toJsonSchema(builtin.schema, { structural: true });
      expect(
        fs.existsSync(path.join(dir!, `${validatorKey(json)}.cjs`)),
        `${builtin.gvk.group}/${builtin.gvk.version} ${builtin.gvk.kind}: run npm run bundle`,
      ).toBe(true);
      compiler.compile(json);
    }
    expect(compiler.stats.compiled).toBe(0);
    expect(compiler.stats.fromDisk).toBeGreaterThan(30);
  });
});

describe("the built-in schemas ship expanded (dist/builtin-schemas.json)", () => {
  it("made from the very files in schemas/, the same schemas the YAML gives; a copy made from other files is not used", () => {
    const shipped = JSON.parse(fs.readFileSync(path.join(REPO, "dist", SHIPPED_SCHEMAS), "utf8")) as { hash: string; schemas: unknown };
    expect(shipped.hash, "run npm run bundle").toBe(schemaFilesHash(schemasDir()));
    expect(shipped.schemas).toEqual(JSON.parse(JSON.stringify(loadBuiltinSchemas())));
    const changed = fs.mkdtempSync(path.join(os.tmpdir(), "cci-schemas-"));
    fs.cpSync(schemasDir(), changed, { recursive: true });
    fs.appendFileSync(path.join(changed, "kpt.yaml"), "\n# changed\n");
    expect(schemaFilesHash(changed)).not.toBe(shipped.hash);
  });
});

describe("validators loaded from disk keep V8's code cache beside them", () => {
  it("the second load takes the code cache the first wrote, and validates the same", async () => {
    const { writeCodeCaches } = await import("../../src/validate/compile.js");
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-code-cache-"));
    const schema = {
      type: "object",
      properties: { spec: { type: "object", required: ["size"], properties: { size: { type: "integer", maximum: 10 } } } },
    } as never;
    const fresh = new ValidatorCompiler(cache);
    fresh.compile(schema);
    expect(fresh.stats.compiled).toBe(1);
    const first = new ValidatorCompiler(cache);
    const v1 = first.compile(schema);
    expect(first.stats).toEqual({ compiled: 0, fromDisk: 1, codeCache: 0 });
    expect(v1({ spec: { size: 11 } })).toHaveLength(1);
    writeCodeCaches();
    expect(fs.readdirSync(cache).filter((f) => f.endsWith(".v8"))).toHaveLength(1);
    const second = new ValidatorCompiler(cache);
    const v2 = second.compile(schema);
    expect(second.stats).toEqual({ compiled: 0, fromDisk: 1, codeCache: 1 });
    expect(v2({ spec: { size: 11 } })).toEqual(v1({ spec: { size: 11 } }));
    expect(v2({ spec: {} })[0]).toMatchObject({ keyword: "required" });
    // V8 checks only the length of the code a cache was made for: a cache for other code of the same
    // length would run that code. The file starts with a hash of the code it was made for.
    const [v8file] = fs.readdirSync(cache).filter((f) => f.endsWith(".v8"));
    const v8path = path.join(cache, v8file!);
    const good = fs.readFileSync(v8path);
    const other = new vm.Script("(function () { return 42; })").createCachedData();
    for (const bad of [Buffer.concat([good.subarray(0, 32), other]), Buffer.concat([Buffer.alloc(32), good.subarray(32)]), Buffer.from("not a code cache")]) {
      fs.writeFileSync(v8path, bad);
      const third = new ValidatorCompiler(cache);
      expect(third.compile(schema)({ spec: { size: 12 } })).toHaveLength(1);
      if (!bad.subarray(0, 32).equals(good.subarray(0, 32))) expect(third.stats.codeCache).toBe(0);
    }
  });
});
