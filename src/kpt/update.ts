import fs from "node:fs";
import path from "node:path";
import { git, materialize, normalizedRemote, resolveCommit, topLevel, type Materialized } from "../git/git.js";
import { GitignoreRules } from "../manifest/glob.js";
import type { JsonObject } from "../core/json.js";
import { unifiedDiff } from "../rendered/diff.js";
import { mergeResource, MergeError, type Conflict } from "./merge3.js";
import { annotation, clearAnnotation, kindOf, nameOf, namespaceOf, setAnnotation, UPSTREAM_IDENTIFIER } from "./resources.js";
import { deepCopy, isObject, readDocuments, toYaml } from "./yaml.js";

/**
 * What `kpt pkg update` with the resource-merge strategy would do to a downstream package,
 * without writing anything: the upstream at the lock (upstreamLock.git.commit) and the upstream
 * now (the working tree, or a ref) are read from git, the three versions of every package and
 * subpackage are merged as kpt merges them (pkg/lib/update: resource-merge.go, merge3, the
 * Kptfile merge, non-KRM files), and the result is shown as a diff of the local files. The
 * upstream must be this repository (a catalog directory) or a git repository at a local path:
 * composition-ci fetches nothing.
 */

export class UpdatePreviewError extends Error {}

export interface UpdatePreviewOptions {
  /** The downstream package directory (absolute). */
  pkg: string;
  /** Use this ref of the upstream repository as "upstream now" (default: its working tree, or for another repository upstream.git.ref). */
  upstreamRef?: string;
  /** Where relative paths in messages start (default: the downstream repository's top level). */
  displayRoot?: string;
}

export interface FileChange {
  /** Path relative to the display root. */
  file: string;
  status: "added" | "changed" | "removed";
  diff: string;
}

export interface PreviewConflict extends Conflict {
  file: string;
  resource: string;
}

export interface UpdatePreview {
  package: string;
  upstream: { repo: string; directory: string; from: string; to: string };
  files: FileChange[];
  /** Local changes the update overwrites (kpt takes upstream's value without a word). */
  conflicts: PreviewConflict[];
  /** What kpt keeps or skips that a reviewer should know. */
  notes: string[];
  /** kpt pkg update would fail: why. */
  error?: string;
}

interface Resource {
  object: JsonObject;
  file: string;
  index: number;
  /** Merge identity: group, kind, namespace and name (from a `kpt-merge:` comment when there is one), file. */
  id: string;
  /** The file lacked kpt's upstream-identifier annotation, which kpt adds before merging. */
  stamped: boolean;
}

const RESOURCE_FILE = /\.(ya?ml)$/;
const MERGE_COMMENT = /^metadata:[ \t]*#[ \t]*kpt-merge:[ \t]*(\S*)\/(\S*)/m;

export async function updatePreview(options: UpdatePreviewOptions): Promise<UpdatePreview> {
  const pkgDir = path.resolve(options.pkg);
  const kptfile = readKptfile(pkgDir);
  if (!kptfile) throw new UpdatePreviewError(`${options.pkg} has no Kptfile: not a kpt package`);
  const upstream = isObject(kptfile.upstream) && isObject(kptfile.upstream.git) ? kptfile.upstream.git : undefined;
  const lock = isObject(kptfile.upstreamLock) && isObject(kptfile.upstreamLock.git) ? kptfile.upstreamLock.git : undefined;
  if (!upstream) throw new UpdatePreviewError("the Kptfile has no upstream.git: kpt pkg update needs an upstream reference");
  const strategy = isObject(kptfile.upstream) ? String(kptfile.upstream.updateStrategy ?? "resource-merge") : "resource-merge";
  if (strategy !== "resource-merge") throw new UpdatePreviewError(`the package's updateStrategy is ${strategy}; the preview knows resource-merge only`);
  if (!lock || !lock.commit)
    throw new UpdatePreviewError("the Kptfile has no upstreamLock.git.commit: there is no upstream version to merge from (kpt pkg get records it)");
  const downstreamTop = await topLevel(pkgDir).catch(() => {
    throw new UpdatePreviewError(`${options.pkg} is not inside a git repository`);
  });
  const displayRoot = options.displayRoot && !path.relative(options.displayRoot, pkgDir).startsWith("..") ? options.displayRoot : downstreamTop;
  const repo = String(lock.repo ?? upstream.repo ?? "");
  const upstreamTop = await locateRepository(repo, pkgDir, downstreamTop);
  const directory = upstreamDirectory(kptfile);
  const cleanups: Materialized[] = [];
  try {
    let originCommit: string;
    try {
      originCommit = await resolveCommit(String(lock.commit), upstreamTop);
    } catch {
      throw new UpdatePreviewError(`the lock's commit ${String(lock.commit)} is not in ${upstreamTop} (a shallow clone? check out with fetch-depth: 0)`);
    }
    const originTree = await materialize(originCommit, upstreamTop);
    cleanups.push(originTree);
    const origin = confined(originTree.dir, directory);
    const sameRepo = path.resolve(upstreamTop) === path.resolve(downstreamTop);
    const ref = options.upstreamRef ?? (sameRepo ? undefined : String(upstream.ref ?? "") || undefined);
    let updated: string;
    let toCommit: string;
    let toLabel: string;
    if (ref) {
      toCommit = await resolveCommit(ref, upstreamTop).catch(() => {
        throw new UpdatePreviewError(`"${ref}" is not a commit of ${upstreamTop}`);
      });
      const tree = await materialize(toCommit, upstreamTop);
      cleanups.push(tree);
      updated = confined(tree.dir, directory);
      toLabel = `${ref} (${toCommit.slice(0, 12)})`;
    } else {
      updated = confined(upstreamTop, directory);
      toCommit = (await git(["rev-parse", "HEAD"], upstreamTop)).trim();
      toLabel = `the working tree (HEAD ${toCommit.slice(0, 12)})`;
    }
    if (!fs.existsSync(path.join(updated, "Kptfile")) && !fs.existsSync(updated))
      throw new UpdatePreviewError(`the upstream directory ${directory || "/"} does not exist at ${toLabel}`);
    const preview: UpdatePreview = {
      package: rel(displayRoot, pkgDir),
      upstream: { repo, directory: `/${directory}`, from: originCommit.slice(0, 12), to: toLabel },
      files: [],
      conflicts: [],
      notes: [],
    };
    const writes = new Map<string, string | null>();
    try {
      mergeTree({ local: pkgDir, updated, origin }, writes, preview, displayRoot, {
        repo: String(upstream.repo ?? repo),
        directory: String(upstream.directory ?? lock.directory ?? ""),
        ref: String(upstream.ref ?? lock.ref ?? ""),
        commit: toCommit,
      });
    } catch (err) {
      if (err instanceof MergeError || err instanceof UpdatePreviewError) preview.error = err.message;
      else throw err;
    }
    for (const [abs, content] of [...writes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const exists = fs.existsSync(abs);
      if (!exists && content === null) continue;
      const before = exists ? normalizedBefore(abs, fs.readFileSync(abs, "utf8")) : "";
      const after = content === null ? "" : exists ? content : content;
      if (exists && content !== null && before === after) continue;
      const file = rel(displayRoot, abs);
      const status = content === null ? "removed" : exists ? "changed" : "added";
      preview.files.push({ file, status, diff: unifiedDiff(file, before, after, ["a", "b"]) });
    }
    return preview;
  } finally {
    for (const c of cleanups) c.cleanup();
  }
}

/** A KRM file's current content as the preview writes files (re-serialized), so that the diff shows only what the merge changes. */
function normalizedBefore(abs: string, text: string): string {
  if (!RESOURCE_FILE.test(abs) && path.basename(abs) !== "Kptfile") return text;
  try {
    const docs = readDocuments(text).map((d) => d.value);
    if (path.basename(abs) === "Kptfile" && isObject(docs[0])) return toYaml(kptfileOrder(docs[0]));
    return docs.map((d) => toYaml(d)).join("---\n");
  } catch {
    return text;
  }
}

function rel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/") || ".";
}

function readKptfile(dir: string): JsonObject | undefined {
  const file = path.join(dir, "Kptfile");
  if (!fs.existsSync(file)) return undefined;
  const first = readDocuments(fs.readFileSync(file, "utf8"))[0]?.value;
  return isObject(first) ? first : undefined;
}

/** The upstream repository on this machine: a local path, or this repository when a remote of it is the upstream's URL. */
async function locateRepository(repo: string, pkgDir: string, downstreamTop: string): Promise<string> {
  const local = repo.startsWith("file://") ? repo.slice("file://".length) : repo;
  if (local && (path.isAbsolute(local) || local.startsWith("./") || local.startsWith("../") || local === ".")) {
    for (const base of [pkgDir, downstreamTop, process.cwd()]) {
      const candidate = path.resolve(base, local);
      if (fs.existsSync(candidate)) {
        try {
          return await topLevel(candidate);
        } catch {
          throw new UpdatePreviewError(`the upstream ${repo} is not a git repository`);
        }
      }
    }
    throw new UpdatePreviewError(`the upstream ${repo} does not exist on this machine`);
  }
  const remotes = (await git(["remote", "-v"], downstreamTop).catch(() => ""))
    .split("\n")
    .map((l) => l.split(/\s+/)[1])
    .filter((u): u is string => Boolean(u));
  if (remotes.some((u) => sameRepositoryUrl(u, repo))) return downstreamTop;
  throw new UpdatePreviewError(
    `the upstream ${repo} is neither this repository (its remotes: ${remotes.length ? [...new Set(remotes)].join(", ") : "none"}) nor a local path; composition-ci fetches nothing: clone it and use --upstream-repo`,
  );
}

/** The upstream directory a Kptfile's lock (else its upstream) names, relative to its repository. */
export function upstreamDirectory(kptfile: Record<string, unknown>): string {
  const git = (key: string) => {
    const section = kptfile[key];
    return isObject(section) && isObject(section.git) ? section.git : undefined;
  };
  return String(git("upstreamLock")?.directory ?? git("upstream")?.directory ?? "/").replace(/^\/+/, "");
}

/**
 * The upstream directory inside a tree, never leading out of it: no `..`, not `.git`, and no
 * symbolic link on the way that resolves elsewhere (a committed link to /etc must not be read).
 */
function confined(treeTop: string, directory: string): string {
  const parts = directory.split("/").filter(Boolean);
  if (parts.includes("..") || parts.includes(".git"))
    throw new UpdatePreviewError(`the upstream directory /${directory} leads outside the upstream repository`);
  const target = path.join(treeTop, ...parts);
  if (!fs.existsSync(target)) return target;
  const real = fs.realpathSync(target);
  const top = fs.realpathSync(treeTop);
  if (real !== top && !real.startsWith(top + path.sep))
    throw new UpdatePreviewError(`the upstream directory /${directory} leads outside the upstream repository (a symbolic link)`);
  return target;
}

/** Git URLs compared by host and path: scheme, user, `.git` and the scp-like `host:path` form do not matter. */
export function sameRepositoryUrl(a: string, b: string): boolean {
  return normalizedRemote(a) === normalizedRemote(b);
}

interface Trees {
  local: string;
  updated: string;
  origin: string;
}

interface LockTarget {
  repo: string;
  directory: string;
  ref: string;
  commit: string;
}

/** kpt's Update for the root package and every subpackage below it (parents first). */
function mergeTree(trees: Trees, writes: Map<string, string | null>, preview: UpdatePreview, displayRoot: string, lock: LockTarget): void {
  const subs = [...new Set([trees.local, trees.updated, trees.origin].flatMap((d) => subpackages(d)))].sort(
    (a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1),
  );
  for (const sub of [".", ...subs]) {
    const isRoot = sub === ".";
    const dirs = { local: path.join(trees.local, sub), updated: path.join(trees.updated, sub), origin: path.join(trees.origin, sub) };
    const exists = (d: string) => isRoot || fs.existsSync(path.join(d, "Kptfile"));
    const [le, ue, oe] = [exists(dirs.local), exists(dirs.updated), exists(dirs.origin)];
    if (!oe && le && ue) throw new UpdatePreviewError(`subpackage "${sub}" added in both upstream and local: kpt pkg update fails`);
    if (!oe && !le && ue) {
      for (const f of allFiles(dirs.updated)) writes.set(path.join(dirs.local, f), fs.readFileSync(path.join(dirs.updated, f), "utf8"));
      preview.notes.push(`subpackage ${sub} is added from upstream`);
      continue;
    }
    if (!oe) continue;
    if (!le && ue) {
      preview.notes.push(`subpackage ${sub} was deleted locally: kpt does not add it back`);
      continue;
    }
    if (!le) continue;
    if (!ue) {
      if (sameFiles(dirs.origin, dirs.local)) {
        for (const f of allFiles(dirs.local)) writes.set(path.join(dirs.local, f), null);
        preview.notes.push(`subpackage ${sub} is removed upstream and unchanged locally: it is deleted`);
      } else preview.notes.push(`subpackage ${sub} is removed upstream but changed locally: kpt keeps it`);
      continue;
    }
    mergePackage(dirs, isRoot, sub, writes, preview, displayRoot, lock);
  }
}

function mergePackage(
  dirs: Trees,
  isRoot: boolean,
  sub: string,
  writes: Map<string, string | null>,
  preview: UpdatePreview,
  displayRoot: string,
  lock: LockTarget,
): void {
  const pkgDir = displayRoot;
  const kptfile = mergeKptfile(
    readKptfile(dirs.local) ?? {},
    readKptfile(dirs.updated) ?? {},
    readKptfile(dirs.origin) ?? {},
    preview,
    rel(displayRoot, path.join(dirs.local, "Kptfile")),
  );
  if (isRoot) {
    kptfile.upstreamLock = { type: "git", git: { repo: lock.repo, directory: lock.directory, ref: lock.ref, commit: lock.commit } };
  } else {
    const updatedKf = readKptfile(dirs.updated) ?? {};
    if (updatedKf.upstream !== undefined) kptfile.upstream = updatedKf.upstream;
    if (updatedKf.upstreamLock !== undefined) kptfile.upstreamLock = updatedKf.upstreamLock;
  }
  writes.set(path.join(dirs.local, "Kptfile"), toYaml(kptfileOrder(kptfile)));

  const [origin, updated, local] = [readResources(dirs.origin), readResources(dirs.updated), readResources(dirs.local)];
  const stamped = local.filter((r) => r.stamped).length;
  const tuples = new Map<string, { o?: Resource; u?: Resource; d?: Resource }>();
  const add = (side: "o" | "u" | "d", list: Resource[], name: string) => {
    for (const r of list) {
      const t = tuples.get(r.id) ?? {};
      if (t[side]) throw new UpdatePreviewError(`found duplicate "${name}" resources in file "${r.file}", please refer to "update" documentation for the fix`);
      t[side] = r;
      tuples.set(r.id, t);
    }
  };
  add("o", origin, "original");
  add("u", updated, "updated");
  add("d", local, "dest");
  const merged: { object: JsonObject; file: string; index: number; stamped: boolean }[] = [];
  for (const { o, u, d } of tuples.values()) {
    const title = describe((d ?? u ?? o)!, rel(displayRoot, dirs.local));
    if (!o && !u && d) merged.push(d);
    else if (!o && u && !d) {
      merged.push(u);
      preview.notes.push(`${title} is added from upstream`);
    } else if (!u && !d) continue;
    else if (o && !u) {
      if (JSON.stringify(o.object) !== JSON.stringify(d!.object)) {
        merged.push(d!);
        preview.notes.push(`${title} is removed upstream but changed locally: kpt keeps it`);
      } else preview.notes.push(`${title} is removed upstream: it is deleted`);
    } else if (o && !d) {
      preview.notes.push(`${title} was deleted locally: kpt does not add it back`);
    } else {
      const conflicts: Conflict[] = [];
      const object = mergeResource(deepCopy(d!.object), o && deepCopy(o.object), deepCopy(u!.object), {
        apiVersion: String(d!.object.apiVersion ?? ""),
        kind: kindOf(d!.object),
        conflicts,
      });
      for (const c of conflicts)
        preview.conflicts.push({ ...c, file: rel(pkgDir, path.join(dirs.local, d!.file)), resource: `${kindOf(d!.object)} ${nameOf(d!.object)}` });
      if (object) merged.push({ object, file: d!.file, index: d!.index, stamped: d!.stamped });
    }
  }
  if (stamped)
    preview.notes.push(
      `kpt also records internal.kpt.dev/upstream-identifier on ${stamped} resource${stamped === 1 ? "" : "s"} of ${sub === "." ? "the package" : `subpackage ${sub}`} (left out of the diff)`,
    );
  // Files as kpt writes them: resources grouped by file, ordered by index; files left empty go.
  const byFile = new Map<string, { object: JsonObject; index: number; stamped: boolean }[]>();
  for (const m of merged) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m]);
  const localFiles = new Set(local.map((r) => r.file));
  for (const [file, list] of byFile) {
    const unchanged =
      localFiles.has(file) &&
      sameResources(
        list.map((x) => x.object),
        local.filter((r) => r.file === file).map((r) => r.object),
      );
    if (unchanged) continue;
    const docs = list.sort((a, b) => a.index - b.index).map((x) => toYaml(unstamped(x.object, x.stamped)));
    writes.set(path.join(dirs.local, file), docs.join("---\n"));
  }
  for (const file of localFiles) if (!byFile.has(file)) writes.set(path.join(dirs.local, file), null);
  replaceNonKrmFiles(dirs, writes, preview, pkgDir);
}

function sameResources(a: JsonObject[], b: JsonObject[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The upstream-identifier kpt adds to a resource that lacks it: left out of what the preview shows. */
function unstamped(o: JsonObject, stamped: boolean): JsonObject {
  if (!stamped) return o;
  const copy = deepCopy(o);
  clearAnnotation(copy, UPSTREAM_IDENTIFIER);
  return copy;
}

function describe(r: Resource, dir: string): string {
  const ns = namespaceOf(r.object);
  return `${kindOf(r.object)} ${ns ? `${ns}/` : ""}${nameOf(r.object)} (${dir === "." ? r.file : `${dir}/${r.file}`})`;
}

/** A package's own resources as kpt's update reads them: `*.yaml` and `*.yml`, subpackages and .krmignore'd files left out. */
function readResources(dir: string): Resource[] {
  if (!fs.existsSync(dir)) return [];
  const ignoreFile = path.join(dir, ".krmignore");
  const ignore = fs.existsSync(ignoreFile) ? new GitignoreRules(fs.readFileSync(ignoreFile, "utf8")) : undefined;
  const out: Resource[] = [];
  const walk = (abs: string, relDir: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = relDir ? `${relDir}/${e.name}` : e.name;
      const full = path.join(abs, e.name);
      if (e.isDirectory()) {
        if (e.name === ".git" || ignore?.decide(r, true) || fs.existsSync(path.join(full, "Kptfile"))) continue;
        walk(full, r);
      } else if (e.isFile() && RESOURCE_FILE.test(e.name) && !ignore?.decide(r, false)) {
        const text = fs.readFileSync(full, "utf8");
        for (const d of readDocuments(text)) {
          if (!isObject(d.value)) continue;
          const object = d.value;
          const comment = MERGE_COMMENT.exec(d.text);
          const [ns, name] = comment ? [comment[1]!, comment[2]!] : [namespaceOf(object), nameOf(object)];
          const apiVersion = String(object.apiVersion ?? "");
          const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
          // kpt stamps every side before merging (addmergecomment), so the annotation merges as unchanged.
          const stamped = annotation(object, UPSTREAM_IDENTIFIER) === undefined && Boolean(nameOf(object) || namespaceOf(object));
          if (stamped) setAnnotation(object, UPSTREAM_IDENTIFIER, `${group}|${kindOf(object)}|${ns || "default"}|${name}`);
          out.push({ object, file: r, index: d.index, id: `${group}|${kindOf(object)}|${ns}|${name}|${path.posix.normalize(r)}`, stamped });
        }
      }
    }
  };
  walk(dir, "");
  return out;
}

/** Subpackage directories (relative) below a package, at any depth. */
function subpackages(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string, relDir: string) => {
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === ".git") continue;
      const r = relDir ? `${relDir}/${e.name}` : e.name;
      if (fs.existsSync(path.join(abs, e.name, "Kptfile"))) out.push(r);
      walk(path.join(abs, e.name), r);
    }
  };
  walk(dir, "");
  return out;
}

/** Every file below a directory (relative), `.git` left out. */
function allFiles(dir: string, stopAtPackages = false): string[] {
  const out: string[] = [];
  const walk = (abs: string, relDir: string) => {
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = relDir ? `${relDir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name === ".git" || (stopAtPackages && fs.existsSync(path.join(abs, e.name, "Kptfile")))) continue;
        walk(path.join(abs, e.name), r);
      } else if (e.isFile()) out.push(r);
    }
  };
  walk(dir, "");
  return out.sort();
}

function sameFiles(a: string, b: string): boolean {
  const [fa, fb] = [allFiles(a), allFiles(b)];
  return fa.length === fb.length && fa.every((f, i) => f === fb[i] && fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))));
}

const isKrmFile = (f: string) => path.posix.basename(f) === "Kptfile" || RESOURCE_FILE.test(f);

/** kpt's ReplaceNonKRMFiles: upstream's version of every other file, unless the local package changed it. */
function replaceNonKrmFiles(dirs: Trees, writes: Map<string, string | null>, preview: UpdatePreview, displayRoot: string): void {
  const pkgDir = displayRoot;
  const files = (d: string) => new Set(allFiles(d, true).filter((f) => !isKrmFile(f)));
  const [updated, origin, local] = [files(dirs.updated), files(dirs.origin), files(dirs.local)];
  const read = (d: string, f: string) => fs.readFileSync(path.join(d, f), "utf8");
  const modified = new Set<string>();
  for (const f of local) {
    if (!origin.has(f) || read(dirs.origin, f) !== read(dirs.local, f)) {
      modified.add(f);
      if (updated.has(f) && origin.has(f) && read(dirs.updated, f) !== read(dirs.origin, f) && read(dirs.updated, f) !== read(dirs.local, f)) {
        preview.notes.push(
          `${rel(pkgDir, path.join(dirs.local, f))} changed both locally and upstream: kpt keeps the local file, and upstream's change is not applied`,
        );
      }
      continue;
    }
    if (!updated.has(f)) writes.set(path.join(dirs.local, f), null);
  }
  for (const f of updated) if (!modified.has(f)) writes.set(path.join(dirs.local, f), read(dirs.updated, f));
}

/** kpt's Kptfile merge: annotations, labels, info, pipeline, inventory and status merge three ways; the rest stays local. */
function mergeKptfile(local: JsonObject, updated: JsonObject, origin: JsonObject, preview: UpdatePreview, file: string): JsonObject {
  const synthetic = [local, updated, origin].every((k) => functionsNameless(k));
  const prepare = (k: JsonObject) => {
    const c = deepCopy(k);
    if (synthetic) forEachFunction(c, (f) => (f.name = `_kpt-merge_${f.exec ? String(f.exec) : String(f.image ?? "").split(":")[0]}`));
    const meta = isObject(c.metadata) ? c.metadata : {};
    return { metadata: { annotations: meta.annotations, labels: meta.labels }, info: c.info, pipeline: c.pipeline, inventory: c.inventory, status: c.status };
  };
  const conflicts: Conflict[] = [];
  const merged = mergeResource(prepare(local), prepare(origin), prepare(updated), { apiVersion: "kpt.dev/v1", kind: "Kptfile", infer: true, conflicts }) ?? {};
  for (const c of conflicts) preview.conflicts.push({ ...c, file, resource: `Kptfile ${nameOf(local)}` });
  if (synthetic)
    forEachFunction(merged, (f) => {
      if (typeof f.name === "string" && f.name.startsWith("_kpt-merge_")) delete f.name;
    });
  const out = deepCopy(local);
  const meta: JsonObject = isObject(out.metadata) ? out.metadata : {};
  const mergedMeta = isObject(merged.metadata) ? merged.metadata : {};
  for (const key of ["annotations", "labels"]) {
    if (mergedMeta[key] === undefined) delete meta[key];
    else meta[key] = mergedMeta[key];
  }
  out.metadata = meta;
  for (const key of ["info", "pipeline", "inventory", "status"]) {
    if (merged[key] === undefined) delete out[key];
    else out[key] = merged[key];
  }
  return out;
}

function functionsNameless(k: JsonObject): boolean {
  let ok = true;
  const pipeline = isObject(k.pipeline) ? k.pipeline : {};
  for (const list of [pipeline.mutators, pipeline.validators]) {
    const keys = new Set<string>();
    for (const f of Array.isArray(list) ? list : []) {
      if (!isObject(f)) continue;
      if (f.name) ok = false;
      const key = f.exec ? String(f.exec) : String(f.image ?? "").split(":")[0]!;
      if (keys.has(key)) ok = false;
      keys.add(key);
    }
  }
  return ok;
}

function forEachFunction(k: JsonObject, fn: (f: JsonObject) => void): void {
  const pipeline = isObject(k.pipeline) ? k.pipeline : undefined;
  if (!pipeline) return;
  for (const list of [pipeline.mutators, pipeline.validators]) for (const f of Array.isArray(list) ? list : []) if (isObject(f)) fn(f);
}

/** The field order kpt writes a Kptfile in (its Go struct's). */
function kptfileOrder(k: JsonObject): JsonObject {
  const order = ["apiVersion", "kind", "metadata", "upstream", "upstreamLock", "info", "pipeline", "inventory", "status"];
  const out: JsonObject = {};
  for (const key of order) if (k[key] !== undefined) out[key] = k[key];
  for (const key of Object.keys(k)) if (!(key in out)) out[key] = k[key];
  return out;
}
