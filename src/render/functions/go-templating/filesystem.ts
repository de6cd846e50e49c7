import fs from "node:fs";
import path from "node:path";

/**
 * Where FileSystem templates come from. Upstream reads the function container's disk (a
 * ConfigMap mounted at the dirPath); a local render reads files the renderer hands over: a
 * directory of the repository (never outside it) or files held in memory (a ConfigMap's data).
 */
export interface TemplateFileSystem {
  /** The entry at `p` (a slash path), or undefined when it does not exist. */
  stat(p: string): { dir: boolean } | undefined;
  /** Names in a directory, in Go's order (sorted). */
  readDir(p: string): { name: string; dir: boolean }[];
  readFile(p: string): string;
  /** The error text for a path that does not exist (Go's os and embed file systems word it differently). */
  notExist(p: string): string;
}

/** fs.WalkDir + readTemplates: every file below `dir` (hidden files and directories skipped), each followed by "\n---\n". */
export function readTemplates(fsys: TemplateFileSystem, dir: string): string {
  const root = fsys.stat(dir);
  if (!root) throw new Error(fsys.notExist(dir));
  let out = "";
  const walk = (p: string, name: string, isDir: boolean) => {
    if (isDir && name.startsWith(".")) return;
    if (isDir) {
      for (const e of fsys.readDir(p)) walk(p === "." ? e.name : `${p}/${e.name}`, e.name, e.dir);
      return;
    }
    if (name.startsWith(".")) return;
    out += fsys.readFile(p) + "\n---\n";
  };
  walk(dir, dir.split("/").filter(Boolean).pop() ?? dir, root.dir);
  return out;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Files held in memory, keyed by slash path (as Go's embed.FS words a missing path). */
export function memoryFileSystem(files: Record<string, string>): TemplateFileSystem {
  const clean = (p: string) => p.replace(/^\.\/|\/+$/g, "");
  const dirs = new Set<string>(["."]);
  for (const f of Object.keys(files)) {
    const parts = f.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return {
    stat: (p) => {
      const c = clean(p);
      if (Object.hasOwn(files, c)) return { dir: false };
      return dirs.has(c) ? { dir: true } : undefined;
    },
    readDir: (p) => {
      const c = clean(p);
      const prefix = c === "." ? "" : c + "/";
      const names = new Map<string, boolean>();
      for (const f of [...Object.keys(files), ...dirs]) {
        if (!f.startsWith(prefix) || f === c) continue;
        const rest = f.slice(prefix.length);
        if (rest === "" || rest === ".") continue;
        const [first, ...more] = rest.split("/");
        names.set(first, (names.get(first) ?? false) || more.length > 0 || dirs.has(prefix + first));
      }
      return [...names].map(([name, dir]) => ({ name, dir })).sort(byName);
    },
    readFile: (p) => files[clean(p)],
    notExist: (p) => `open ${p}: file does not exist`,
  };
}

/**
 * A directory of the repository: relative dirPaths resolve against `base` (the composition's
 * directory); absolute ones through `mounts` (container path → directory). Nothing outside
 * `root` is read, symbolic links included.
 */
export function directoryFileSystem(opts: { root: string; base: string; mounts?: Record<string, string> }): TemplateFileSystem {
  const root = fs.realpathSync(opts.root);
  const resolve = (p: string): string | undefined => {
    let target: string;
    if (path.posix.isAbsolute(p)) {
      p = path.posix.normalize(p);
      const mount = Object.keys(opts.mounts ?? {})
        .filter((m) => p === m || p.startsWith(m.replace(/\/*$/, "/")))
        .sort((a, b) => b.length - a.length)[0];
      if (mount === undefined) return undefined;
      target = path.resolve(opts.mounts![mount], path.posix.relative(mount, p));
    } else target = path.resolve(opts.base, p);
    let real: string;
    try {
      real = fs.realpathSync(target);
    } catch {
      return undefined;
    }
    return real === root || real.startsWith(root + path.sep) ? real : undefined;
  };
  return {
    stat: (p) => {
      const r = resolve(p);
      if (!r) return undefined;
      return { dir: fs.statSync(r).isDirectory() };
    },
    readDir: (p) => {
      const r = resolve(p)!;
      return fs
        .readdirSync(r, { withFileTypes: true })
        .map((e) => {
          const full = resolve(`${p}/${e.name}`);
          return full ? { name: e.name, dir: fs.statSync(full).isDirectory() } : undefined;
        })
        .filter((e): e is { name: string; dir: boolean } => e !== undefined)
        .sort(byName);
    },
    readFile: (p) => fs.readFileSync(resolve(p)!, "utf8"),
    notExist: (p) => `open ${p}: no such file or directory`,
  };
}
