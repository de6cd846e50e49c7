import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse, stringify } from "smol-toml";
import { isPlainObject } from "../core/json.js";
import { parseReference } from "../oci/reference.js";

/**
 * The dependencies of a KCL function's `kcl.mod`, as kpm (the KCL package manager function-kcl
 * runs, v0.12) resolves them when the function runs: each OCI module is looked for at
 * `$KCL_PKG_PATH/<last part of its repository>_<tag>` and downloaded there when missing, and its
 * checksum is taken from `kcl.mod.lock` when the lock has the module at that version, else asked
 * of the registry. The CLI's KCL builder vendors nothing: the image has the folder at /src and
 * KCL_PKG_PATH=/src, so a cluster downloads them on every call. An offline run gets them from the
 * package cache instead (`functions pull` fills it).
 */

/** kpm's default registry and repository for a dependency given as `name = "version"`. */
export const DEFAULT_KCL_REGISTRY = "ghcr.io";
export const DEFAULT_KCL_REPOSITORY = "kcl-lang";

export interface KclModule {
  /** The dependency's name in kcl.mod (the lock file's key). */
  name: string;
  registry: string;
  repository: string;
  tag: string;
  /** Where kpm looks for it below KCL_PKG_PATH. */
  dir: string;
}

export interface KclDependencies {
  modules: KclModule[];
  /** Dependencies no cache can hold: git sources and OCI ones without a tag (kpm asks the network for them). */
  fetchedByFunction: string[];
}

/** The dependencies `kcl.mod` declares; undefined when there is no kcl.mod or it is not TOML (function-kcl then says what is wrong). */
export function kclDependencies(folder: string): KclDependencies | undefined {
  const mod = readToml(path.join(folder, "kcl.mod"));
  if (!mod) return undefined;
  const result: KclDependencies = { modules: [], fetchedByFunction: [] };
  const deps = mod.dependencies;
  if (!isPlainObject(deps)) return result;
  for (const [name, spec] of Object.entries(deps)) {
    const found = typeof spec === "string" ? ociModule(name, DEFAULT_KCL_REGISTRY, `${DEFAULT_KCL_REPOSITORY}/${name}`, spec) : fromTable(name, spec);
    if (typeof found === "string") result.fetchedByFunction.push(found);
    else if (found) result.modules.push(found);
  }
  return result;
}

/**
 * A dependency written as a table: an OCI module with its tag; what kpm fetches itself (git, an
 * OCI module without a tag), said; nothing for a `path` one (read from the folder itself).
 */
function fromTable(name: string, spec: unknown): KclModule | string | undefined {
  if (!isPlainObject(spec)) return undefined;
  if (typeof spec.git === "string") return `${name} (${spec.git})`;
  if (typeof spec.oci !== "string") return undefined;
  if (typeof spec.tag !== "string" || !spec.tag) return `${name} (${spec.oci}, no tag)`;
  const at = /^oci:\/\/([^/]+)\/(.+?)\/?$/.exec(spec.oci);
  return (at && ociModule(name, at[1]!, at[2]!, spec.tag)) ?? notLookedFor(name);
}

/** The module at `host/repository:tag` as an image reference parses it (the host a host, the path lower-case components, the tag one component); what is not one is said, never looked for. */
function ociModule(name: string, host: string, repository: string, tag: string): KclModule | string {
  try {
    const ref = parseReference(`${host}/${repository}:${tag}`);
    if (ref.registry === host && ref.tag === tag)
      return { name, registry: ref.registry, repository: ref.repository, tag, dir: `${path.posix.basename(ref.repository)}_${tag}` };
  } catch {
    // not a reference: said below
  }
  return notLookedFor(name);
}

/** What is not an image reference is not looked for (its place would not be one path component below KCL_PKG_PATH); function-kcl says what is wrong with it. */
function notLookedFor(name: string): string {
  return `${name} (not a module name and tag composition-ci can look for)`;
}

export function moduleReference(m: KclModule): string {
  return `${m.registry}/${m.repository}:${m.tag}`;
}

/** The version a module's own kcl.mod gives it (`[package] version`), which kpm compares with the lock's. */
export function moduleVersion(moduleDir: string): string | undefined {
  const pkg = readToml(path.join(moduleDir, "kcl.mod"))?.package;
  return isPlainObject(pkg) && typeof pkg.version === "string" ? pkg.version : undefined;
}

/**
 * `kcl.mod.lock` with an entry for each module that lacks one with a checksum at its version, as
 * kpm writes them: without it, kpm asks the registry for the checksum even when the module is
 * there. Entries the repository's lock already has are kept as they are; the text is only
 * rewritten when one is added. Undefined: nothing to add (or a lock that is not TOML, left as it
 * is). One entry per name, as kpm keeps them: the first given wins (the root's own dependencies
 * come first).
 */
export function completedLock(lockText: string | undefined, modules: { module: KclModule; version: string; sum: string }[]): string | undefined {
  let lock: Record<string, unknown> = {};
  if (lockText !== undefined) {
    try {
      lock = parse(lockText) as Record<string, unknown>;
    } catch {
      return undefined; // the repository's lock is not TOML: function-kcl says so, as it would in the cluster
    }
  }
  const deps: Record<string, unknown> = isPlainObject(lock.dependencies) ? { ...lock.dependencies } : {};
  let added = false;
  const named = new Set<string>();
  for (const { module: m, version, sum } of modules) {
    if (named.has(m.name)) continue;
    named.add(m.name);
    const known = deps[m.name];
    if (isPlainObject(known) && known.version === version && typeof known.sum === "string" && known.sum) continue;
    deps[m.name] = { name: m.name, full_name: `${m.name}_${version}`, version, sum, reg: m.registry, repo: m.repository, oci_tag: m.tag };
    added = true;
  }
  return added ? stringify({ ...lock, dependencies: deps }) : undefined;
}

/**
 * kpm's checksum of a module directory (utils.HashDir): the contents of its files, walked in
 * lexical order, concatenated and hashed with SHA-256, base64. Paths containing `.git` or `.tar`
 * are left out, as kpm leaves them out.
 */
export function kpmHashDir(dir: string): string {
  const hash = createHash("sha256");
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const full = path.join(d, name);
      const stat = fs.statSync(full);
      if (stat.isDirectory()) walk(full);
      else if (!full.includes(".git") && !full.includes(".tar")) hash.update(fs.readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest("base64");
}

function readToml(file: string): Record<string, unknown> | undefined {
  try {
    return parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
