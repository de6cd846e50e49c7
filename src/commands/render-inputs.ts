import fs from "node:fs";
import path from "node:path";
import { DurationError, parseDuration as parseGoDuration } from "../go/duration.js";
import * as YAML from "yaml";
import { readManifests } from "../manifest/read.js";
import type { Manifest } from "../manifest/manifest.js";
import type { JsonObject } from "../core/json.js";
import { RUNTIME_ANNOTATION, type FunctionManifest } from "../render/runner/select.js";
import { isXrd, schemasFromXrd } from "../validate/schemas/xrd.js";
import { SchemaRegistry } from "../validate/schemas/registry.js";
import { gvkOf } from "../validate/schemas/types.js";
import type { SchemaLookup } from "../render/crossplane/pipeline.js";
import { UsageError } from "../core/usage.js";
import type { OpenAPISchema } from "../validate/schemas/types.js";

/** The render commands' inputs (as crossplane's load.go): XRs, Compositions, functions, observed and required resources, context, schemas, durations; and the YAML stream they print. */

/** The manifests of a file or directory given on the command line; bad YAML is a usage error. */
export function readInputs(p: string, cwd: string): Manifest[] {
  const abs = path.resolve(cwd, p);
  if (!fs.existsSync(abs)) throw new UsageError(`${p}: no such file or directory`);
  const read = readManifests([abs], cwd);
  const bad = read.findings.find((x) => x.severity === "error");
  if (bad) throw new UsageError(`${bad.file}:${bad.line ?? 1}: ${bad.message}`);
  return read.manifests;
}

export function readObjects(p: string, cwd: string): JsonObject[] {
  return readInputs(p, cwd).map((m) => m.object as JsonObject);
}

export function single(objects: JsonObject[], file: string, what: string): JsonObject {
  if (objects.length !== 1) throw new UsageError(`${file}: expected exactly one ${what}, found ${objects.length} objects`);
  return objects[0]!;
}

/** Schemas of the CRDs and XRDs given (and the built-in ones), by apiVersion and kind. */
export function schemaLookup(manifests: Manifest[], builtins = false): SchemaLookup {
  const registry = new SchemaRegistry();
  for (const m of manifests) registry.addDefinitions(m, { library: true });
  if (builtins) registry.addBuiltins();
  return (apiVersion, kind) => registry.get(gvkOf(apiVersion, kind))?.schema as JsonObject | undefined;
}

/** --xrd: the XR's schema (its defaults apply) and the XRD itself (its apiVersion and scope choose where refs are printed). */
export function xrdFor(manifests: Manifest[], xr: JsonObject): { xrSchema: OpenAPISchema | undefined; xrd: JsonObject } {
  for (const xrd of manifests.filter(isXrd)) {
    for (const s of schemasFromXrd(xrd)) {
      if (`${s.gvk.group}/${s.gvk.version}` === xr.apiVersion && s.gvk.kind === xr.kind) return { xrSchema: s.schema, xrd: xrd.object as JsonObject };
    }
  }
  throw new UsageError(`--xrd: no XRD there defines ${String(xr.apiVersion)} ${String(xr.kind)}`);
}

export function contextFrom(values: { "context-files"?: string[]; "context-values"?: string[] }, cwd: string): JsonObject | undefined {
  const context: JsonObject = {};
  const pair = (flag: string, s: string) => {
    const eq = s.indexOf("=");
    if (eq <= 0) throw new UsageError(`${flag} takes KEY=VALUE (got "${s}")`);
    return [s.slice(0, eq), s.slice(eq + 1)] as const;
  };
  // JSON or YAML, as apimachinery's yaml.Unmarshal reads them (JSON is YAML).
  const json = (flag: string, key: string, text: string) => {
    const doc = YAML.parseDocument(text, { version: "1.1" });
    if (doc.errors.length) throw new UsageError(`${flag} ${key}: not JSON or YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
    return doc.toJS() as unknown;
  };
  for (const s of values["context-files"] ?? []) {
    const [k, p] = pair("--context-files", s);
    let text: string;
    try {
      text = fs.readFileSync(path.resolve(cwd, p), "utf8");
    } catch (err) {
      throw new UsageError(`--context-files ${k}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: ${p}`);
    }
    context[k] = json("--context-files", k, text);
  }
  for (const s of values["context-values"] ?? []) {
    const [k, v] = pair("--context-values", s);
    context[k] = json("--context-values", k, v);
  }
  return Object.keys(context).length ? context : undefined;
}

/** `--function-annotations KEY=VALUE`: set on every Function before its runtime is chosen. */
export function withAnnotations(functions: Map<string, FunctionManifest>, values: string[] | undefined): Map<string, FunctionManifest> {
  if (!values?.length) return functions;
  const annotations: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UsageError(`invalid function annotation format "${v}", expected key=value`);
    annotations[v.slice(0, eq)] = v.slice(eq + 1);
  }
  const runtimeByCaller = RUNTIME_ANNOTATION in annotations;
  return new Map(
    [...functions].map(([name, f]) => [name, { ...f, annotations: { ...f.annotations, ...annotations }, ...(runtimeByCaller ? { runtimeByCaller } : {}) }]),
  );
}

/**
 * `--required-schemas`: a directory of OpenAPI v3 documents as crossplane render takes them (each
 * `components.schemas` entry found by its x-kubernetes-group-version-kind), or CRDs and XRDs.
 */
export function requiredSchemas(p: string, cwd: string): SchemaLookup {
  const abs = path.resolve(cwd, p);
  if (!fs.existsSync(abs)) throw new UsageError(`${p}: no such file or directory`);
  const jsonFiles = fs.statSync(abs).isDirectory()
    ? fs
        .readdirSync(abs, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".json"))
        .map((f) => path.join(abs, f))
    : [];
  const openapi = new Map<string, JsonObject>();
  for (const file of jsonFiles) {
    let doc: { components?: { schemas?: Record<string, JsonObject> } };
    try {
      doc = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      throw new UsageError(`--required-schemas: ${path.relative(cwd, file)} is not JSON: ${(err as Error).message.split("\n")[0]}`);
    }
    for (const schema of Object.values(doc.components?.schemas ?? {})) {
      for (const gvk of (schema["x-kubernetes-group-version-kind"] ?? []) as { group?: string; version?: string; kind?: string }[]) {
        openapi.set(`${gvk.group ? `${gvk.group}/` : ""}${gvk.version}|${gvk.kind}`, schema);
      }
    }
  }
  const definitions = jsonFiles.length ? undefined : schemaLookup(readInputs(p, cwd));
  return (apiVersion, kind) => openapi.get(`${apiVersion}|${kind}`) ?? definitions?.(apiVersion, kind);
}

/** Go-style durations: `60s`, `1m30s`, `500ms`, `2h`. */
export function parseDuration(text: string): number {
  let ns = Number.NaN;
  try {
    ns = parseGoDuration(text);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
  }
  if (!(ns > 0)) throw new UsageError(`--timeout: "${text}" is not a duration like 60s, 2m or 500ms`);
  return ns / 1e6;
}
