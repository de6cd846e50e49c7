import type { Manifest } from "./manifest.js";

/**
 * Where a repository's packages are: a directory holding a package's metadata (`crossplane.yaml`,
 * a `meta.pkg.crossplane.io` object, or an Upbound `upbound.yaml` Project) roots a package, and
 * every file below it belongs to it. Repositories keep alternative packages side by side (only
 * one is ever installed), so a definition is looked up by proximity: in the asking file's own
 * package first, then the nearest in the directory tree, then the first found.
 */
export class PackageLayout {
  private readonly roots: Set<string>;
  private readonly packageOfDir = new Map<string, string | undefined>();
  private readonly places = new WeakMap<readonly unknown[], { dir: string; pkg: string | undefined }[]>();
  private readonly nearestAllCache = new WeakMap<readonly unknown[], Map<string, readonly unknown[]>>();

  constructor(roots: Iterable<string>) {
    this.roots = new Set(roots);
  }

  static fromManifests(manifests: Manifest[]): PackageLayout {
    return new PackageLayout(manifests.filter(isPackageMetadata).map((m) => parentDir(m.file)));
  }

  /** The root directory of the package a file belongs to ("" is the repository root), if any. */
  packageOf(file: string): string | undefined {
    return this.packageOfDirectory(parentDir(file));
  }

  /** True when both files are in one package (an explicit one, or both outside every package). */
  samePackage(a: string, b: string): boolean {
    return this.packageOf(a) === this.packageOf(b);
  }

  /** Of the candidates, the one nearest `from`: same package, then the deepest shared directory, then the first. */
  nearest<T>(candidates: readonly T[], fileOf: (c: T) => string, from: string): T | undefined {
    return this.nearestAll(candidates, fileOf, from)[0];
  }

  /** Each candidate's directory and package, worked out once per candidate list (asked from every directory). */
  private placesOf<T>(candidates: readonly T[], fileOf: (c: T) => string): { dir: string; pkg: string | undefined }[] {
    let places = this.places.get(candidates);
    if (!places) {
      places = candidates.map((c) => {
        const dir = parentDir(fileOf(c));
        return { dir, pkg: this.packageOfDirectory(dir) };
      });
      this.places.set(candidates, places);
    }
    return places;
  }

  /**
   * The candidates in `from`'s own package (files outside every package are one; all of them when
   * none is there), and of those the ones sharing the most leading directories with `from` (all of
   * them on a tie). Every file of a directory gets one answer, worked out once.
   */
  nearestAll<T>(candidates: readonly T[], fileOf: (c: T) => string, from: string): readonly T[] {
    if (candidates.length <= 1) return candidates;
    const fromDir = parentDir(from);
    let byDir = this.nearestAllCache.get(candidates);
    if (!byDir) this.nearestAllCache.set(candidates, (byDir = new Map()));
    let found = byDir.get(fromDir) as readonly T[] | undefined;
    if (!found) {
      const places = this.placesOf(candidates, fileOf);
      const own = this.packageOfDirectory(fromDir);
      let indexes = candidates.map((_, i) => i);
      if (this.roots.size > 0) {
        const mine = indexes.filter((i) => places[i]!.pkg === own);
        if (mine.length) indexes = mine;
      }
      const depths = indexes.map((i) => sharedDepth(fromDir, places[i]!.dir));
      const best = Math.max(...depths);
      found = indexes.filter((_, k) => depths[k] === best).map((i) => candidates[i]!);
      byDir.set(fromDir, found);
    }
    return found;
  }

  private packageOfDirectory(dir: string): string | undefined {
    if (this.roots.size === 0) return undefined; // a repository without package metadata: one package
    if (this.packageOfDir.has(dir)) return this.packageOfDir.get(dir);
    const found = this.roots.has(dir) ? dir : dir === "" ? undefined : this.packageOfDirectory(parentDir(dir));
    this.packageOfDir.set(dir, found);
    return found;
  }
}

/** Package metadata: Crossplane's `meta.pkg.crossplane.io` objects and Upbound's Project. */
export function isPackageMetadata(m: Manifest): boolean {
  return m.group === "meta.pkg.crossplane.io" || (m.group === "meta.dev.upbound.io" && m.kind === "Project") || (m.group === "dev.crossplane.io" && m.kind === "Project");
}

/** `a/b/x.yaml` → `a/b`; `x.yaml` → "" (the root). */
export function parentDir(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash < 0 ? "" : file.slice(0, slash);
}

/** How many leading directories two directory paths share (compared in place, no splitting). */
function sharedDepth(a: string, b: string): number {
  if (a === "" || b === "") return 0;
  let depth = 0;
  let i = 0;
  for (; i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i); i++) if (a.charCodeAt(i) === 47) depth++;
  // A whole last component in common: the paths end together or continue with a separator.
  const endA = i === a.length || a.charCodeAt(i) === 47;
  const endB = i === b.length || b.charCodeAt(i) === 47;
  return endA && endB ? depth + 1 : depth;
}
