import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";
import type { JsonObject } from "../core/json.js";
import { ValidatorCompiler } from "../validate/compile.js";
import { SchemaEngine } from "../validate/engine.js";
import { findingAt } from "../validate/findings.js";
import { loadBuiltinSchemas } from "../validate/schemas/builtin.js";
import type { SchemaEntry } from "../validate/schemas/registry.js";
import { localResources, PackageReadError, readPackage, type KptPackage, type ReadResource } from "./package.js";
import { notKrm } from "./resources.js";
import { isObject, readDocuments } from "./yaml.js";

/**
 * A Kptfile checked as kpt checks it before rendering (kptfileutil.ReadKptfile, KptFile.Validate,
 * Pkg.ValidatePipeline), plus its schema (schemas/kpt.yaml: kpt decodes Kptfiles refusing unknown
 * fields) and the selectors kpt would silently read differently than written. Errors here stop
 * kpt before any function runs, so they stop the render too.
 */

export type FunctionKind = "mutator" | "validator";

export interface PipelineFunction {
  kind: FunctionKind;
  index: number;
  spec: JsonObject;
  /** JSON pointer of the step in the Kptfile. */
  pointer: string;
}

export interface KptfileCheck {
  findings: Finding[];
  /** kpt would refuse to render the package. */
  fatal: boolean;
  functions: PipelineFunction[];
}

let engine: { engine: SchemaEngine; entry: SchemaEntry } | undefined;

function kptfileSchema(): { engine: SchemaEngine; entry: SchemaEntry } {
  if (engine) return engine;
  const found = loadBuiltinSchemas().find((b) => b.gvk.group === "kpt.dev" && b.gvk.version === "v1" && b.gvk.kind === "Kptfile");
  if (!found) throw new Error("schemas/kpt.yaml has no Kptfile schema");
  engine = {
    engine: new SchemaEngine(new ValidatorCompiler()),
    entry: { gvk: found.gvk, source: "builtin", origin: found.file, schema: found.schema, structural: true },
  };
  return engine;
}

export function pipelineFunctions(kptfile: JsonObject): PipelineFunction[] {
  const pipeline = isObject(kptfile.pipeline) ? kptfile.pipeline : {};
  const out: PipelineFunction[] = [];
  for (const [kind, key] of [
    ["mutator", "mutators"],
    ["validator", "validators"],
  ] as const) {
    const list = pipeline[key];
    if (!Array.isArray(list)) continue;
    list.forEach((spec, index) => {
      if (isObject(spec)) out.push({ kind, index, spec, pointer: `/pipeline/${key}/${index}` });
    });
  }
  return out;
}

/** kpt's name for a step in messages: its `name`, else the image's last path segment, else the exec. */
export function stepName(fn: PipelineFunction): string {
  const name = str(fn.spec.name);
  if (name) return name;
  const image = str(fn.spec.image);
  if (image)
    return (
      image
        .replace(/[@:][^/]*$/, "")
        .split("/")
        .pop() ?? image
    );
  return str(fn.spec.exec);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

/**
 * A package as `kpt fn render` reads it before it runs anything: the Kptfile, the package's own
 * resources (none when they cannot be read: `readFailure` says why) and the Kptfile's checks.
 */
export function readCheckedPackage(root: string, dir: string): { pkg: KptPackage; local: ReadResource[]; readFailure?: string; check: KptfileCheck } {
  const pkg = readPackage(root, dir);
  let local: ReadResource[] = [];
  let readFailure: string | undefined;
  if (!pkg.readError) {
    try {
      local = localResources(root, pkg);
    } catch (err) {
      if (!(err instanceof PackageReadError)) throw err;
      readFailure = err.message;
    }
  }
  return { pkg, local, readFailure, check: checkKptfile(pkg, readFailure ? undefined : local) };
}

export function checkKptfile(pkg: KptPackage, resources: ReadResource[] | undefined): KptfileCheck {
  const m = pkg.kptfile;
  const findings: Finding[] = [];
  const at = (pointer: string, severity: Finding["severity"], rule: string, message: string) => findings.push(findingAt(m, pointer, rule, severity, message));
  if (pkg.readError) {
    at("", "error", "kpt/kptfile", pkg.readError);
    return { findings, fatal: true, functions: [] };
  }
  const object = m.object as JsonObject;
  const apiVersion = str(object.apiVersion);
  if (object.kind !== "Kptfile" || apiVersion !== "kpt.dev/v1") {
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    const message =
      object.kind === "Kptfile" && apiVersion.startsWith("kpt.dev/") && ["v1alpha1", "v1alpha2"].includes(version)
        ? `old resource version "${version}" found in Kptfile: kpt v1 reads only kpt.dev/v1 (\`kpt fn eval --image ghcr.io/kptdev/krm-functions-catalog/fix\` migrates it)`
        : `unknown resource type "${apiVersion}, Kind=${str(object.kind)}" found in Kptfile: kpt reads only kpt.dev/v1 Kptfile`;
    at(object.kind === "Kptfile" ? "/apiVersion" : "/kind", "error", "kpt/kptfile", message);
    return { findings, fatal: true, functions: [] };
  }
  const schema = kptfileSchema();
  for (const v of schema.engine.validate(m, schema.entry))
    at(v.pointer, v.severity ?? "error", "kpt/kptfile", `${v.message} (kpt refuses a Kptfile its v1 schema does not accept)`);
  const functions = pipelineFunctions(object);
  const byPath = new Set((resources ?? []).map((r) => path.posix.normalize(r.path)));
  for (const fn of functions) checkFunction(pkg, fn, at, resources ? byPath : undefined);
  return { findings, fatal: findings.some((f) => f.severity === "error"), functions };
}

type At = (pointer: string, severity: Finding["severity"], rule: string, message: string) => void;

function checkFunction(pkg: KptPackage, fn: PipelineFunction, at: At, resourcePaths: Set<string> | undefined): void {
  const image = str(fn.spec.image);
  const exec = str(fn.spec.exec);
  if (!image && !exec) at(fn.pointer, "error", "kpt/kptfile", "must specify a function (`image` or `exec`) to execute");
  if (image && exec) at(fn.pointer, "error", "kpt/kptfile", "must not specify both `image` and `exec` at the same time");
  if (image && !validImageReference(image))
    at(`${fn.pointer}/image`, "error", "kpt/kptfile", `function image reference "${image}" is invalid: it is not a valid OCI reference (name[:tag][@digest])`);
  const configMap = fn.spec.configMap;
  const configPath = fn.spec.configPath;
  const hasConfigMap = isObject(configMap) && Object.keys(configMap).length > 0;
  if (hasConfigMap && typeof configPath === "string" && configPath !== "") {
    at(fn.pointer, "error", "kpt/function-config", "functionConfig must not specify both `configMap` and `configPath` at the same time");
  }
  if (typeof configPath === "string") checkConfigPath(pkg, fn, configPath, at, resourcePaths);
  for (const [key, empty] of [
    ["selectors", "selects every resource, so the function runs on the whole package"],
    ["exclude", "is ignored by kpt (it excludes nothing)"],
  ] as const) {
    const list = fn.spec[key];
    if (!Array.isArray(list)) continue;
    list.forEach((selector, i) => {
      if (!isObject(selector)) return;
      const set =
        ["apiVersion", "kind", "name", "namespace"].some((k) => str(selector[k]) !== "") ||
        ["labels", "annotations"].some((k) => isObject(selector[k]) && Object.keys(selector[k] as object).length > 0);
      if (!set)
        at(
          `${fn.pointer}/${key}/${i}`,
          "warning",
          "kpt/selector",
          `an empty selector ${empty}; give it apiVersion, kind, name, namespace, labels or annotations`,
        );
    });
  }
}

function checkConfigPath(pkg: KptPackage, fn: PipelineFunction, configPath: string, at: At, resourcePaths: Set<string> | undefined): void {
  const pointer = `${fn.pointer}/configPath`;
  const cleaned = path.posix.normalize(configPath.trim() || ".");
  if (configPath.trim() === "") return void at(pointer, "error", "kpt/function-config", "path must not be empty");
  if (path.posix.isAbsolute(cleaned) || path.isAbsolute(configPath)) return void at(pointer, "error", "kpt/function-config", "path must be relative");
  if (cleaned.includes("..")) return void at(pointer, "error", "kpt/function-config", "path must not be outside the package");
  const file = path.join(pkg.dir, cleaned);
  let text: string;
  try {
    // A symbolic link out of the package is not followed: a pull request must not get files of the runner read.
    if (!insidePackage(pkg.dir, file)) throw new Error("outside");
    text = fs.readFileSync(file, "utf8");
  } catch {
    return void at(pointer, "error", "kpt/function-config", `failed to open functionConfig from path "${configPath}": no such file in the package`);
  }
  let docs;
  try {
    docs = readDocuments(text);
  } catch (err) {
    return void at(pointer, "error", "kpt/function-config", `failed to read functionConfig "${configPath}": ${(err as Error).message}`);
  }
  if (docs.length === 0) return void at(pointer, "error", "kpt/function-config", `functionConfig "${configPath}" holds no object`);
  if (docs.length > 1)
    return void at(pointer, "error", "kpt/function-config", `functionConfig "${configPath}" must not contain more than one config, got ${docs.length}`);
  const problem = notKrm(docs[0]!.value, cleaned);
  if (problem) return void at(pointer, "error", "kpt/function-config", `functionConfig "${configPath}": ${problem}`);
  if (resourcePaths && !resourcePaths.has(cleaned)) {
    const what = fn.kind === "mutator" ? "mutator" : "validator";
    at(
      pointer,
      "error",
      "kpt/function-config",
      `functionConfig resource for ${what} "${stepName(fn)}" is missing from path "${configPath}", this also occurs if "${configPath}" is part of a subpackage (or .krmignore ignores it)`,
    );
  }
}

/** The OCI reference grammar (distribution/reference): [domain/]path[:tag][@digest]. */
export function validImageReference(ref: string): boolean {
  const component = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
  const domain =
    "(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?";
  const name = `(?:${domain}/)?${component}(?:/${component})*`;
  const re = new RegExp(`^${name}(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`);
  if (!re.test(ref)) return false;
  const repository = ref.split(/[@]/)[0]!.replace(/:[\w][\w.-]*$/, "");
  return repository.length <= 255;
}

/** The Kptfile manifest, for messages about a package. */
export function packageTitle(m: Manifest): string {
  return `package ${m.name ?? path.posix.dirname(m.file)}`;
}

/** Whether a file, links resolved, is inside the package directory. */
export function insidePackage(dir: string, file: string): boolean {
  try {
    const real = fs.realpathSync(file);
    const top = fs.realpathSync(dir);
    return real.startsWith(top + path.sep);
  } catch {
    return false;
  }
}
