import fs from "node:fs";
import path from "node:path";
import { GitignoreRules, globMatcher } from "./glob.js";

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
  /** Filled with what a user should know about the walk (a named directory that a .gitignore above it ignores). */
  notes?: string[];
  /** Filled with every directory walked (absolute path) and whether it may hold a `Kptfile`: kpt skips the others. */
  kptfileDirs?: Map<string, boolean>;
  /** Filled with the `*.cue` files walked (KubeVela keeps definitions as CUE): known by name, never parsed as YAML. */
  cueFiles?: DiscoveredFile[];
}

/** A path the user named is not there (or not a file or directory): a usage error, said as such. */
export class PathNotFound extends Error {}

const MANIFEST_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);
const ALWAYS_SKIPPED_DIRS = new Set([".git", "node_modules"]);

/**
 * Lists manifest files (`*.yaml`, `*.yml`, `*.json`) below the given paths, honouring every
 * `.gitignore` on the way down and the config's ignore globs. A path named explicitly is always
 * read, even when a .gitignore above it ignores it (and `notes` say so). Symbolic links are followed when they lead inside the root (a pull request must
 * not get a file from elsewhere on the runner read, and quoted in a report), a linked directory
 * once and never into its own parents. Output is sorted, so runs are deterministic.
 */
export function discover(paths: string[], options: DiscoverOptions): DiscoveredFile[] {
  const root = path.resolve(options.root);
  const configIgnored = globMatcher(options.ignore ?? []);
  const found = new Map<string, DiscoveredFile>();
  const add = (abs: string, rel = relativeTo(root, abs)) => found.set(abs, { abs, rel });
  let links: SymlinkPolicy;

  // `rel` is built by joining names on the way down (path.relative per entry is what costs), and
  // each directory's .gitignore layers are its parent's plus its own.
  const walk = (dir: string, relDir: string, inherited: GitignoreLayer[]) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // A directory that cannot be listed (no read permission) may hold manifests: it is handed to
      // the loader like a file (`dir/`), which cannot read it either and says so (file/unreadable),
      // rather than its files going unchecked in silence. One that vanished meanwhile is simply gone.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") found.set(dir, { abs: dir, rel: `${relDir}/` });
      return;
    }
    const layers = layersOf(dir, entries, inherited);
    const ignored = matcher(layers);
    // Any case: on a case-insensitive file system (macOS, Windows) `kptfile` is the Kptfile kpt opens.
    options.kptfileDirs?.set(
      dir,
      entries.some((e) => e.name.toLowerCase() === "kptfile"),
    );
    for (const entry of entries) {
      const abs = dir + path.sep + entry.name;
      const rel = relDir === "." ? entry.name : `${relDir}/${entry.name}`;
      if (configIgnored(rel)) continue;
      const kind = entry.isSymbolicLink() ? links.follow(abs) : entry.isDirectory() ? "dir" : entry.isFile() ? "file" : undefined;
      if (kind === "outside-dir" || kind === "outside-file") {
        // Said only of what would have been read: not of an ignored or always-skipped entry.
        const wouldRead =
          kind === "outside-dir"
            ? !ALWAYS_SKIPPED_DIRS.has(entry.name) && !ignored(abs, true)
            : MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase()) && !ignored(abs, false);
        if (wouldRead) options.notes?.push(outsideNote(rel));
      } else if (kind === "dir") {
        if (ALWAYS_SKIPPED_DIRS.has(entry.name) || ignored(abs, true)) continue;
        walk(abs, rel, layers);
      } else if (kind === "file" && MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) {
        if (!ignored(abs, false)) add(abs, rel);
      } else if (kind === "file" && options.cueFiles && entry.name.endsWith(".cue") && !ignored(abs, false)) {
        options.cueFiles.push({ abs, rel });
      }
    }
  };

  for (const p of paths) {
    const abs = path.resolve(root, p);
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    if (!stat) throw new PathNotFound(`path not found: ${p}`);
    // A named path inside the root is held to the root as a link met on the way is.
    if (isInside(abs, root) && !staysInside(root, p)) {
      options.notes?.push(outsideNote(p));
      continue;
    }
    // Links may lead anywhere inside the root; a directory named outside it keeps them inside itself.
    links = new SymlinkPolicy(isInside(abs, root) ? root : abs);
    if (stat.isDirectory()) {
      const above = ancestorLayers(abs);
      const by = above.find((layer) => matcher([layer])(abs, true));
      // A directory named on the command line is read, as a named file is; the .gitignore files in it still apply.
      if (by) options.notes?.push(`${p} is ignored by ${relativeTo(root, path.join(by.dir, ".gitignore"))}; read anyway because it was named`);
      walk(abs, relativeTo(root, abs), by ? [] : above);
    } else if (stat.isFile()) add(abs);
    else throw new PathNotFound(`path not found: ${p} is not a regular file or a directory (a FIFO or a device is not read)`);
  }
  return [...found.values()].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Where a symbolic link may lead: inside the boundary only; a directory once, and never to one of the link's own parents. */
class SymlinkPolicy {
  private realBoundary?: string;
  private readonly followedDirs = new Set<string>();

  constructor(private readonly boundary: string) {}

  follow(link: string): "dir" | "file" | "outside-dir" | "outside-file" | undefined {
    let real: string;
    let stat: fs.Stats;
    try {
      real = fs.realpathSync(link);
      stat = fs.statSync(real);
    } catch {
      return undefined; // dangling
    }
    this.realBoundary ??= fs.realpathSync(this.boundary);
    if (!isInside(real, this.realBoundary)) return stat.isDirectory() ? "outside-dir" : stat.isFile() ? "outside-file" : undefined;
    if (stat.isFile()) return "file";
    if (!stat.isDirectory()) return undefined;
    if (isInside(fs.realpathSync(path.dirname(link)), real) || this.followedDirs.has(real)) return undefined;
    this.followedDirs.add(real);
    return "dir";
  }
}

function outsideNote(rel: string): string {
  return `${rel} is a symbolic link (or below one) that leads outside the repository; not read`;
}

function isInside(target: string, dir: string): boolean {
  return target === dir || target.startsWith(dir + path.sep);
}

/** Whether a path, relative to `root`, stays inside it once symbolic links are resolved (as far as it exists). */
export function staysInside(root: string, p: string): boolean {
  return isInside(realAsFarAsItExists(path.resolve(root, p)), realAsFarAsItExists(path.resolve(root)));
}

/** The real path of the longest part that exists, with the rest appended (a link may sit above a missing file). */
function realAsFarAsItExists(abs: string): string {
  try {
    return fs.realpathSync(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(realAsFarAsItExists(parent), path.basename(abs));
  }
}

function relativeTo(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/") || ".";
}

/** One `.gitignore`: its patterns apply to paths below its directory. */
interface GitignoreLayer {
  dir: string;
  rules: GitignoreRules;
}

/** A directory's layers: a repository root starts afresh (its parents' .gitignore files stop there), then its own file. */
function layersOf(dir: string, entries: fs.Dirent[], inherited: GitignoreLayer[]): GitignoreLayer[] {
  let repoRoot = false;
  let gitignore = false;
  for (const e of entries) {
    if (e.name === ".git") repoRoot = true;
    else if (e.name === ".gitignore") gitignore = true;
  }
  const base = repoRoot ? [] : inherited;
  const own = gitignore ? readLayer(dir) : undefined;
  return own ? [...base, own] : base;
}

/** The layers of the directories above a starting directory, up to its repository root. */
function ancestorLayers(start: string): GitignoreLayer[] {
  const layers: GitignoreLayer[] = [];
  if (fs.existsSync(path.join(start, ".git"))) return layers;
  for (let d = path.dirname(start); ; d = path.dirname(d)) {
    const own = readLayer(d);
    if (own) layers.unshift(own);
    if (fs.existsSync(path.join(d, ".git")) || path.dirname(d) === d) return layers;
  }
}

/** A directory's own `.gitignore`; none when there is no such file or it cannot be read. */
function readLayer(dir: string): GitignoreLayer | undefined {
  try {
    return { dir, rules: new GitignoreRules(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")) };
  } catch {
    return undefined;
  }
}

type Matcher = (abs: string, isDir: boolean) => boolean;

/** The deepest .gitignore with a rule for the path decides, as in git (a deeper `!x` re-includes). */
function matcher(layers: GitignoreLayer[]): Matcher {
  if (layers.length === 0) return () => false;
  return (abs, isDir) => {
    let ignored = false;
    for (const { dir: base, rules } of layers) {
      const rel = path.relative(base, abs).split(path.sep).join("/");
      if (rel === "" || rel.startsWith("..")) continue;
      ignored = rules.decide(rel, isDir) ?? ignored;
    }
    return ignored;
  };
}
