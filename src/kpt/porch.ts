import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as YAML from "yaml";
import type { Finding } from "../core/finding.js";
import type { JsonObject } from "../core/json.js";
import type { Manifest } from "../manifest/manifest.js";
import type { RenderedSource } from "../rendered/source.js";
import { findingAt } from "../validate/findings.js";
import { renderPackage } from "./render.js";
import { KptRuntimes, type KptRuntimeOptions } from "./runtime.js";
import { sourceOf } from "./source.js";
import { isObject } from "./yaml.js";
import { normalizedRemote } from "../git/git.js";
import { staysInside } from "../manifest/discover.js";

/**
 * Porch PackageVariants whose upstream package is in this repository, rendered as the
 * packagevariant controller makes the downstream (kptdev/porch
 * controllers/packagevariants/pkg/controllers/packagevariant): the upstream package's files, the
 * package context data set and removed, the variant's mutators and validators put first in the
 * Kptfile pipeline under their generated names, config injected from the repository's objects
 * (the cluster's, to the controller) with the Kptfile's readiness gates and conditions; then
 * `kpt fn render`. "This repository" is the checkout's git remotes (and, in Actions, the
 * workflow's repository) matched against the Porch Repository's `spec.git.repo`; the checkout's
 * version of the upstream package is rendered, whatever revision the variant names.
 */

export const PORCH_VIA = "Porch PackageVariant, then kpt fn render";
const GROUP = "config.porch.kpt.dev";
const CONFIG_INJECTION = "kpt.dev/config-injection";
const INJECTED_RESOURCE = "kpt.dev/injected-resource";
const FUNC_PREFIX = "PackageVariant";

export interface PorchVariant {
  variant: Manifest;
  repository: Manifest;
  /** The upstream package's directory, relative to the root. */
  upstream: string;
  downstream: { repo: string; package: string };
}

const variants = new WeakMap<Manifest, PorchVariant>();

/** The PackageVariants among the manifests whose upstream package is a directory of this checkout. */
/**
 * `gitRoot`: the checkout whose remotes say what "this repository" is (diff renders the base from
 * a copy of its tree, which has none).
 */
export function porchVariants(manifests: readonly Manifest[], root: string, gitRoot = root): PorchVariant[] {
  const remotes = checkoutRemotes(gitRoot);
  if (remotes.size === 0) return [];
  const repositories = manifests.filter((m) => m.group === GROUP && m.kind === "Repository");
  const out: PorchVariant[] = [];
  for (const pv of manifests) {
    if (pv.group !== GROUP || pv.kind !== "PackageVariant") continue;
    const known = variants.get(pv);
    if (known) {
      out.push(known);
      continue;
    }
    const spec = record(pv.object.spec);
    const upstream = record(spec.upstream);
    const downstream = record(spec.downstream);
    const repository = repositories.find((r) => r.name === upstream.repo && (r.namespace ?? "default") === (pv.namespace ?? "default"));
    const git = record(record(repository?.object.spec).git);
    if (!repository || typeof git.repo !== "string" || !remotes.has(normalizedRemote(git.repo)) || typeof upstream.package !== "string") continue;
    const dir = path.posix.normalize(path.posix.join(typeof git.directory === "string" ? git.directory : "/", upstream.package)).replace(/^\/+/, "");
    if (!dir || !staysInside(root, dir) || !fs.existsSync(path.join(root, dir, "Kptfile"))) continue;
    const variant: PorchVariant = {
      variant: pv,
      repository,
      upstream: dir,
      downstream: { repo: String(downstream.repo ?? ""), package: String(downstream.package ?? "") },
    };
    variants.set(pv, variant);
    out.push(variant);
  }
  return out;
}

export function porchVariantOf(m: Manifest): PorchVariant | undefined {
  return variants.get(m);
}

/** The files a downstream renders from: the variant, its Repository, the upstream package and the repository's files of objects it may inject. */
export function porchSourceFiles(v: PorchVariant, manifests: readonly Manifest[]): Set<string> {
  const files = new Set([v.variant.file, v.repository.file, `${v.upstream}/`]);
  const names = new Set(injectors(v.variant).map((i) => i.name));
  for (const m of manifests) if (m.name !== undefined && names.has(m.name)) files.add(m.file);
  return files;
}

/** Renders the downstream a PackageVariant makes; never throws for bad input. */
export async function renderPorchVariant(root: string, v: PorchVariant, manifests: readonly Manifest[], options: KptRuntimeOptions): Promise<RenderedSource> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-porch-"));
  try {
    const pkgRel = path.posix.join(v.downstream.repo || "downstream", v.downstream.package || path.posix.basename(v.upstream));
    const pkgDir = path.join(work, pkgRel);
    copyTree(path.join(root, v.upstream), pkgDir);
    const failure = mutate(pkgDir, v.variant, manifests);
    if (failure)
      return {
        source: v.variant,
        via: PORCH_VIA,
        documents: [],
        objects: [],
        keys: [],
        ok: false,
        findings: [findingAt(v.variant, failure.pointer, "porch/downstream", "error", failure.message)],
      };
    const runtimes = new KptRuntimes(options);
    let rendered: RenderedSource;
    try {
      rendered = sourceOf(v.variant, await renderPackage(work, pkgDir, runtimes));
    } finally {
      runtimes.close();
    }
    return {
      ...rendered,
      via: PORCH_VIA,
      findings: rendered.findings.map((f) => relocated(f, v, pkgRel)),
      notRendered: rendered.notRendered?.map((n) => ({ ...n, at: { manifest: v.variant, pointer: "/spec/upstream" } })),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** A finding about a downstream file (which is not in the repository) said on the variant, naming the file. */
function relocated(f: Finding, v: PorchVariant, pkgRel: string): Finding {
  if (f.file === v.variant.file) return f;
  const where = f.file ? `${f.file.startsWith(`${pkgRel}/`) ? `${v.upstream}/${f.file.slice(pkgRel.length + 1)}` : f.file}${f.line ? `:${f.line}` : ""}` : "";
  const moved = findingAt(v.variant, "/spec/upstream", f.rule, f.severity, `downstream ${pkgRel}${where ? ` (from ${where})` : ""}: ${f.message}`);
  return { ...moved, ...(f.detail ? { detail: f.detail } : {}) };
}

interface Failure {
  pointer: string;
  message: string;
}

/** The controller's mutations, in its order: package context, pipeline, config injection. */
function mutate(pkgDir: string, pv: Manifest, manifests: readonly Manifest[]): Failure | undefined {
  const spec = record(pv.object.spec);
  return packageContext(pkgDir, record(spec.packageContext)) ?? pipeline(pkgDir, pv.name ?? "", record(spec.pipeline)) ?? injection(pkgDir, pv, manifests);
}

function packageContext(pkgDir: string, context: JsonObject): Failure | undefined {
  const data = record(context.data);
  const remove = Array.isArray(context.removeKeys) ? context.removeKeys.map(String) : [];
  if (Object.keys(data).length === 0 && remove.length === 0) return undefined;
  const file = path.join(pkgDir, "package-context.yaml");
  const fail = (message: string): Failure => ({ pointer: "/spec/packageContext", message });
  if (!fs.existsSync(file)) return fail(`"package-context.yaml" not found in the upstream package: the controller cannot set the package context`);
  const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"));
  const cm = doc.toJS() as JsonObject;
  if (cm?.kind !== "ConfigMap") return fail(`"package-context.yaml" does not contain kind "ConfigMap"`);
  if (record(cm.metadata).name !== "kptfile.kpt.dev") return fail(`"package-context.yaml" does not contain resource named "kptfile.kpt.dev"`);
  if (!isObject(cm.data)) return fail("the package context has no data field");
  const merged: Record<string, string> = { ...(cm.data as Record<string, string>) };
  for (const [k, v] of Object.entries(data)) merged[k] = String(v);
  for (const k of remove) delete merged[k];
  cm.data = merged;
  fs.writeFileSync(file, YAML.stringify(cm));
  return undefined;
}

/** The variant's functions first, named `PackageVariant.<variant>.<function>.<position>`; its earlier ones gone. */
function pipeline(pkgDir: string, pvName: string, spec: JsonObject): Failure | undefined {
  const file = path.join(pkgDir, "Kptfile");
  const kptfile = YAML.parse(fs.readFileSync(file, "utf8")) as JsonObject;
  const pipe = record(kptfile.pipeline);
  for (const field of ["validators", "mutators"] as const) {
    const existing = (Array.isArray(pipe[field]) ? pipe[field] : []).filter((f) => !isVariantFunction(f, pvName));
    const added = (Array.isArray(spec[field]) ? spec[field] : []).map((f, i) => ({
      ...record(f),
      name: `${FUNC_PREFIX}.${pvName}.${String(record(f).name ?? "")}.${i}`,
    }));
    const all = [...added, ...existing];
    if (all.length > 0) pipe[field] = all;
    else delete pipe[field];
  }
  if (pipe.mutators === undefined && pipe.validators === undefined) delete kptfile.pipeline;
  else kptfile.pipeline = pipe;
  fs.writeFileSync(file, YAML.stringify(kptfile));
  return undefined;
}

function isVariantFunction(f: unknown, pvName: string): boolean {
  const parts = String(record(f).name ?? "").split(".");
  return parts.length === 4 && parts[0] === FUNC_PREFIX && parts[1] === pvName && /^-?\d+$/.test(parts[3]!);
}

interface Injector {
  group?: string;
  version?: string;
  kind?: string;
  name: string;
}

function injectors(pv: Manifest): Injector[] {
  const list = record(pv.object.spec).injectors;
  return (Array.isArray(list) ? list : []).map(record).map((i) => ({
    ...(typeof i.group === "string" ? { group: i.group } : {}),
    ...(typeof i.version === "string" ? { version: i.version } : {}),
    ...(typeof i.kind === "string" ? { kind: i.kind } : {}),
    name: String(i.name ?? ""),
  }));
}

interface InjectionPoint {
  file: string;
  doc: YAML.Document;
  object: JsonObject;
  conditionType: string;
  required: boolean;
  errors: string[];
  injected?: string;
}

/** ensureConfigInjection: each object annotated kpt.dev/config-injection takes the spec (a ConfigMap: the data) of the repository's object an injector names. */
function injection(pkgDir: string, pv: Manifest, manifests: readonly Manifest[]): Failure | undefined {
  const files = packageYamlFiles(pkgDir);
  const parsed = new Map(files.map((f) => [f, YAML.parseAllDocuments(fs.readFileSync(f, "utf8"))]));
  const points: InjectionPoint[] = [];
  for (const [file, docs] of parsed) {
    for (const doc of docs) {
      const object = doc.toJS() as JsonObject;
      const annotation = record(record(object?.metadata).annotations)[CONFIG_INJECTION];
      if (!isObject(object) || annotation === undefined) continue;
      const meta = record(object.metadata);
      const point: InjectionPoint = {
        file,
        doc,
        object,
        conditionType: `config.injection.${object.kind}.${meta.name}`,
        required: annotation === "required",
        errors: [],
      };
      if (annotation !== "required" && annotation !== "optional")
        point.errors.push(`${path.relative(pkgDir, file)}: ${object.kind}/${meta.name} has invalid "${CONFIG_INJECTION}" annotation value of "${annotation}"`);
      points.push(point);
    }
  }
  const errors = points.flatMap((p) => p.errors);
  const seen = new Map<string, InjectionPoint>();
  for (const p of points) {
    const other = seen.get(p.conditionType);
    if (other)
      errors.push(`duplicate injection conditionType "${p.conditionType}" (${path.relative(pkgDir, other.file)} and ${path.relative(pkgDir, p.file)})`);
    seen.set(p.conditionType, p);
  }
  if (errors.length > 0) return { pointer: "/spec/injectors", message: `errors in injection points: ${errors.join(", ")}` };
  const selectors = injectors(pv);
  for (const p of points) inject(p, selectors, manifests, pv.namespace ?? "default");
  for (const [file, docs] of parsed) {
    if (points.some((p) => p.file === file && p.injected)) fs.writeFileSync(file, docs.map((d) => d.toString()).join("---\n"));
  }
  if (points.length > 0) gatesAndConditions(path.join(pkgDir, "Kptfile"), points);
  return undefined;
}

function inject(p: InjectionPoint, selectors: Injector[], manifests: readonly Manifest[], namespace: string): void {
  if (selectors.length === 0) {
    p.errors.push("no injectors defined");
    return;
  }
  const apiVersion = String(p.object.apiVersion ?? "");
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  const inCluster = manifests.filter((m) => m.apiVersion === apiVersion && m.kind === p.object.kind && (m.namespace ?? "default") === namespace);
  if (inCluster.length === 0) {
    p.errors.push(`no in-cluster resources of type ${apiVersion}.${String(p.object.kind)}`);
    return;
  }
  for (const s of selectors) {
    if (
      (s.group !== undefined && s.group !== group) ||
      (s.version !== undefined && s.version !== version) ||
      (s.kind !== undefined && s.kind !== p.object.kind)
    )
      continue;
    const source = inCluster.find((m) => m.name === s.name);
    if (!source) continue;
    const field = group === "" && p.object.kind === "ConfigMap" ? "data" : "spec";
    const value = source.object[field];
    if (value === undefined) {
      p.errors.push(`field "${field}" not found in resource "${source.name}"`);
      return;
    }
    p.doc.setIn([field], p.doc.createNode(value));
    p.doc.setIn(["metadata", "annotations", INJECTED_RESOURCE], source.name);
    p.injected = source.name;
    return;
  }
}

/** The Kptfile's readiness gates (the required points) and one condition per point, sorted as the controller sorts them. */
function gatesAndConditions(file: string, points: InjectionPoint[]): void {
  const kptfile = YAML.parse(fs.readFileSync(file, "utf8")) as JsonObject;
  const info = record(kptfile.info);
  const gates = new Set((Array.isArray(info.readinessGates) ? info.readinessGates : []).map((g) => String(record(g).conditionType)));
  for (const p of points) if (p.required) gates.add(p.conditionType);
  if (gates.size > 0) kptfile.info = { ...info, readinessGates: [...gates].sort().map((conditionType) => ({ conditionType })) };
  const status = record(kptfile.status);
  const conditions = new Map((Array.isArray(status.conditions) ? status.conditions : []).map((c) => [String(record(c).type), record(c)]));
  for (const p of points) {
    conditions.set(
      p.conditionType,
      p.injected
        ? { type: p.conditionType, status: "True", reason: "ConfigInjected", message: `injected resource "${p.injected}" from cluster` }
        : {
            type: p.conditionType,
            status: "False",
            reason: "NoResourceSelected",
            message: p.errors.length > 0 ? p.errors.join(", ") : "no resource matched any injection selector for this injection point",
          },
    );
  }
  kptfile.status = { ...status, conditions: [...conditions.values()].sort((a, b) => (String(a.type) < String(b.type) ? -1 : 1)) };
  fs.writeFileSync(file, YAML.stringify(kptfile));
}

/** The package's files porch parses for injection: YAML files (not the Kptfile's own injection). */
function packageYamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...packageYamlFiles(p));
    else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

function copyTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyTree(path.join(from, e.name), path.join(to, e.name));
    else if (e.isFile()) fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
  }
}

/** The checkout's repositories, as `host/owner/name`: its git remotes and, in Actions, the workflow's repository. */
export function checkoutRemotes(root: string): Set<string> {
  const out = new Set<string>();
  try {
    const config = fs.readFileSync(path.join(root, ".git", "config"), "utf8");
    for (const m of config.matchAll(/^\s*url\s*=\s*(\S+)\s*$/gm)) out.add(normalizedRemote(m[1]!));
  } catch {
    // not a git checkout (or a worktree): no remote to match
  }
  const repository = process.env.GITHUB_REPOSITORY;
  if (repository) out.add(normalizedRemote(`${process.env.GITHUB_SERVER_URL ?? "https://github.com"}/${repository}`));
  return out;
}

function record(value: unknown): JsonObject {
  return isObject(value) ? (value as JsonObject) : {};
}
