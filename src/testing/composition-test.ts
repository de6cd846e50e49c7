import { parseCrossplaneVersion } from "../core/crossplane-releases.js";
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import type { JsonObject } from "../core/json.js";
import { COMPOSITION_RESOURCE_NAME } from "../manifest/roles.js";
import { subsetDifferences } from "./compare.js";
import { notRunnableNote, readTestObjects, resolveTestPath, TestInputError, xrSchemaFromXrd, type RenderInput, type TestRenderer } from "./render.js";
import type { TestFailure, TestResult, UnreadableTest } from "./types.js";
import { NO_SUCH_FUNCTION } from "../render/runner/select.js";

const UP_TEST_RELEASE = parseCrossplaneVersion("v2.2");

/**
 * Upbound's CompositionTest (`meta.dev.upbound.io/v1alpha1`, what `up test run` runs), without
 * Docker: the XR is rendered through its Composition as `up test` renders it (with the full XR,
 * the functions' results and the context), and each asserted object must be found among the
 * rendered ones and hold what the assertion says.
 */

export const COMPOSITION_TEST_GROUP = "meta.dev.upbound.io";

export function isCompositionTest(m: Manifest): boolean {
  return m.group === COMPOSITION_TEST_GROUP && m.kind === "CompositionTest";
}

/** `spec` of a CompositionTest, checked for shape. */
interface Spec {
  xr?: JsonObject;
  xrPath?: string;
  xrd?: JsonObject;
  xrdPath?: string;
  composition?: JsonObject;
  compositionPath?: string;
  observedResources: JsonObject[];
  extraResources: JsonObject[];
  context?: JsonObject;
  functionCredentialsPath?: string;
  assertResources: JsonObject[];
  timeoutSeconds?: number;
  validate: boolean;
}

const SPEC_FIELDS = [
  "xr",
  "xrPath",
  "xrd",
  "xrdPath",
  "composition",
  "compositionPath",
  "observedResources",
  "extraResources",
  "context",
  "functionCredentialsPath",
  "assertResources",
  "timeoutSeconds",
  "validate",
];

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a test object cannot be read, at the JSON pointer of the part to blame. */
export class Malformed extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
  }
}

/** The spec, or why the test file cannot be read as a CompositionTest (with the line). */
export function readCompositionTest(m: Manifest): { spec: Spec } | { unreadable: UnreadableTest } {
  try {
    return { spec: parseSpec(m.object.spec) };
  } catch (err) {
    if (!(err instanceof Malformed)) throw err;
    const { line } = m.locate(err.pointer);
    return { unreadable: { file: m.file, line, message: `CompositionTest ${m.name ?? ""}: ${err.message}` } };
  }
}

function parseSpec(raw: unknown): Spec {
  if (!isObject(raw)) throw new Malformed("spec must be a mapping", "/spec");
  for (const key of Object.keys(raw)) {
    if (!SPEC_FIELDS.includes(key)) throw new Malformed(`unknown field spec.${key} (known: ${SPEC_FIELDS.join(", ")})`, `/spec/${key}`);
  }
  const object = (key: string) => {
    const v = raw[key];
    if (v !== undefined && v !== null && !isObject(v)) throw new Malformed(`spec.${key} must be an object`, `/spec/${key}`);
    return v === null ? undefined : (v as JsonObject | undefined);
  };
  const string = (key: string) => {
    const v = raw[key];
    if (v !== undefined && v !== null && typeof v !== "string") throw new Malformed(`spec.${key} must be a path (a string)`, `/spec/${key}`);
    return v ? (v as string) : undefined;
  };
  const objects = (key: string, needKind: boolean) => {
    const v = raw[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new Malformed(`spec.${key} must be a list of objects`, `/spec/${key}`);
    v.forEach((item, i) => {
      if (!isObject(item)) throw new Malformed(`spec.${key}[${i}] must be an object`, `/spec/${key}/${i}`);
      if (needKind && (typeof item.apiVersion !== "string" || typeof item.kind !== "string")) {
        throw new Malformed(`spec.${key}[${i}] needs apiVersion and kind (they choose the rendered objects it is compared with)`, `/spec/${key}/${i}`);
      }
    });
    return v as JsonObject[];
  };
  const spec: Spec = {
    xr: object("xr"),
    xrPath: string("xrPath"),
    xrd: object("xrd"),
    xrdPath: string("xrdPath"),
    composition: object("composition"),
    compositionPath: string("compositionPath"),
    observedResources: objects("observedResources", false),
    extraResources: objects("extraResources", false),
    context: object("context"),
    functionCredentialsPath: string("functionCredentialsPath"),
    assertResources: objects("assertResources", true),
    validate: false,
  };
  // As up's validation words it.
  for (const [inline, file] of [
    ["xr", "xrPath"],
    ["xrd", "xrdPath"],
    ["composition", "compositionPath"],
  ] as const) {
    if (spec[inline] && spec[file]) throw new Malformed(`only one of '${inline}' or '${file}' may be specified`, `/spec/${file}`);
  }
  if (!spec.xr && !spec.xrPath) throw new Malformed("the XR to render is missing: give spec.xr (inline) or spec.xrPath", "/spec");
  if (raw.timeoutSeconds !== undefined && raw.timeoutSeconds !== null) {
    if (!Number.isInteger(raw.timeoutSeconds) || (raw.timeoutSeconds as number) <= 0)
      throw new Malformed("spec.timeoutSeconds must be a positive whole number", "/spec/timeoutSeconds");
    spec.timeoutSeconds = raw.timeoutSeconds as number;
  }
  if (raw.validate !== undefined && raw.validate !== null) {
    if (typeof raw.validate !== "boolean") throw new Malformed("spec.validate must be true or false", "/spec/validate");
    spec.validate = raw.validate;
  }
  return spec;
}

/** How a rendered or asserted object is named in a report. */
export function objectLabel(o: JsonObject): string {
  const meta = isObject(o.metadata) ? o.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  const name = typeof meta.name === "string" ? ` ${meta.name}` : typeof meta.generateName === "string" ? ` ${meta.generateName}*` : "";
  const resource = annotations[COMPOSITION_RESOURCE_NAME];
  return `${String(o.apiVersion)} ${String(o.kind)}${name}${typeof resource === "string" ? ` (composition resource ${resource})` : ""}`;
}

/**
 * The rendered objects an assertion is about, as `up test` picks them: the same apiVersion and
 * kind, the same name when the assertion gives one, and every annotation it gives.
 */
function candidatesFor(want: JsonObject, rendered: JsonObject[]): JsonObject[] {
  const meta = isObject(want.metadata) ? want.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  return rendered.filter((o) => {
    if (o.apiVersion !== want.apiVersion || o.kind !== want.kind) return false;
    const m = isObject(o.metadata) ? o.metadata : {};
    if (typeof meta.name === "string" && m.name !== meta.name) return false;
    const a = isObject(m.annotations) ? m.annotations : {};
    return Object.entries(annotations).every(([k, v]) => a[k] === v);
  });
}

/** Each assertion against the rendered documents: nothing when it holds, else why not. */
export function assertRendered(
  assertions: JsonObject[],
  rendered: JsonObject[],
  at: (pointer: string) => { file: string; line: number },
  pointerOf: (index: number) => string = (i) => `/spec/assertResources/${i}`,
): TestFailure[] {
  const failures: TestFailure[] = [];
  assertions.forEach((want, i) => {
    const base = pointerOf(i);
    const candidates = candidatesFor(want, rendered);
    if (candidates.length === 0) {
      const sameKind = rendered.filter((o) => o.apiVersion === want.apiVersion && o.kind === want.kind).map(objectLabel);
      const meta = isObject(want.metadata) ? want.metadata : {};
      const named = typeof meta.name === "string" ? ` named "${meta.name}"` : "";
      const annotated = isObject(meta.annotations) && Object.keys(meta.annotations).length ? " with the asserted annotations" : "";
      const rest = sameKind.length ? `; rendered of this kind: ${sameKind.join(", ")}` : "; nothing of this kind was rendered";
      failures.push({
        object: objectLabel(want),
        message: `missing: no rendered ${String(want.apiVersion)} ${String(want.kind)}${named}${annotated}${rest}`,
        ...at(base),
      });
      return;
    }
    // The assertion holds when some candidate holds it; otherwise the nearest candidate's differences are shown.
    let best: { object: JsonObject; differences: ReturnType<typeof subsetDifferences> } | undefined;
    for (const object of candidates) {
      const differences = subsetDifferences(want, object);
      if (differences.length === 0) return;
      if (!best || differences.length < best.differences.length) best = { object, differences };
    }
    const { line, file } = at(`${base}${best!.differences[0]!.pointer}`);
    failures.push({ object: objectLabel(best!.object), differences: best!.differences, file, line });
  });
  return failures;
}

/** Runs one CompositionTest. Never throws for bad input: a test that cannot run is an `error` result. */
export async function runCompositionTest(m: Manifest, spec: Spec, renderer: TestRenderer): Promise<TestResult> {
  const started = performance.now();
  const { line } = m.locate("");
  const result: TestResult = { kind: "CompositionTest", name: m.name ?? "(unnamed)", file: m.file, line, status: "passed", failures: [], durationMs: 0 };
  const at = (pointer: string) => ({ file: m.file, line: m.locate(pointer).line });
  const root = renderer.repo.root;
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/");
  try {
    const one = (p: string, what: string) => {
      const abs = resolveTestPath(root, m.file, p);
      const objects = readTestObjects(root, abs);
      if (objects.length !== 1) throw new TestInputError(`${p}: expected exactly one ${what}, found ${objects.length} objects`);
      return { object: objects[0]!.object, file: rel(abs) };
    };
    const input = spec.xr ? { object: spec.xr, file: m.file } : one(spec.xrPath!, "XR");
    const xr = renderer.asXr(input.object, input.file);
    result.source = `${String(xr.kind)} ${String((xr.metadata as JsonObject | undefined)?.name ?? "")} (${input.file === m.file ? "inline" : input.file})`;
    const composition = spec.composition
      ? { object: spec.composition, file: m.file }
      : spec.compositionPath
        ? one(spec.compositionPath, "Composition")
        : undefined;
    const xrd = spec.xrd ? { object: spec.xrd, file: m.file } : spec.xrdPath ? one(spec.xrdPath, "XRD") : undefined;
    const credentials = spec.functionCredentialsPath
      ? readTestObjects(root, resolveTestPath(root, m.file, spec.functionCredentialsPath)).map((o) => o.object)
      : undefined;
    const request: RenderInput = {
      xr,
      near: input.file,
      composition,
      xrSchema: xrd ? xrSchemaFromXrd(xrd.object, xr, xrd.file) : undefined,
      observedResources: spec.observedResources,
      requiredResources: spec.extraResources,
      context: spec.context,
      credentials,
      timeoutMs: spec.timeoutSeconds === undefined ? undefined : spec.timeoutSeconds * 1000,
      // What up test renders with: its in-process render, as crossplane render printed before the engine (v2.2).
      release: UP_TEST_RELEASE,
      includeFullXr: true,
      includeFunctionResults: true,
      includeContext: true,
    };
    const { rendered, via } = await renderer.render(request);
    result.source += ` via ${via}`;
    if (rendered.notRunnable?.some((s) => s.reason === NO_SUCH_FUNCTION)) {
      // A function that exists nowhere is the test's fault: it could not run.
      result.status = "error";
      result.failures.push({ message: `could not run: ${notRunnableNote(rendered.notRunnable.filter((s) => s.reason === NO_SUCH_FUNCTION))}`, ...at("") });
      return result;
    }
    if (rendered.notRunnable?.length) {
      // A function composition-ci may not or cannot run here is no fault of the repository (render/not-rendered).
      result.status = "skipped";
      result.note = notRunnableNote(rendered.notRunnable);
      return result;
    }
    if (!rendered.ok) {
      result.status = "error";
      for (const p of rendered.problems.filter((p) => p.severity === "error"))
        result.failures.push({ message: `render failed: ${p.message}${p.detail ? `\n${p.detail}` : ""}`, ...at("") });
      if (!result.failures.length) result.failures.push({ message: "render failed", ...at("") });
      return result;
    }
    for (const p of rendered.problems.filter((p) => p.severity === "error")) result.failures.push({ message: p.message, ...at("") });
    result.failures.push(...assertRendered(spec.assertResources, rendered.documents, at));
    if (spec.validate) {
      for (const v of await renderer.validate(rendered.documents, m.file)) {
        result.failures.push({ object: objectLabel(v.object), message: `schema: at ${v.path}: ${v.message}`, ...at("/spec/validate") });
      }
    }
    if (result.failures.length) result.status = "failed";
  } catch (err) {
    if (!(err instanceof TestInputError)) throw err;
    result.status = "error";
    result.failures.push({ message: err.message, ...at("") });
  } finally {
    result.durationMs = performance.now() - started;
  }
  return result;
}
