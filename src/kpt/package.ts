import fs from "node:fs";
import path from "node:path";
import { GitignoreRules } from "../manifest/glob.js";
import { Manifest, SourceFile, type KubeObject } from "../manifest/manifest.js";
import type { JsonObject } from "../core/json.js";
import { INDEX, LEGACY_INDEX, LEGACY_PATH, PACKAGE_PATH, PATH, SEQ_INDENT, setAnnotation } from "./resources.js";
import { isObject, readDocuments, seqIndentStyle, YamlReadError } from "./yaml.js";

/**
 * kpt packages on disk: a directory with a `Kptfile`; its subpackages are the nearest
 * directories below it with their own. A package's resources are read as kpt reads them
 * (`LocalResources`: kyaml's LocalPackageReader): the Kptfile and every `*.yaml`, `*.yml` and
 * `*.json` below the package, not descending into subpackages, skipping what `.krmignore` says,
 * each document annotated with its path and index.
 */

export const KPTFILE = "Kptfile";
const MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface KptPackage {
  /** Absolute directory. */
  dir: string;
  /** Directory relative to the repository root, forward slashes ("." for the root). */
  rel: string;
  /** The Kptfile as a manifest (positions for findings); its object is `{}` when it could not be read. */
  kptfile: Manifest;
  /** Why the Kptfile could not be read, as kpt says it. */
  readError?: string;
}

export class PackageReadError extends Error {}

function relOf(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/") || ".";
}

export function kptfilePath(pkgRel: string): string {
  return pkgRel === "." ? KPTFILE : `${pkgRel}/${KPTFILE}`;
}

/** Reads a package's Kptfile; a Kptfile that cannot be read still gives a manifest to put findings on. */
export function readPackage(root: string, dir: string): KptPackage {
  const rel = relOf(root, dir);
  const file = kptfilePath(rel);
  let text = "";
  try {
    const kptfile = path.join(dir, KPTFILE);
    if (!insideRoot(root, kptfile)) throw new PackageReadError("it is a link that leads outside the repository; not read");
    text = readLimited(kptfile);
  } catch (err) {
    return { dir, rel, kptfile: emptyManifest(file, ""), readError: `error reading Kptfile at "${rel}": ${(err as Error).message.split(dir).join(rel)}` };
  }
  try {
    const docs = readDocuments(text);
    const first = docs[0];
    if (!first || !isObject(first.value)) return { dir, rel, kptfile: emptyManifest(file, text), readError: "the Kptfile holds no object" };
    const object = first.value as KubeObject;
    return {
      dir,
      rel,
      kptfile: new Manifest(
        { ...object, apiVersion: String(object.apiVersion ?? ""), kind: String(object.kind ?? "") },
        new SourceFile(file, text),
        first.docIndex,
      ),
    };
  } catch (err) {
    return { dir, rel, kptfile: emptyManifest(file, text), readError: `the Kptfile is not valid YAML: ${(err as Error).message}` };
  }
}

/**
 * Whether a package's file, links resolved, stays below the root (or below its own package, for
 * a package named outside the root), as discovery keeps links inside what it reads.
 */
function insideRoot(root: string, file: string): boolean {
  try {
    const inside = (dir: string, p: string) => p === dir || p.startsWith(dir + path.sep);
    const realRoot = fs.realpathSync(root);
    const realDir = fs.realpathSync(path.dirname(file));
    const boundary = inside(realRoot, realDir) ? realRoot : realDir;
    return inside(boundary, fs.realpathSync(file));
  } catch {
    return true; // a file that cannot be resolved fails to read, and says so
  }
}

function emptyManifest(file: string, text: string): Manifest {
  return new Manifest({ apiVersion: "kpt.dev/v1", kind: "Kptfile" }, new SourceFile(file, text), 0);
}

function readLimited(file: string): string {
  const stat = fs.statSync(file);
  if (stat.size > MAX_FILE_BYTES) throw new PackageReadError(`${path.basename(file)} is ${stat.size} bytes, over the ${MAX_FILE_BYTES}-byte limit`);
  return fs.readFileSync(file, "utf8");
}

export function isPackageDir(dir: string): boolean {
  return fs.statSync(path.join(dir, KPTFILE), { throwIfNoEntry: false })?.isFile() === true;
}

/** Direct subpackages (kpt's DirectSubpackages): the nearest directories below with a Kptfile, `.git` skipped, sorted. */
export function directSubpackages(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of sortedEntries(d)) {
      if (!entry.isDirectory() || entry.name === ".git") continue;
      const sub = path.join(d, entry.name);
      if (isPackageDir(sub)) out.push(sub);
      else walk(sub);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function sortedEntries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** A resource read from a package, and where it came from (for findings). */
export interface ReadResource {
  object: JsonObject;
  /** Path relative to its package, forward slashes, as the path annotation has it. */
  path: string;
  index: number;
  manifest: Manifest;
}

const RESOURCE_FILE = /^(Kptfile|.*\.(ya?ml|json))$/;

/**
 * The package's own resources, annotated as kpt annotates them. Files that are not YAML or not
 * readable make the read fail, as they make kpt fail.
 */
export function localResources(root: string, pkg: KptPackage): ReadResource[] {
  const ignore = readIgnore(pkg.dir);
  const realRoot = fs.realpathSync(root);
  const out: ReadResource[] = [];
  const walk = (dir: string, relDir: string) => {
    for (const entry of sortedEntries(dir)) {
      const abs = path.join(dir, entry.name);
      const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const stat = fs.statSync(abs, { throwIfNoEntry: false });
        const real = stat && fs.realpathSync(abs);
        if (!stat || !real || !(real === realRoot || real.startsWith(realRoot + path.sep))) continue;
        // kyaml walks with Lstat: a linked directory is not entered, a linked file is read.
        isDir = false;
        isFile = stat.isFile();
      }
      if (isDir) {
        // kpt reads every directory; .git and node_modules hold no package resources.
        if (entry.name === ".git" || entry.name === "node_modules") continue;
        if (ignore?.decide(rel, true)) continue;
        if (isPackageDir(abs)) continue;
        walk(abs, rel);
        continue;
      }
      if (!isFile || ignore?.decide(rel, false) || !RESOURCE_FILE.test(entry.name)) continue;
      out.push(...readFile(root, pkg, abs, rel));
    }
  };
  walk(pkg.dir, "");
  return out;
}

function readIgnore(dir: string): GitignoreRules | undefined {
  const file = path.join(dir, ".krmignore");
  return fs.existsSync(file) ? new GitignoreRules(fs.readFileSync(file, "utf8")) : undefined;
}

function readFile(root: string, pkg: KptPackage, abs: string, rel: string): ReadResource[] {
  const repoRel = relOf(root, abs);
  const text = readLimited(abs);
  let docs;
  try {
    docs = readDocuments(text);
  } catch (err) {
    // The repository-relative path: the same finding in two checkouts (diff's trees) is one finding.
    if (err instanceof YamlReadError) throw new PackageReadError(`${repoRel}: ${err.message}`);
    throw err;
  }
  const source = new SourceFile(repoRel, text);
  return docs.map((d) => {
    const object: JsonObject = isObject(d.value) ? d.value : { __kpt_not_krm__: d.value };
    // kyaml copies legacy annotations to the new keys first, then sets its own in sorted order.
    if (isObject(d.value)) {
      setAnnotation(object, LEGACY_INDEX, String(d.index));
      setAnnotation(object, LEGACY_PATH, rel);
      setAnnotation(object, INDEX, String(d.index));
      setAnnotation(object, PACKAGE_PATH, pkg.dir);
      setAnnotation(object, PATH, rel);
      setAnnotation(object, SEQ_INDENT, seqIndentStyle(d.text));
    }
    const manifestObject = (isObject(d.value) ? d.value : {}) as KubeObject;
    return { object, path: rel, index: d.index, manifest: new Manifest(manifestObject, source, d.docIndex) };
  });
}

/**
 * The kpt packages a set of repository files belongs to: every directory holding one of them,
 * and its parents up to the root, that has a Kptfile. Returns the top-level ones (a subpackage
 * renders with its parent, as `kpt fn render` on the parent renders it), sorted. `kptfileDirs`
 * (absolute paths), what discovery saw, spares a look at each directory it listed without a Kptfile.
 */
export function topLevelPackages(root: string, files: Iterable<string>, kptfileDirs?: ReadonlyMap<string, boolean>): string[] {
  const memo = new Map<string, boolean>();
  const isPkg = (rel: string) => {
    let v = memo.get(rel);
    if (v === undefined) {
      const dir = path.join(root, rel);
      v = kptfileDirs?.get(dir) !== false && isPackageDir(dir);
      memo.set(rel, v);
    }
    return v;
  };
  const found = new Set<string>();
  const seenDirs = new Set<string>();
  for (const file of files) {
    let dir = path.posix.dirname(file);
    while (!seenDirs.has(dir)) {
      seenDirs.add(dir);
      if (isPkg(dir)) found.add(dir);
      if (dir === "." || dir === "/" || dir === "") break;
      dir = path.posix.dirname(dir);
    }
  }
  const tops = [...found].filter((d) => !ancestors(d).some((a) => isPkg(a)));
  return tops.sort();
}

function ancestors(rel: string): string[] {
  const out: string[] = [];
  let dir = rel;
  while (dir !== "." && dir !== "") {
    dir = path.posix.dirname(dir);
    out.push(dir);
  }
  return out;
}
