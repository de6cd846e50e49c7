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
  /** nearest() by candidate list and asking directory: every file of a directory gets one answer. */
  private readonly nearestCache = new WeakMap<readonly unknown[], Map<string, unknown>>();

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
    if (candidates.length <= 1) return candidates[0];
    const fromDir = parentDir(from);
    let byDir = this.nearestCache.get(candidates);
    if (!byDir) this.nearestCache.set(candidates, (byDir = new Map()));
    if (byDir.has(fromDir)) return byDir.get(fromDir) as T | undefined;
    const found = this.nearestFrom(candidates, fileOf, fromDir);
    byDir.set(fromDir, found);
    return found;
  }

  private nearestFrom<T>(candidates: readonly T[], fileOf: (c: T) => string, fromDir: string): T | undefined {
    const fromPackage = this.packageOfDirectory(fromDir);
    let best: T | undefined;
    let bestScore = -1;
    for (const c of candidates) {
      const file = fileOf(c);
      const same = this.packageOf(file) === fromPackage ? 1 : 0;
      const score = same * 1_000_000 + sharedDepth(fromDir, parentDir(file));
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    return best;
  }

  /** The candidates that share the most leading directories with `from` (all of them on a tie). */
  closest<T>(candidates: readonly T[], fileOf: (c: T) => string, from: string): readonly T[] {
    if (candidates.length <= 1) return candidates;
    const fromDir = parentDir(from);
    const depths = candidates.map((c) => sharedDepth(fromDir, parentDir(fileOf(c))));
    const best = Math.max(...depths);
    return candidates.filter((_, i) => depths[i] === best);
  }

  /** The candidates in `from`'s own package (files outside every package are one), or all of them when none is there. */
  preferOwnPackage<T>(candidates: readonly T[], fileOf: (c: T) => string, from: string): readonly T[] {
    if (candidates.length <= 1 || this.roots.size === 0) return candidates;
    const own = this.packageOf(from);
    const mine = candidates.filter((c) => this.packageOf(fileOf(c)) === own);
    return mine.length ? mine : candidates;
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
