import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { checkConstraint, compareVersions, newConstraint, newVersion, type Version } from "../go/semver.js";
import { listTags, PullError } from "../oci/image.js";
import type { RegistryClient } from "../oci/registry.js";
import type { PackageDependency } from "./dependencies.js";

/**
 * A dependency as a reference to pull: the package's own tag or digest, its exact version, or
 * the highest tag that satisfies its semver constraint (`>=v1.0.0`, `>=v1.2.0, <v2.0.0`, `~v1.3`),
 * as Crossplane's package manager resolves them against the registry's tags. A constraint's
 * answer is kept in the cache, so an offline run resolves what an online one did.
 */
export async function resolveDependency(dep: PackageDependency, options: { cacheDir: string; client: RegistryClient; offline?: boolean }): Promise<string> {
  const name = dep.package;
  if (name.includes("@") || hasTag(name) || !dep.version) return name;
  const version = dep.version.trim();
  if (version.startsWith("sha256:")) return `${name}@${version}`;
  if (isExact(version)) return `${name}:${version}`;
  // A partial version (`v1`, `v1.2`) is a constraint, as Crossplane's semver library
  // (Masterminds/semver v3) reads it: `!=v1.2.3`, `>v1.3.0-0` and `||` mean what they mean there.
  const constraint = constraintOf(version);
  if (!constraint) return `${name}:${version}`;
  const cacheFile = path.join(
    options.cacheDir,
    "oci",
    "constraints",
    `${crypto.createHash("sha256").update(`${name}|masterminds|${version}`).digest("hex")}.json`,
  );
  // A constraint's answer is kept a day (a second run asks nothing; tomorrow's sees new releases);
  // offline, whatever an online run last resolved.
  const memo = resolvedThisRun.get(cacheFile);
  if (memo) return `${name}:${memo}`;
  const cached = readCached(cacheFile);
  if (cached && (options.offline || Date.now() - cached.at < CONSTRAINT_LIFETIME_MS)) return `${name}:${cached.tag}`;
  if (options.offline) throw new PullError(`${name} ${version} is not resolved in the cache (--offline)`, "offline");
  const tags = await listTags(name, options.client);
  const best = highestSatisfying(tags, constraint);
  if (!best) throw new PullError(`${name}: no tag satisfies ${version} (of ${tags.length} tags)`, "registry");
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, JSON.stringify({ package: name, constraint: version, tag: best, resolved: new Date().toISOString() }) + "\n");
  resolvedThisRun.set(cacheFile, best);
  return `${name}:${best}`;
}

const resolvedThisRun = new Map<string, string>();

type Constraint = ReturnType<typeof newConstraint>;

function constraintOf(version: string): Constraint | undefined {
  try {
    return newConstraint(version);
  } catch {
    return undefined;
  }
}

/** The highest tag that is a semantic version satisfying the constraint (Masterminds' Check and Compare). */
export function highestSatisfying(tags: string[], constraint: Constraint): string | undefined {
  let best: { tag: string; version: Version } | undefined;
  for (const tag of tags) {
    let version: Version;
    try {
      version = newVersion(tag);
    } catch {
      continue;
    }
    if (!checkConstraint(constraint, version)) continue;
    if (!best || compareVersions(version, best.version) > 0) best = { tag, version };
  }
  return best?.tag;
}

/** A constraint as Crossplane's package manager reads it; undefined when it is none. */
export function parseConstraint(version: string): Constraint | undefined {
  return constraintOf(version);
}

/** `v1.2.3` or `1.2.3`: the tag itself. */
function isExact(version: string): boolean {
  return /^v?\d+\.\d+\.\d+([-+][\w.+-]*)?$/.test(version);
}

function hasTag(name: string): boolean {
  return name.lastIndexOf(":") > name.lastIndexOf("/");
}

const CONSTRAINT_LIFETIME_MS = 24 * 60 * 60 * 1000;

function readCached(file: string): { tag: string; at: number } | undefined {
  try {
    const entry = JSON.parse(fs.readFileSync(file, "utf8")) as { tag?: unknown; resolved?: unknown };
    const at = typeof entry.resolved === "string" ? Date.parse(entry.resolved) : NaN;
    return typeof entry.tag === "string" ? { tag: entry.tag, at: Number.isFinite(at) ? at : 0 } : undefined;
  } catch {
    return undefined;
  }
}
