import type { CrossplaneRelease } from "../core/crossplane-releases.js";
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config/config.js";
import { staysInside } from "../manifest/discover.js";
import { Manifest, SourceFile, groupOf, versionOf } from "../manifest/manifest.js";
import { readManifests } from "../manifest/read.js";
import { renderComposite, type Rendered } from "../render/crossplane/render.js";
import type { NotRunnableStep } from "../render/crossplane/pipeline.js";
import { callContext, functionManifests } from "../render/crossplane/repo.js";
import { cloneJson, type JsonObject } from "../core/json.js";
import { RuntimePool, type FunctionManifest, type RuntimeOptions } from "../render/runner/select.js";
import type { SchemaEngine } from "../validate/engine.js";
import type { RepoIndex } from "../validate/repo-index.js";
import { pickComposition, xrFromClaim } from "../validate/rules/xr.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import { gvkOf, type OpenAPISchema } from "../validate/schemas/types.js";
import { schemasFromXrd } from "../validate/schemas/xrd.js";
import { pointerToFieldPath } from "../manifest/pointer.js";
import type { SecretMasker } from "../secrets/mask.js";

/**
 * Rendering for tests: one XR through its Composition with what the test gives (observed and
 * extra resources, context, credentials), on the renderer `render` and `check` use, with the
 * repository's Functions. A file a test names that cannot be read is a TestInputError.
 */

/** The repository a run tests: read and validated once (the index, the schema registry and engine). */
export interface TestRepo {
  root: string;
  index: RepoIndex;
  registry: SchemaRegistry;
  engine: SchemaEngine;
  config: Config;
}

export interface TestRuntimeOptions {
  allowExec: boolean;
  developmentTargets?: Record<string, string>;
  /** Per function call, when the test does not say. */
  timeoutMs: number;
  /** Where function packages come from, as check renders (none: built-ins, configured runtimes and Docker). */
  packages?: RuntimeOptions["packages"];
  /**
   * Learns the secrets of every object the tests read and render (inputs, rendered objects,
   * connection details, golden files), which may be nowhere in the repository's manifests: the
   * report that quotes them is masked with it.
   */
  masker?: SecretMasker;
  /** The Crossplane release new golden files are written as (--crossplane-version, else the config's, else the newest modelled). */
  release?: CrossplaneRelease;
  /** The release was said (flag or config): golden files are compared as it, whatever their shape. */
  releaseStated?: boolean;
}

/** A test input that cannot be used (a missing file, a file with no XR): the test errs, saying this. */
export class TestInputError extends Error {}

export interface RenderInput {
  xr: JsonObject;
  /** Where the XR is (or the test that holds it), repository-relative: Compositions and EnvironmentConfigs are looked up near it. */
  near: string;
  composition?: { object: JsonObject; file: string };
  /** The XRD whose defaults apply to the XR first; absent: none apply. */
  xrSchema?: OpenAPISchema;
  observedResources?: JsonObject[];
  requiredResources?: JsonObject[];
  context?: JsonObject;
  credentials?: JsonObject[];
  timeoutMs?: number;
  functionAnnotations?: Record<string, string>;
  includeFullXr?: boolean;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
  /** The Crossplane release whose render is compared (default: the newest modelled). */
  release?: CrossplaneRelease;
  /** The XR's XRD: with v2.3.4 and later, a legacy XR's refs are at spec.resourceRefs. */
  xrd?: JsonObject;
  /** The Function objects to run (a test's own list); the repository's when absent. */
  functions?: JsonObject[];
}

export interface TestRender {
  rendered: Rendered;
  /** `Composition <name> (<file>)`. */
  via: string;
}

/** Runtimes shared by a run's tests (one pool per set of `--function-annotations`), closed at its end. */
export class TestRenderer {
  private readonly pools = new Map<string, RuntimePool>();
  private readonly functions: Map<string, FunctionManifest>;

  constructor(
    readonly repo: TestRepo,
    readonly options: TestRuntimeOptions,
  ) {
    this.functions = functionManifests(repo.index);
  }

  /** One pool per set of annotations and, for a test that lists its Function objects, per such list (else the repository's). */
  private pool(annotations: Record<string, string> | undefined, listed?: JsonObject[]): RuntimePool {
    const key = JSON.stringify([annotations ?? {}, listed ?? null]);
    let pool = this.pools.get(key);
    if (!pool) {
      const base = listed ? functionManifestsOf(listed) : this.functions;
      const functions =
        annotations && Object.keys(annotations).length
          ? new Map([...base].map(([n, f]) => [n, { ...f, annotations: { ...f.annotations, ...annotations } }]))
          : base;
      pool = new RuntimePool(functions, {
        functions: this.repo.config.functions,
        root: this.repo.root,
        allowExec: this.options.allowExec,
        developmentTargets: this.options.developmentTargets,
        packages: this.options.packages,
        trustedPackages: this.repo.config.trustedFunctions,
        embeddedFunction: (name) => this.repo.index.embeddedFunction(name, this.repo.root),
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** The XR a claim stands for (as `render --all` renders claims); an XR as it is. */
  asXr(object: JsonObject, near: string): JsonObject {
    const apiVersion = String(object.apiVersion ?? "");
    const type = this.repo.index.xrType(groupOf(apiVersion), versionOf(apiVersion), String(object.kind ?? ""), near);
    return type?.claim ? xrFromClaim(object, type) : cloneJson(object);
  }

  /** The repository's XRD of the XR's type nearest to `near`, if any. */
  repoXrd(xr: JsonObject, near: string): JsonObject | undefined {
    const apiVersion = String(xr.apiVersion ?? "");
    const type = this.repo.index.xrType(groupOf(apiVersion), versionOf(apiVersion), String(xr.kind ?? ""), near);
    return type && !type.untyped ? (type.xrd.object as JsonObject) : undefined;
  }

  /** The schema of the XR's type from the repository's XRD nearest to `near` (what check applies). */
  repoXrSchema(xr: JsonObject, near: string): OpenAPISchema | undefined {
    const apiVersion = String(xr.apiVersion ?? "");
    return this.repo.index.xrType(groupOf(apiVersion), versionOf(apiVersion), String(xr.kind ?? ""), near)?.schema;
  }

  async render(input: RenderInput): Promise<TestRender> {
    const composition = input.composition ?? this.pickComposition(input.xr, input.near);
    const pool = this.pool(input.functionAnnotations, input.functions);
    const registry = this.repo.registry;
    const rendered = await renderComposite({
      xr: input.xr,
      composition: composition.object,
      runtime: (name) => pool.get(name),
      xrSchema: input.xrSchema,
      observedResources: input.observedResources,
      requiredResources: input.requiredResources,
      context: input.context,
      credentials: input.credentials,
      call: callContext({ root: this.repo.root, templateMounts: this.repo.config.templateMounts }, composition.file),
      schemaFor: (apiVersion, kind) => registry.get(gvkOf(apiVersion, kind))?.schema as JsonObject | undefined,
      timeoutMs: input.timeoutMs ?? this.options.timeoutMs,
      includeFullXr: input.includeFullXr,
      includeFunctionResults: input.includeFunctionResults,
      includeContext: input.includeContext,
      release: input.release,
      ...(input.xrd ? { xrd: input.xrd } : {}),
    });
    this.learn([
      input.xr,
      composition.object,
      ...(input.observedResources ?? []),
      ...(input.requiredResources ?? []),
      ...(input.credentials ?? []),
      input.context,
    ]);
    this.learn([rendered.xr, ...rendered.documents, ...rendered.composed]);
    for (const details of rendered.connectionDetails ?? []) this.options.masker?.learnConnectionDetails(details);
    const name = (composition.object.metadata as JsonObject | undefined)?.name;
    return { rendered, via: `Composition ${typeof name === "string" ? name : ""} (${composition.file})` };
  }

  /** Tells the masker, if there is one, the secrets of objects a test read or rendered. */
  learn(objects: unknown[]): void {
    const masker = this.options.masker;
    if (masker) for (const o of objects) if (o !== undefined) masker.learn(o);
  }

  /** The Composition Crossplane would select for the XR, from the repository. */
  private pickComposition(xr: JsonObject, near: string): { object: JsonObject; file: string } {
    const apiVersion = String(xr.apiVersion ?? "");
    const kind = String(xr.kind ?? "");
    const type = this.repo.index.xrType(groupOf(apiVersion), versionOf(apiVersion), kind, near);
    if (type) {
      const picked = pickComposition(xr, this.repo.index, type, near);
      if (!("object" in picked)) throw new TestInputError(picked.message);
      return { object: picked.object as JsonObject, file: picked.file };
    }
    // No XRD for the type in the repository: a Composition for it still renders it.
    const candidates = this.repo.index.compositionsFor(apiVersion, kind, near);
    if (candidates.length === 1) return { object: candidates[0]!.object as JsonObject, file: candidates[0]!.file };
    if (candidates.length === 0)
      throw new TestInputError(
        `no Composition in the repository is for ${apiVersion} ${kind}; name one (compositionPath, or --composition in the golden entry's flags)`,
      );
    throw new TestInputError(
      `${candidates.length} Compositions are for ${apiVersion} ${kind}; name one (compositionPath, or --composition in the golden entry's flags)`,
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }

  /**
   * Schema violations of rendered objects (the XR and composed resources; Result and Context
   * documents have no schema), as `check` finds them (render/schema). Kinds with no known schema
   * are not checked.
   */
  async validate(objects: JsonObject[], near: string): Promise<{ object: JsonObject; path: string; message: string }[]> {
    const checked = objects.filter(
      (o) => typeof o.apiVersion === "string" && typeof o.kind === "string" && !String(o.apiVersion).startsWith("render.crossplane.io/"),
    );
    await this.repo.registry.prepare(checked.map((o) => gvkOf(String(o.apiVersion), String(o.kind))));
    const out: { object: JsonObject; path: string; message: string }[] = [];
    for (const o of checked) {
      const entry = this.repo.registry.get(gvkOf(String(o.apiVersion), String(o.kind)), near);
      if (!entry) continue;
      for (const v of this.repo.engine.validateObject(o, entry)) {
        if ((v.severity ?? "error") !== "error") continue;
        out.push({ object: o, path: pointerToFieldPath(v.pointer) || "(root)", message: v.message });
      }
    }
    return out;
  }
}

/**
 * A path a test names: relative to the repository root (as `up test` reads them, from the
 * project's root), else to the test file's directory. It must stay inside the repository.
 */
export function resolveTestPath(root: string, testFile: string, p: string): string {
  const candidates = [path.resolve(root, p), path.resolve(root, path.dirname(testFile), p)];
  const found = candidates.find((c) => fs.existsSync(c)) ?? candidates[0]!;
  if (!staysInside(root, found)) throw new TestInputError(`${p} leads outside the repository; tests read files of the repository only`);
  if (!fs.existsSync(found))
    throw new TestInputError(`${p}: no such file or directory (paths are relative to the repository root, or to the test file's directory)`);
  return found;
}

/** The objects of a file or directory a test names; YAML that does not parse is a TestInputError with its line. */
export function readTestObjects(root: string, abs: string): { object: JsonObject; manifest: Manifest }[] {
  const read = readManifests([abs], root);
  const bad = read.findings.find((f) => f.severity === "error");
  if (bad) throw new TestInputError(`${bad.file}:${bad.line ?? 1}: ${bad.message}`);
  return read.manifests.map((m) => ({ object: m.object as JsonObject, manifest: m }));
}

/** The XR schema an XRD (read or inline) defines for the XR's apiVersion and kind. */
export function xrSchemaFromXrd(xrd: JsonObject, xr: JsonObject, file: string): OpenAPISchema {
  const manifest = new Manifest(xrd as Manifest["object"], new SourceFile(file, ""), 0);
  for (const s of schemasFromXrd(manifest)) {
    if (`${s.gvk.group}/${s.gvk.version}` === xr.apiVersion && s.gvk.kind === xr.kind) return s.schema;
  }
  throw new TestInputError(
    `the XRD ${String((xrd.metadata as JsonObject | undefined)?.name ?? "")} (${file}) does not define ${String(xr.apiVersion)} ${String(xr.kind)}`,
  );
}

/** Why a test was not run: the functions composition-ci may not or cannot run here, and what would let it. */
export function notRunnableNote(steps: NotRunnableStep[]): string {
  return `not rendered: ${steps.map((n) => `step "${n.step}": function ${n.functionName} ${n.reason}. To render it: ${n.fix}`).join("; ")}`;
}

/** Function objects (pkg.crossplane.io Function) by name, as the runtime pool reads them. */
function functionManifestsOf(objects: JsonObject[]): Map<string, FunctionManifest> {
  const out = new Map<string, FunctionManifest>();
  for (const o of objects) {
    if (o.kind !== "Function") continue;
    const meta = (o.metadata ?? {}) as JsonObject;
    const annotations = Object.fromEntries(
      Object.entries((meta.annotations ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === "string"),
    ) as Record<string, string>;
    const pkg = (o.spec as JsonObject | undefined)?.package;
    out.set(String(meta.name ?? ""), { name: String(meta.name ?? ""), package: typeof pkg === "string" ? pkg : undefined, annotations });
  }
  return out;
}
