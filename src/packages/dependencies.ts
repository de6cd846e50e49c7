// packages/: the packages a repository depends on, resolved against their registries, and their CRDs as schemas.
import type { Manifest } from "../manifest/manifest.js";

/**
 * The Crossplane packages a repository depends on, as Crossplane's package manager reads them:
 * `dependsOn` of the package metadata (`crossplane.yaml`, `meta.pkg.crossplane.io`), of an
 * Upbound project (`upbound.yaml`, `meta.dev.upbound.io` Project), the `spec.package` of
 * Provider, Function and Configuration objects, and the config's `packages:` list.
 */
export interface PackageDependency {
  /** registry/repository, maybe with a tag or digest already. */
  package: string;
  /** A version or a semver constraint (`>=v1.0.0`), when the package names none itself. */
  version?: string;
  kind: "provider" | "function" | "configuration" | "package";
  /** Where it is declared, for findings. */
  at?: { manifest: Manifest; pointer: string };
}

const META_GROUPS = new Set(["meta.pkg.crossplane.io", "meta.dev.upbound.io", "dev.crossplane.io"]);
const PACKAGE_KINDS: Record<string, PackageDependency["kind"]> = { Provider: "provider", Function: "function", Configuration: "configuration" };

export function packageDependencies(manifests: Manifest[], configPackages: readonly string[] = []): PackageDependency[] {
  const out: PackageDependency[] = [];
  for (const m of manifests) {
    if (META_GROUPS.has(m.group)) out.push(...dependsOn(m));
    else if (m.group === "pkg.crossplane.io" && PACKAGE_KINDS[m.kind]) {
      const pkg = (m.object.spec as { package?: unknown } | undefined)?.package;
      if (typeof pkg === "string" && pkg) out.push({ package: pkg, kind: PACKAGE_KINDS[m.kind]!, at: { manifest: m, pointer: "/spec/package" } });
    }
  }
  for (const pkg of configPackages) out.push({ package: pkg, kind: "package" });
  return dedupe(out);
}

/** The `spec.dependsOn` entries of a package's metadata (also of a package pulled from a registry). */
export function dependsOn(m: Manifest): PackageDependency[] {
  const entries = (m.object.spec as { dependsOn?: unknown } | undefined)?.dependsOn;
  if (!Array.isArray(entries)) return [];
  const out: PackageDependency[] = [];
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const version = typeof e.version === "string" && e.version ? e.version : undefined;
    const pointer = `/spec/dependsOn/${i}`;
    for (const kind of ["provider", "function", "configuration"] as const) {
      if (typeof e[kind] === "string" && e[kind]) out.push({ package: e[kind] as string, version, kind, at: { manifest: m, pointer } });
    }
    // The v2 form: apiVersion, kind and package.
    if (typeof e.package === "string" && e.package && typeof e.kind === "string") {
      out.push({ package: e.package, version, kind: PACKAGE_KINDS[e.kind] ?? "package", at: { manifest: m, pointer } });
    }
  });
  return out;
}

function dedupe(deps: PackageDependency[]): PackageDependency[] {
  const seen = new Set<string>();
  return deps.filter((d) => {
    const key = `${d.package}|${d.version ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
