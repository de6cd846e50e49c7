import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import { deleteFieldPath, FieldPathError, setValue } from "../manifest/fieldpath.js";
import type { JsonObject } from "../core/json.js";
import { NO_SUCH_FUNCTION } from "../render/runner/select.js";
import { assertRendered, Malformed, objectLabel } from "./composition-test.js";
import { notRunnableNote, readTestObjects, resolveTestPath, TestInputError, xrSchemaFromXrd, type RenderInput, type TestRenderer } from "./render.js";
import type { TestResult, UnreadableTest } from "./types.js";

/**
 * Crossplane's CompositionTest (`test.crossplane.io/v1alpha1`, the accepted design
 * `design/design-doc-developer-experience-tooling.md`): `spec.tests[]`, each a render of an XR
 * (patched with `addFields`/`removeFields`) through a Composition with the listed Functions, then
 * its assertions (`type: chainsaw`: each resource must match a rendered one, as a subset). One test
 * result per case, named `<test>/<case>`.
 */

export const CROSSPLANE_TEST_GROUP = "test.crossplane.io";

export function isCrossplaneCompositionTest(m: Manifest): boolean {
  return m.group === CROSSPLANE_TEST_GROUP && m.kind === "CompositionTest";
}

/** A resource inline (`raw`) or in a file (`path`): exactly one. */
interface Resource {
  raw?: JsonObject;
  path?: string;
}

interface Resources {
  raw?: JsonObject[];
  path?: string;
}

interface Case {
  index: number;
  name: string;
  xrd?: Resource;
  addFields: Record<string, string>;
  removeFields: string[];
  xr: Resource;
  composition: Resource;
  functions: Resources;
  observedResources?: Resources;
  extraResources?: Resources;
  functionCredentialsPath?: string;
  context?: JsonObject;
  timeoutSeconds: number;
  validate: boolean;
  assertions: JsonObject[];
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The cases, or why the file cannot be read as a CompositionTest (at its line). */
export function readCrossplaneTest(m: Manifest): { cases: Case[] } | { unreadable: UnreadableTest } {
  try {
    const spec = m.object.spec;
    if (!isObject(spec) || !Array.isArray(spec.tests)) throw new Malformed("spec.tests must be a list of test cases", "/spec");
    return { cases: spec.tests.map((t, i) => parseCase(t, i)) };
  } catch (err) {
    if (!(err instanceof Malformed)) throw err;
    return { unreadable: { file: m.file, line: m.locate(err.pointer).line, message: `CompositionTest ${m.name ?? ""}: ${err.message}` } };
  }
}

function parseCase(raw: unknown, index: number): Case {
  const at = `/spec/tests/${index}`;
  if (!isObject(raw)) throw new Malformed(`spec.tests[${index}] must be a mapping`, at);
  if (typeof raw.name !== "string" || raw.name === "") throw new Malformed(`spec.tests[${index}].name is required`, at);
  const patches = raw.patches === undefined ? {} : raw.patches;
  if (!isObject(patches)) throw new Malformed(`spec.tests[${index}].patches must be a mapping`, `${at}/patches`);
  const inputs = raw.inputs;
  if (!isObject(inputs)) throw new Malformed(`spec.tests[${index}].inputs is required (xr, composition, functions)`, at);
  const addFields = patches.addFields ?? {};
  if (!isObject(addFields) || !Object.values(addFields).every((v) => typeof v === "string"))
    throw new Malformed("patches.addFields maps field paths to string values", `${at}/patches/addFields`);
  const removeFields = patches.removeFields ?? [];
  if (!Array.isArray(removeFields) || !removeFields.every((v) => typeof v === "string"))
    throw new Malformed("patches.removeFields is a list of field paths", `${at}/patches/removeFields`);
  const timeout = inputs.timeoutSeconds ?? 30;
  if (!Number.isInteger(timeout) || (timeout as number) < 1)
    throw new Malformed("inputs.timeoutSeconds must be a whole number of 1 or more", `${at}/inputs/timeoutSeconds`);
  if (inputs.validate !== undefined && typeof inputs.validate !== "boolean")
    throw new Malformed("inputs.validate must be true or false", `${at}/inputs/validate`);
  if (inputs.context !== undefined && !isObject(inputs.context)) throw new Malformed("inputs.context maps context keys to JSON values", `${at}/inputs/context`);
  if (inputs.functionCredentialsPath !== undefined && typeof inputs.functionCredentialsPath !== "string")
    throw new Malformed("inputs.functionCredentialsPath must be a path", `${at}/inputs/functionCredentialsPath`);
  const assertions = raw.assertions ?? [];
  if (!Array.isArray(assertions) || !assertions.every(isObject)) throw new Malformed("assertions must be a list of {type, ...}", `${at}/assertions`);
  return {
    index,
    name: raw.name,
    ...(patches.xrd !== undefined ? { xrd: resource(patches.xrd, `${at}/patches/xrd`, "patches.xrd") } : {}),
    addFields: addFields as Record<string, string>,
    removeFields: removeFields as string[],
    xr: resource(inputs.xr, `${at}/inputs/xr`, "inputs.xr"),
    composition: resource(inputs.composition, `${at}/inputs/composition`, "inputs.composition"),
    functions: resources(inputs.functions, `${at}/inputs/functions`, "inputs.functions"),
    ...(inputs.observedResources !== undefined
      ? { observedResources: resources(inputs.observedResources, `${at}/inputs/observedResources`, "inputs.observedResources") }
      : {}),
    ...(inputs.extraResources !== undefined
      ? { extraResources: resources(inputs.extraResources, `${at}/inputs/extraResources`, "inputs.extraResources") }
      : {}),
    ...(typeof inputs.functionCredentialsPath === "string" ? { functionCredentialsPath: inputs.functionCredentialsPath } : {}),
    ...(isObject(inputs.context) ? { context: inputs.context } : {}),
    timeoutSeconds: timeout as number,
    validate: inputs.validate === true,
    assertions: assertions as JsonObject[],
  };
}

function resource(v: unknown, pointer: string, what: string): Resource {
  if (!isObject(v) || (v.raw === undefined) === (v.path === undefined)) throw new Malformed(`${what} needs exactly one of raw (inline) and path`, pointer);
  if (v.path !== undefined && typeof v.path !== "string") throw new Malformed(`${what}.path must be a path`, pointer);
  if (v.raw !== undefined && !isObject(v.raw)) throw new Malformed(`${what}.raw must be an object`, pointer);
  return v as Resource;
}

function resources(v: unknown, pointer: string, what: string): Resources {
  if (!isObject(v) || (v.raw === undefined) === (v.path === undefined))
    throw new Malformed(`${what} needs exactly one of raw (inline, a list) and path`, pointer);
  if (v.path !== undefined && typeof v.path !== "string") throw new Malformed(`${what}.path must be a path`, pointer);
  if (v.raw !== undefined && (!Array.isArray(v.raw) || !v.raw.every(isObject))) throw new Malformed(`${what}.raw must be a list of objects`, pointer);
  return v as Resources;
}

/** Keys of chainsaw's assertion trees that are expressions (`(length(x)): 2`): not evaluated here. */
function expressionKey(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.map(expressionKey).find(Boolean);
  if (!isObject(v)) return undefined;
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith("(") && k.endsWith(")")) return k;
    const inner = expressionKey(x);
    if (inner) return inner;
  }
  return undefined;
}

/** Runs each case of one CompositionTest; never throws for bad input. */
export async function runCrossplaneTest(m: Manifest, cases: Case[], renderer: TestRenderer): Promise<TestResult[]> {
  const out: TestResult[] = [];
  for (const c of cases) out.push(await runCase(m, c, renderer));
  return out;
}

async function runCase(m: Manifest, c: Case, renderer: TestRenderer): Promise<TestResult> {
  const started = performance.now();
  const base = `/spec/tests/${c.index}`;
  const at = (pointer: string) => ({ file: m.file, line: m.locate(pointer).line });
  const result: TestResult = {
    kind: "CompositionTest",
    name: `${m.name ?? "(unnamed)"}/${c.name}`,
    file: m.file,
    line: at(base).line,
    status: "passed",
    failures: [],
    durationMs: 0,
  };
  const root = renderer.repo.root;
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/");
  const list = (r: Resources | undefined): JsonObject[] =>
    !r ? [] : r.raw ? r.raw : readTestObjects(root, resolveTestPath(root, m.file, r.path!)).map((o) => o.object);
  const one = (r: Resource, what: string): { object: JsonObject; file: string } => {
    if (r.raw) return { object: r.raw, file: m.file };
    const abs = resolveTestPath(root, m.file, r.path!);
    const objects = readTestObjects(root, abs);
    if (objects.length !== 1) throw new TestInputError(`${r.path}: expected exactly one ${what}, found ${objects.length} objects`);
    return { object: objects[0]!.object, file: rel(abs) };
  };
  try {
    const input = one(c.xr, "XR");
    const xr = renderer.asXr(input.object, input.file);
    try {
      for (const [fieldPath, value] of Object.entries(c.addFields)) setValue(xr, fieldPath, value);
      for (const fieldPath of c.removeFields) deleteFieldPath(xr, fieldPath);
    } catch (err) {
      if (!(err instanceof FieldPathError)) throw err;
      throw new TestInputError(`patches: ${err.message}`);
    }
    result.source = `${String(xr.kind)} ${String((xr.metadata as JsonObject | undefined)?.name ?? "")} (${input.file === m.file ? "inline" : input.file})`;
    const xrd = c.xrd ? one(c.xrd, "XRD") : undefined;
    const request: RenderInput = {
      xr,
      near: input.file,
      composition: one(c.composition, "Composition"),
      xrSchema: xrd ? xrSchemaFromXrd(xrd.object, xr, xrd.file) : undefined,
      ...(xrd ? { xrd: xrd.object } : {}),
      functions: list(c.functions),
      observedResources: list(c.observedResources),
      requiredResources: list(c.extraResources),
      context: c.context,
      credentials: c.functionCredentialsPath ? list({ path: c.functionCredentialsPath }) : undefined,
      timeoutMs: c.timeoutSeconds * 1000,
      release: renderer.options.release,
      includeFullXr: true,
    };
    const { rendered, via } = await renderer.render(request);
    result.source += ` via ${via}`;
    if (rendered.notRunnable?.length) {
      const missing = rendered.notRunnable.some((s) => s.reason === NO_SUCH_FUNCTION);
      result.status = missing ? "error" : "skipped";
      const note = notRunnableNote(missing ? rendered.notRunnable.filter((s) => s.reason === NO_SUCH_FUNCTION) : rendered.notRunnable);
      if (missing)
        result.failures.push({ message: `could not run: ${note} (inputs.functions lists the Functions a case runs)`, ...at(`${base}/inputs/functions`) });
      else result.note = note;
      return result;
    }
    if (!rendered.ok) {
      result.status = "error";
      for (const p of rendered.problems.filter((p) => p.severity === "error")) result.failures.push({ message: `render failed: ${p.message}`, ...at(base) });
      if (!result.failures.length) result.failures.push({ message: "render failed", ...at(base) });
      return result;
    }
    const notEvaluated: string[] = [];
    c.assertions.forEach((a, i) => {
      const pointer = `${base}/assertions/${i}`;
      if (a.type !== "chainsaw") return void notEvaluated.push(`assertion ${i} of type ${JSON.stringify(a.type)} (composition-ci evaluates type: chainsaw)`);
      const chainsaw = isObject(a.chainsaw) ? a.chainsaw : {};
      const wanted = Array.isArray(chainsaw.resources) ? chainsaw.resources.filter(isObject) : [];
      const expression = expressionKey(wanted);
      if (expression)
        return void notEvaluated.push(`assertion ${i}: chainsaw's expression ${expression} (composition-ci compares values, not JMESPath expressions)`);
      result.failures.push(...assertRendered(wanted, rendered.documents, at, (j) => `${pointer}/chainsaw/resources/${j}`));
    });
    if (c.validate) {
      for (const v of await renderer.validate(rendered.documents, m.file))
        result.failures.push({ object: objectLabel(v.object), message: `schema: at ${v.path}: ${v.message}`, ...at(`${base}/inputs/validate`) });
    }
    if (result.failures.length) result.status = "failed";
    else if (notEvaluated.length) {
      result.status = "skipped";
      result.note = `not evaluated: ${notEvaluated.join("; ")}`;
    }
  } catch (err) {
    if (!(err instanceof TestInputError)) throw err;
    result.status = "error";
    result.failures.push({ message: err.message, ...at(base) });
  } finally {
    result.durationMs = performance.now() - started;
  }
  return result;
}
