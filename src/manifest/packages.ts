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
  private readonly ancestors = new WeakMap<readonly unknown[], Map<string | undefined, Map<string, unknown[]>>>();
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

  /**
   * Whether a definition in `definition` certainly belongs with an object in `file`: both in one
   * explicit package, or the definition's directory is the file's or an ancestor of it (or below
   * it). A definition reached only through a shared ancestor (a sibling example's XRD) may never
   * be installed with it: what rests on it alone is a guess.
   */
  related(file: string, definition: string): boolean {
    const pkg = this.packageOf(file);
    if (pkg !== undefined && pkg === this.packageOf(definition)) return true;
    const a = parentDir(file);
    const b = parentDir(definition);
    const within = (inner: string, outer: string) => outer === "" || inner === outer || inner.startsWith(`${outer}/`);
    return within(a, b) || within(b, a);
  }

  /** Of the candidates, the one nearest `from`: same package, then the deepest shared directory, then the first. */
  nearest<T>(candidates: readonly T[], fileOf: (c: T) => string, from: string): T | undefined {
    return this.nearestAll(candidates, fileOf, from)[0];
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
      const within = this.ancestorsOf(candidates, fileOf, this.packageOfDirectory(fromDir));
      found = (deepestAncestorIn(within, fromDir) ?? candidates) as readonly T[];
      byDir.set(fromDir, found);
    }
    return found;
  }

  /**
   * The candidates that may answer from one package (those in it; all when none is), grouped by
   * every directory that holds them, however deep: the nearest of them to a directory are the ones
   * in its deepest ancestor that holds any (they share the most leading directories with it).
   */
  private ancestorsOf<T>(candidates: readonly T[], fileOf: (c: T) => string, pkg: string | undefined): Map<string, T[]> {
    let byPackage = this.ancestors.get(candidates);
    if (!byPackage) this.ancestors.set(candidates, (byPackage = new Map()));
    let within = byPackage.get(pkg) as Map<string, T[]> | undefined;
    if (within) return within;
    const dirs = candidates.map((c) => parentDir(fileOf(c)));
    const inPackage = this.roots.size > 0 ? candidates.filter((_, i) => this.packageOfDirectory(dirs[i]!) === pkg) : [];
    const eligible = inPackage.length ? new Set(inPackage) : undefined;
    within = new Map();
    candidates.forEach((c, i) => {
      if (eligible && !eligible.has(c)) return;
      for (let dir: string | undefined = dirs[i]!; dir !== undefined; dir = dir === "" ? undefined : parentDir(dir)) {
        const list = within!.get(dir);
        if (list) list.push(c);
        else within!.set(dir, [c]);
      }
    });
    byPackage.set(pkg, within);
    return within;
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
  return (
    m.group === "meta.pkg.crossplane.io" ||
    (m.group === "meta.dev.upbound.io" && m.kind === "Project") ||
    (m.group === "dev.crossplane.io" && m.kind === "Project")
  );
}

/** `a/b/x.yaml` → `a/b`; `x.yaml` → "" (the root). */
export function parentDir(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash < 0 ? "" : file.slice(0, slash);
}

/** The entry of `dir`'s deepest ancestor (itself included, the root "" last) that the map has. */
function deepestAncestorIn<V>(byDir: Map<string, V>, dir: string): V | undefined {
  for (let d: string | undefined = dir; d !== undefined; d = d === "" ? undefined : parentDir(d)) {
    const found = byDir.get(d);
    if (found) return found;
  }
  return undefined;
}
