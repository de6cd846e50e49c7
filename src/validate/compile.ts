import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { Ajv, _, type ErrorObject, type ValidateFunction } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
import { FORMATS } from "./formats.js";
import type { JsonSchema } from "./openapi.js";
import { re2RegExp } from "../go/re2.js";

// ajv's standalone module is CommonJS; under NodeNext its default export arrives wrapped.
type StandaloneCode = (ajv: Ajv, fn: ValidateFunction) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as unknown as StandaloneCode;

export type Validator = (data: unknown) => ErrorObject[];

/** Bump when generated code would change for the same schema (ajv options, formats, engine). */
const ENGINE_VERSION = "2";
const requireFromHere = createRequire(import.meta.url);
const AJV_VERSION: string = (() => {
  try {
    return (requireFromHere("ajv/package.json") as { version: string }).version;
  } catch {
    return "bundled";
  }
})();

export interface CompileStats {
  compiled: number;
  fromDisk: number;
  /** Loaded from disk with V8's code cache accepted (no parsing or compiling of the code). */
  codeCache: number;
}

/**
 * Compiles JSON schemas to validators, keeping the generated code on disk keyed by a hash of the
 * schema, so a second run loads code instead of compiling (compiling big CRDs is the slow part).
 */
export class ValidatorCompiler {
  readonly stats: CompileStats = { compiled: 0, fromDisk: 0, codeCache: 0 };
  private readonly memory = new Map<string, Validator>();
  private ajv?: Ajv;

  /** `cacheDir` holds generated validator code; undefined keeps everything in memory. */
  constructor(private readonly cacheDir?: string) {}

  compile(schema: JsonSchema): Validator {
    const key = validatorKey(schema);
    const known = this.memory.get(key);
    if (known) return known;
    const validator = this.fromDisk(key) ?? this.fromDisk(key, shippedValidatorsDir()) ?? this.compileFresh(schema, key);
    this.memory.set(key, validator);
    return validator;
  }

  private fromDisk(key: string, dir = this.cacheDir): Validator | undefined {
    if (!dir) return undefined;
    let code: string;
    try {
      code = fs.readFileSync(path.join(dir, `${key}.cjs`), "utf8");
    } catch {
      return undefined;
    }
    try {
      const { fn, cached } = evaluate(code, key, this.cacheDir);
      this.stats.fromDisk++;
      if (cached) this.stats.codeCache++;
      return wrap(fn);
    } catch {
      return undefined;
    }
  }

  private compileFresh(schema: JsonSchema, key: string): Validator {
    this.ajv ??= newAjv();
    const fn = this.ajv.compile(schema);
    this.stats.compiled++;
    if (this.cacheDir) {
      try {
        const code = standaloneCode(this.ajv, fn);
        fs.mkdirSync(this.cacheDir, { recursive: true });
        const tmp = path.join(this.cacheDir, `${key}.${process.pid}.tmp`);
        fs.writeFileSync(tmp, code);
        fs.renameSync(tmp, path.join(this.cacheDir, `${key}.cjs`));
      } catch {
        // A cache that cannot be written only costs time on the next run.
      }
    }
    return wrap(fn);
  }
}

/** The key a schema's validator is kept under: the engine, ajv's version and the schema. */
export function validatorKey(schema: JsonSchema): string {
  return crypto
    .createHash("sha256")
    .update(`${ENGINE_VERSION}|${AJV_VERSION}|${JSON.stringify(schema)}`)
    .digest("hex")
    .slice(0, 40);
}

/** A schema's validator as standalone code, what the cache and the shipped validators hold. */
export function standaloneValidator(schema: JsonSchema): string {
  const ajv = newAjv();
  return standaloneCode(ajv, ajv.compile(schema));
}

/**
 * The built-in schemas' validators, compiled when the package is bundled (scripts/precompile.ts)
 * and shipped in `dist/validators/`: a first run (an empty cache in CI) does not compile them.
 */
let shipped: string | null | undefined;
export function shippedValidatorsDir(): string | undefined {
  if (shipped !== undefined) return shipped ?? undefined;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(dir, "validators"), path.join(dir, "dist", "validators")]) {
      if (fs.existsSync(path.join(candidate, "index.json"))) return (shipped = candidate);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (shipped = null) ?? undefined;
    dir = parent;
  }
}

function wrap(fn: ValidateFunction): Validator {
  return (data) => (fn(data) ? [] : [...(fn.errors ?? [])]);
}

function newAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    // Larger enums are checked in a loop: inlined, a 100,000-value enum is one huge expression V8 takes seconds to compile.
    loopEnum: 64,
    // Our schemas are generated (and sanitized) here; checking each against the meta-schema is
    // quadratic in an enum's size (uniqueItems) and buys nothing a compile error would not say.
    validateSchema: false,
    validateFormats: true,
    // ajv's optimizing pass over the generated code takes more than half of a big CRD's compile
    // time (a 65 KB pod-template schema: 207 ms, 90 without) for code about a tenth smaller.
    code: { source: true, regExp: re2RegExp, formats: _`require("composition-ci:formats")`, lines: false, optimize: false },
  });
  for (const [name, def] of Object.entries(FORMATS)) ajv.addFormat(name, def as never);
  return ajv;
}

/**
 * Loads standalone validator code, giving it only the modules it was generated against. With a
 * cache directory, V8's code cache for it is kept there too (`<key>.v8`, written when the process
 * ends, so it holds the functions the run compiled): a later run neither parses nor compiles the
 * code again. V8 checks only the length of the source a cache was made for, so the file starts
 * with a hash of the code; a cache for other code, or from another V8, is made anew.
 */
function evaluate(code: string, key: string, cacheDir: string | undefined): { fn: ValidateFunction; cached: boolean } {
  const modules: Record<string, unknown> = {
    "composition-ci:formats": Object.fromEntries(Object.entries(FORMATS).map(([k, v]) => [k, v])),
    "composition-ci:re2": { re2RegExp },
  };
  const load = (id: string): unknown => {
    if (id in modules) return modules[id];
    if (id.startsWith("ajv/dist/runtime/")) return requireFromHere(id);
    throw new Error(`validator code asked for an unexpected module: ${id}`);
  };
  const module = { exports: {} as Record<string, unknown> };
  const cachePath = cacheDir && path.join(cacheDir, `${key}.v8`);
  const source = `(function (require, module, exports) {${code}\n})`;
  const hash = crypto.createHash("sha256").update(source).digest();
  let cachedData: Buffer | undefined;
  try {
    const file = cachePath ? fs.readFileSync(cachePath) : undefined;
    if (file && file.length > hash.length && file.subarray(0, hash.length).equals(hash)) cachedData = file.subarray(hash.length);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(source, { filename: `validator-${key}.cjs`, cachedData });
  (script.runInThisContext() as (r: unknown, m: unknown, e: unknown) => void)(load, module, module.exports);
  const fn = (module.exports.default ?? module.exports) as ValidateFunction;
  if (typeof fn !== "function") throw new Error("validator code exported no function");
  const cached = cachedData !== undefined && !script.cachedDataRejected;
  if (cachePath && !cached) keepCodeCacheAtExit(script, cachePath, hash);
  return { fn, cached };
}

const pendingCodeCaches: { script: vm.Script; file: string; hash: Buffer }[] = [];
let writesAtExit = false;

function keepCodeCacheAtExit(script: vm.Script, file: string, hash: Buffer): void {
  if (!writesAtExit) process.once("exit", writeCodeCaches);
  writesAtExit = true;
  pendingCodeCaches.push({ script, file, hash });
}

/** Writes the code caches of the validators loaded without one (at exit; tests call it). */
export function writeCodeCaches(): void {
  for (const { script, file, hash } of pendingCodeCaches.splice(0)) {
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, Buffer.concat([hash, script.createCachedData()]));
      fs.renameSync(tmp, file);
    } catch {
      // A cache that cannot be written only costs time on the next run.
    }
  }
}

/** `$COMPOSITION_CI_CACHE`, else `$XDG_CACHE_HOME/composition-ci`, else `~/.cache/composition-ci`. */
export function defaultCacheDir(): string {
  return process.env.COMPOSITION_CI_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "composition-ci");
}
