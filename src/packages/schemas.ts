import fs from "node:fs";
import path from "node:path";
import * as jsyaml from "js-yaml";
import { DEFAULT_LIMITS, loadFile } from "../manifest/load.js";
import { isKubeObject, Manifest, SourceFile } from "../manifest/manifest.js";
import { PullError, pullPackageYaml } from "../oci/image.js";
import type { Finding } from "../core/finding.js";
import type { PackageSettings } from "../runtimes/package.js";
import { isSchemaSource } from "../trust.js";
import { isCrd } from "../validate/schemas/crd.js";
import { findingAt } from "../validate/findings.js";
import { dependsOn, packageDependencies, type PackageDependency } from "./dependencies.js";
import { resolveDependency } from "./resolve.js";
import { isBuiltinPackage } from "../render/runner/builtin-names.js";

/**
 * The schemas of the packages a repository depends on: each package's `package.yaml` (its CRDs)
 * pulled through the shared cache, configurations followed to their own dependencies (to a depth
 * and a count). What cannot be had is one warning naming the package; its kinds are then
 * checked as before (`schema/missing`).
 */

export interface PackageSchemaOptions {
  packages: PackageSettings;
  /** `functions.trusted` and the config's `packages:` (in pr mode, the base ref's). */
  trusted: readonly string[];
  configPackages: readonly string[];
  allowExec: boolean;
  maxDepth?: number;
  maxPackages?: number;
}

export interface UsedPackage {
  reference: string;
  digest: string;
  crds: number;
  /** The configuration that brought it in, when it is not the repository's own dependency. */
  via?: string;
}

export interface PackageSchemas {
  crds: Manifest[];
  used: UsedPackage[];
  findings: Finding[];
}

const MAX_PACKAGE_YAML = 64 * 1024 * 1024;
/** Where YAML could hold an anchor or an alias: such a file goes through the bounded reader. */
const MAYBE_ALIAS = /(?:^|[\s[\]{},:-])[&*][^\s[\]{},]/m;

/**
 * A package.yaml as objects. A package is data from a registry: an alias bomb, a duplicate key or
 * a file too large is a warning about the package, never a hang or a crash. Plain files take
 * js-yaml's fast path; a file that may hold anchors takes the bounded reader every repository
 * file takes (alias limits).
 */
function parsePackageYaml(pulled: { reference: string; yaml: string }): unknown[] {
  if (pulled.yaml.length > MAX_PACKAGE_YAML) throw new PullError(`${pulled.reference}: package.yaml is larger than 64 MiB`, "format");
  try {
    if (!MAYBE_ALIAS.test(pulled.yaml)) return jsyaml.loadAll(pulled.yaml, null, { schema: jsyaml.CORE_SCHEMA }) as unknown[];
    const loaded = loadFile(`${pulled.reference} (package.yaml)`, Buffer.from(pulled.yaml), { ...DEFAULT_LIMITS, maxFileBytes: MAX_PACKAGE_YAML });
    const bad = loaded.findings.find((f) => f.severity === "error");
    if (bad) throw new Error(bad.message);
    return loaded.manifests.map((m) => m.object);
  } catch (err) {
    throw new PullError(`${pulled.reference}: package.yaml cannot be read: ${(err as Error).message.split("\n")[0]}`, "format");
  }
}

/**
 * The objects of a package.yaml (tens of megabytes for a large provider): parsed once without
 * positions (they describe schemas, no finding points into them) and kept as JSON by the
 * package's manifest digest, which later runs read in a fraction of the time.
 */
function packageObjects(pulled: { reference: string; digest: string; yaml: string }, cacheDir: string): Manifest[] {
  const cached = path.join(cacheDir, "oci", "packages", `parsed-${pulled.digest.replace("sha256:", "")}.json`);
  let objects: unknown[] | undefined;
  try {
    objects = JSON.parse(fs.readFileSync(cached, "utf8")) as unknown[];
  } catch {
    objects = parsePackageYaml(pulled);
    fs.mkdirSync(path.dirname(cached), { recursive: true });
    fs.writeFileSync(`${cached}.${process.pid}.tmp`, JSON.stringify(objects));
    fs.renameSync(`${cached}.${process.pid}.tmp`, cached);
  }
  const source = new SourceFile(`${pulled.reference} (package.yaml)`, "");
  return objects.flatMap((o, i) => (isKubeObject(o) ? [new Manifest(o, source, i)] : []));
}

interface Queued {
  dep: PackageDependency;
  depth: number;
  via?: string;
}

export async function loadPackageSchemas(manifests: Manifest[], options: PackageSchemaOptions): Promise<PackageSchemas> {
  const out: PackageSchemas = { crds: [], used: [], findings: [] };
  const maxDepth = options.maxDepth ?? 5;
  const maxPackages = options.maxPackages ?? 100;
  const queue: Queued[] = packageDependencies(manifests, options.configPackages).map((dep) => ({ dep, depth: 0 }));
  const seen = new Set<string>();
  while (queue.length) {
    const { dep, depth, via } = queue.shift()!;
    const name = repositoryOf(dep.package);
    if (seen.has(name)) continue;
    seen.add(name);
    if (seen.size > maxPackages) {
      out.findings.push(
        warning(dep, `more than ${maxPackages} packages: ${dep.package} and the rest are not fetched; their kinds are checked without schemas`),
      );
      break;
    }
    // A built-in function's input types are built in too (schemas/functions.yaml).
    if (dep.kind === "function" && isBuiltinPackage(dep.package)) continue;
    // No registry host: Crossplane v2 rejects it (a v1 form a rule explains); its registry is a guess.
    if (!hasRegistryHost(dep.package)) continue;
    if (!isSchemaSource(dep.package, [...options.trusted, ...options.configPackages], options.allowExec)) {
      out.findings.push(
        notice(
          dep,
          `${dep.package} is not on a registry composition-ci fetches schemas from (xpkg.crossplane.io, xpkg.upbound.io); add it to packages: in .composition-ci.yaml to fetch its CRDs`,
        ),
      );
      continue;
    }
    try {
      const reference = await resolveDependency(dep, options.packages);
      const pulled = await pullPackageYaml(reference, options.packages);
      const loaded = { manifests: packageObjects(pulled, options.packages.cacheDir) };
      const crds = loaded.manifests.filter(isCrd);
      out.crds.push(...crds);
      out.used.push({ reference: pulled.reference, digest: pulled.digest, crds: crds.length, ...(via ? { via } : {}) });
      const next = loaded.manifests.filter((m) => m.group === "meta.pkg.crossplane.io").flatMap((meta) => dependsOn(meta));
      if (depth >= maxDepth) {
        if (next.length)
          out.findings.push(
            warning(
              dep,
              `${pulled.reference} is ${depth + 1} configurations deep; its ${next.length} dependenc${next.length === 1 ? "y is" : "ies are"} not followed (the limit is ${maxDepth}): their kinds are checked without schemas unless the repository depends on them directly`,
            ),
          );
        continue;
      }
      for (const n of next) queue.push({ dep: { ...n, at: dep.at }, depth: depth + 1, via: pulled.reference });
    } catch (err) {
      if (!(err instanceof PullError)) throw err;
      const fill = err.kind === "offline" ? " (`composition-ci functions pull` fills the cache where the registry can be reached)" : "";
      out.findings.push(
        warning(
          dep,
          `the schemas of ${dep.package}${via ? ` (a dependency of ${via})` : ""} could not be fetched: ${err.message}${fill}; its kinds are checked without them`,
        ),
      );
    }
  }
  return out;
}

function warning(dep: PackageDependency, message: string): Finding {
  if (dep.at) return findingAt(dep.at.manifest, dep.at.pointer, "package/unavailable", "warning", message);
  return { rule: "package/unavailable", severity: "warning", message: `${message} (packages: in the config)` };
}

function notice(dep: PackageDependency, message: string): Finding {
  if (dep.at) return findingAt(dep.at.manifest, dep.at.pointer, "package/untrusted", "info", message);
  return { rule: "package/untrusted", severity: "info", message };
}

function hasRegistryHost(pkg: string): boolean {
  const first = pkg.split("/")[0]!;
  return pkg.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
}

function repositoryOf(pkg: string): string {
  const at = pkg.indexOf("@");
  const base = at >= 0 ? pkg.slice(0, at) : pkg;
  return base.lastIndexOf(":") > base.lastIndexOf("/") ? base.slice(0, base.lastIndexOf(":")) : base;
}
