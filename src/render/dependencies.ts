import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import { resolveScope, resolveTrait, resolveWorkload, definitionRefName } from "../validate/oam-definitions.js";
import type { RepoIndex, XrType } from "../validate/repo-index.js";
import { asArray, asObject, asString } from "../validate/rules/context.js";
import { entryComponentName } from "../validate/rules/oam.js";
import { scopeRefs } from "./oam/scopes.js";
import { isKptSource, kptSources, kptSourceFiles, porchSourceFiles, porchVariantOf, porchVariants } from "../kpt/index.js";
import { isOperationKind } from "./crossplane/operation.js";
import { contribFunctionName } from "../manifest/package-ref.js";

/**
 * What each source renders from, as files: a change to any of them may change the source's
 * output. `diff` renders only the sources whose files changed.
 */

/**
 * Every source a repository renders, in index order: XRs, claims, ApplicationConfigurations,
 * Applications; with the tree's `root`, its kpt packages too (their Kptfiles, found on disk).
 */
export function renderSources(index: RepoIndex, root?: string, gitRoot?: string): Manifest[] {
  const xrs = index.manifests.filter((m) => index.isXrOrClaim(m));
  const appConfigs = index.appConfigs.filter((ac) => ac.version === "v1alpha2");
  const operations = index.manifests.filter((m) => isOperationKind(m.object));
  const kpt = root === undefined ? [] : kptSources(index, root, true);
  const variants = root === undefined ? [] : porchVariants(index.manifests, root, gitRoot).map((v) => v.variant);
  return [...xrs, ...operations, ...appConfigs, ...kpt, ...variants, ...index.applications];
}

/**
 * The files a source renders from. An entry ending in `/` is a directory, and `""` the whole
 * repository: every file below it (a project function's folder, which its build reads whole; a
 * FileSystem template directory). `ownFile: false`: without the file the source is written in,
 * unless it reads another object there.
 */
export function sourceFiles(
  source: Manifest,
  index: RepoIndex,
  root?: string,
  templateMounts: Record<string, string> = {},
  { ownFile = true }: { ownFile?: boolean } = {},
): Set<string> {
  const kpt = isKptSource(source) ? kptSourceFiles(source) : undefined;
  if (kpt) return kpt;
  const variant = porchVariantOf(source);
  if (variant) return porchSourceFiles(variant, index.manifests);
  const files = new Set(ownFile ? [source.file] : []);
  if (source.kind === "ApplicationConfiguration") addAppConfigFiles(source, index, files);
  else if (index.isXrOrClaim(source)) addXrFiles(source, index, files, root, templateMounts);
  else if (isOperationKind(source.object)) addOperationFiles(source, index, files, root);
  return files;
}

/** An Operation's Functions, and the objects of the kinds its steps require or its watch selects. */
function addOperationFiles(source: Manifest, index: RepoIndex, files: Set<string>, root?: string): void {
  const spec = asObject(source.object.spec) ?? {};
  const steps = asArray(source.kind === "Operation" ? spec.pipeline : asObject(asObject(spec.operationTemplate)?.spec)?.pipeline);
  const kinds = new Set<string>();
  const watch = asObject(spec.watch);
  if (watch) kinds.add(`${asString(watch.apiVersion)}/${asString(watch.kind)}`);
  for (const raw of steps) {
    const step = asObject(raw) ?? {};
    const name = asString(asObject(step.functionRef)?.name) ?? "";
    const fn = index.functions.get(name);
    if (fn) files.add(fn.file);
    else addProjectFunction(name, index, files, root);
    for (const sel of asArray(asObject(step.requirements)?.requiredResources))
      kinds.add(`${asString(asObject(sel)?.apiVersion)}/${asString(asObject(sel)?.kind)}`);
  }
  for (const m of index.manifests) if (kinds.has(`${m.apiVersion}/${m.kind}`)) files.add(m.file);
}

/**
 * function-go-templating's FileSystem source: the directory it reads its templates from, resolved
 * as the renderer resolves it (relative to the Composition's directory, an absolute path through
 * the config's templateMounts), every file below it.
 */
function addTemplateDirectory(step: Record<string, unknown> | undefined, compositionFile: string, mounts: Record<string, string>, files: Set<string>): void {
  const input = asObject(step?.input);
  if (input?.kind !== "GoTemplate" || input.source !== "FileSystem") return;
  const dirPath = asString(asObject(input.fileSystem)?.dirPath);
  if (!dirPath) return;
  let dir: string | undefined;
  if (path.posix.isAbsolute(dirPath)) {
    const p = path.posix.normalize(dirPath);
    const mount = Object.keys(mounts)
      .filter((m) => p === m || p.startsWith(m.replace(/\/*$/, "/")))
      .sort((a, b) => b.length - a.length)[0];
    if (mount !== undefined) dir = path.posix.join(mounts[mount]!, path.posix.relative(mount, p));
  } else dir = path.posix.join(path.posix.dirname(compositionFile), dirPath);
  if (dir === undefined || dir.startsWith("..")) return;
  files.add(dir === "." ? "" : `${dir.replace(/\/+$/, "")}/`);
}

/**
 * The repository's objects a step may select, which the renderer answers from the repository:
 * EnvironmentConfigs (function-environment-configs), the kinds function-extra-resources,
 * function-kro's externalRefs and a step's `requirements` ask for. Any of them changing may
 * change what the step makes.
 */
function addSelectedObjects(step: Record<string, unknown> | undefined, index: RepoIndex, files: Set<string>): void {
  const input = asObject(step?.input);
  const group = (asString(input?.apiVersion) ?? "").split("/")[0] ?? "";
  const kinds = new Set<string>();
  if (group === "environmentconfigs.fn.crossplane.io") kinds.add("EnvironmentConfig");
  if (group === "extra-resources.fn.crossplane.io" || group === "extraresources.fn.crossplane.io") {
    for (const r of asArray(asObject(input?.spec)?.extraResources)) kinds.add(asString(asObject(r)?.kind) ?? "");
  }
  // function-kro's externalRefs: objects the graph reads by name or labels.
  if (group === "kro.fn.crossplane.io") for (const r of asArray(input?.resources)) kinds.add(asString(asObject(asObject(r)?.externalRef)?.kind) ?? "");
  for (const r of asArray(asObject(step?.requirements)?.requiredResources)) kinds.add(asString(asObject(r)?.kind) ?? "");
  addObjectsOfKinds(kinds, index, files);
}

function addObjectsOfKinds(kinds: Set<string>, index: RepoIndex, files: Set<string>): void {
  kinds.delete("");
  if (kinds.size === 0) return;
  for (const m of index.manifests) if (kinds.has(m.kind)) files.add(m.file);
}

/**
 * The entry of a source's files that stands for every file holding objects: a step may ask for
 * objects of kinds only known when it runs, which the renderer answers from the repository.
 */
export const ANY_OBJECT = "\u0000any object";

/** Functions whose requests are known from their input (addSelectedObjects), or that make none. */
const KNOWN_REQUESTS = new Set([
  "function-patch-and-transform",
  "function-auto-ready",
  "function-environment-configs",
  "function-extra-resources",
  "function-kro",
  "function-cel-filter",
  "function-sequencer",
  "function-status-transformer",
]);

/**
 * Whether a step may ask for objects the repository holds that its input does not name:
 * function-go-templating whose templates ask (ExtraResources, RequiredResources) or cannot be
 * read here (FileSystem), and any function that is not one of those above.
 */
function readsObjectsAtRunTime(step: Record<string, unknown> | undefined, index: RepoIndex): boolean {
  const name = asString(asObject(step?.functionRef)?.name) ?? "";
  const pkg = asString(asObject(index.functions.get(name)?.object.spec)?.package);
  const fn = (pkg && contribFunctionName(pkg)) ?? name.replace(/^(crossplane-contrib|upbound)-(?=function-)/, "");
  if (KNOWN_REQUESTS.has(fn)) return false;
  const input = asObject(step?.input);
  if (fn === "function-go-templating" && input?.kind === "GoTemplate" && input.source !== "FileSystem")
    return /\b(ExtraResources|RequiredResources)\b/.test(String(asObject(input.inline)?.template ?? ""));
  return true;
}

/** A project's own function: its project file and its whole folder. */
function addProjectFunction(name: string, index: RepoIndex, files: Set<string>, root?: string): void {
  const embedded = index.embeddedFunction(name, root);
  if (!embedded) return;
  files.add(embedded.project.file);
  files.add(embedded.dir);
}

function addXrFiles(source: Manifest, index: RepoIndex, files: Set<string>, root?: string, mounts: Record<string, string> = {}): void {
  addTypeFiles(index.xrTypeOf(source)!, source.file, index, files, new Set(), root, mounts);
}

/** An XR type's XRDs, Compositions and Functions, and those of the XR types its Compositions compose (nested XRs). */
function addTypeFiles(
  type: XrType,
  near: string,
  index: RepoIndex,
  files: Set<string>,
  seen: Set<XrType>,
  root?: string,
  mounts: Record<string, string> = {},
): void {
  if (seen.has(type)) return;
  seen.add(type);
  files.add(type.xrd.file);
  const group = asString(asObject(type.xrd.object.spec)?.group) ?? "";
  for (const xrd of index.xrdsFor(group, type.xrKind)) files.add(xrd.file);
  // Every Composition of the type: adding or changing one may change which one is picked.
  for (const version of asArray(asObject(type.xrd.object.spec)?.versions)) {
    const name = asString(asObject(version)?.name);
    if (!name) continue;
    for (const composition of index.compositionsFor(`${group}/${name}`, type.xrKind)) {
      files.add(composition.file);
      // Crossplane v1's native environment: the EnvironmentConfigs the Composition itself selects.
      if (asArray(asObject(asObject(composition.object.spec)?.environment)?.environmentConfigs).length > 0)
        addObjectsOfKinds(new Set(["EnvironmentConfig"]), index, files);
      for (const step of asArray(asObject(composition.object.spec)?.pipeline)) {
        const name = asString(asObject(asObject(step)?.functionRef)?.name) ?? "";
        const fn = index.functions.get(name);
        if (fn) files.add(fn.file);
        else addProjectFunction(name, index, files, root);
        addTemplateDirectory(asObject(step), composition.file, mounts, files);
        addSelectedObjects(asObject(step), index, files);
        if (readsObjectsAtRunTime(asObject(step), index)) files.add(ANY_OBJECT);
        for (const resource of asArray(asObject(asObject(step)?.input)?.resources)) {
          // patch-and-transform's bases, function-kro's templates: a nested XR's type is a dependency too.
          const base = asObject(asObject(resource)?.base) ?? asObject(asObject(resource)?.template);
          const [g, v] = splitApiVersion(asString(base?.apiVersion) ?? "");
          const nested = index.xrType(g, v, asString(base?.kind) ?? "", near);
          if (nested && !nested.claim) addTypeFiles(nested, near, index, files, seen, root, mounts);
        }
      }
    }
  }
}

function addAppConfigFiles(ac: Manifest, index: RepoIndex, files: Set<string>): void {
  const definitionFiles = (definition: Manifest | undefined) => {
    if (!definition) return;
    files.add(definition.file);
    const crd = index.crdNamed(definitionRefName(definition) ?? "");
    if (crd) files.add(crd.manifest.file);
  };
  asArray(asObject(ac.object.spec)?.components).forEach((raw) => {
    const entry = asObject(raw) ?? {};
    const name = entryComponentName(entry);
    const component = name ? index.component(name, ac) : undefined;
    if (component) {
      files.add(component.file);
      const workload = asObject(asObject(component.object.spec)?.workload);
      if (workload) definitionFiles(resolveWorkload(workload, index).definition);
    }
    for (const t of asArray(entry.traits)) {
      const trait = asObject(asObject(t)?.trait);
      if (trait) definitionFiles(resolveTrait(trait, index).definition);
    }
    for (const ref of scopeRefs(entry, "")) {
      const scope = index.object(ref.apiVersion, ref.kind, ref.name, ac.namespace);
      if (scope) files.add(scope.file);
      definitionFiles(resolveScope(ref, index).definition);
    }
  });
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
