import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";

export interface DiscoveredFile {
  /** Absolute path. */
  abs: string;
  /** Path relative to the root, forward slashes (how findings name it). */
  rel: string;
}

export interface DiscoverOptions {
  root: string;
  /** Globs (relative to the root) of paths never read, from the config's `ignore:`. */
  ignore?: string[];
}

const MANIFEST_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);
const ALWAYS_SKIPPED_DIRS = new Set([".git", "node_modules"]);

/**
 * Lists manifest files (`*.yaml`, `*.yml`, `*.json`) below the given paths, honouring every
 * `.gitignore` on the way down and the config's ignore globs. A path named explicitly as a file
 * is always read. Output is sorted, so runs are deterministic.
 */
export function discover(paths: string[], options: DiscoverOptions): DiscoveredFile[] {
  const root = path.resolve(options.root);
  const configIgnored = options.ignore?.length ? picomatch(options.ignore, { dot: true }) : () => false;
  const gitignores = new GitignoreChain();
  const found = new Map<string, DiscoveredFile>();
  const add = (abs: string, rel = relativeTo(root, abs)) => found.set(abs, { abs, rel });

  // `rel` is built by joining names on the way down: path.relative per entry is what costs.
  const walk = (dir: string, relDir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    gitignores.listed(dir, entries.map((e) => e.name));
    const matcher = gitignores.forDir(dir);
    for (const entry of entries) {
      const abs = dir + path.sep + entry.name;
      const rel = relDir === "." ? entry.name : `${relDir}/${entry.name}`;
      if (configIgnored(rel)) continue;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || matcher(abs, true)) continue;
        walk(abs, rel);
      } else if (entry.isFile() && MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) {
        if (!matcher(abs, false)) add(abs, rel);
      }
    }
  };

  for (const p of paths) {
    const abs = path.resolve(root, p);
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    if (!stat) throw new Error(`path not found: ${p}`);
    if (stat.isDirectory()) walk(abs, relativeTo(root, abs));
    else add(abs);
  }
  return [...found.values()].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

function relativeTo(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/") || ".";
}

type Matcher = (abs: string, isDir: boolean) => boolean;

/** The `.gitignore` files that apply to a directory: its own and each ancestor's. */
class GitignoreChain {
  private readonly cache = new Map<string, { dir: string; ig: Ignore } | null>();
  private readonly repoRoots = new Map<string, boolean>();

  forDir(dir: string): Matcher {
    const layers: { dir: string; ig: Ignore }[] = [];
    for (let d = dir; ; d = path.dirname(d)) {
      const layer = this.layer(d);
      if (layer) layers.unshift(layer);
      if (this.isRepoRoot(d) || path.dirname(d) === d) break;
    }
    if (layers.length === 0) return () => false;
    return (abs, isDir) =>
      layers.some(({ dir: base, ig }) => {
        const rel = path.relative(base, abs).split(path.sep).join("/");
        return rel !== "" && !rel.startsWith("..") && ig.ignores(isDir ? rel + "/" : rel);
      });
  }

  /** What a directory holds, from a listing already made: saves a stat per name asked about. */
  listed(dir: string, names: string[]): void {
    this.repoRoots.set(dir, names.includes(".git"));
    if (!names.includes(".gitignore")) this.cache.set(dir, null);
  }

  private isRepoRoot(dir: string): boolean {
    let known = this.repoRoots.get(dir);
    if (known === undefined) this.repoRoots.set(dir, (known = fs.existsSync(path.join(dir, ".git"))));
    return known;
  }

  private layer(dir: string): { dir: string; ig: Ignore } | null {
    if (!this.cache.has(dir)) {
      const file = path.join(dir, ".gitignore");
      const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
      this.cache.set(dir, text === undefined ? null : { dir, ig: ignore().add(text) });
    }
    return this.cache.get(dir)!;
  }
}
