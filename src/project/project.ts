import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";

/**
 * A project as `up project` (Upbound, `upbound.yaml`, `meta.dev.upbound.io` Project) and the
 * Crossplane CLI (`crossplane-project.yaml`, `dev.crossplane.io` Project) read it: where its
 * parts are, what its embedded functions are called, and how its base images are rewritten.
 */
export interface Project {
  /** The project file, relative to the repository root. */
  file: string;
  /** The project's directory ("" at the root), with a trailing slash otherwise. */
  dir: string;
  /** `spec.repository`: the package's OCI repository (`xpkg.upbound.io/acme/platform`). */
  repository: string;
  /** `spec.paths`, defaulted as the CLI defaults them (each relative to `dir`, without a slash). */
  paths: ProjectPaths;
  /** `spec.functions` (Crossplane CLI): functions named explicitly; none means every folder of paths.functions. */
  declared?: DeclaredFunction[];
  /** `spec.imageConfigs` (Crossplane CLI): prefix rewrites applied to the builders' base images. */
  imageConfigs: ImageRewrite[];
}

export interface ProjectPaths {
  apis: string;
  functions: string;
  examples: string;
  tests: string;
  operations: string;
  schemas: string;
}

export interface DeclaredFunction {
  name: string;
  source: "Directory" | "Tarball";
}

export interface ImageRewrite {
  prefixes: string[];
  rewrite: string;
}

const DEFAULT_PATHS: ProjectPaths = {
  apis: "apis",
  functions: "functions",
  examples: "examples",
  tests: "tests",
  operations: "operations",
  schemas: "schemas",
};

export function isProjectFile(m: Manifest): boolean {
  return m.kind === "Project" && (m.group === "meta.dev.upbound.io" || m.group === "dev.crossplane.io");
}

/** The projects among the manifests; one without a repository names no function and is left out. */
export function projectsOf(manifests: readonly Manifest[]): Project[] {
  const projects: Project[] = [];
  for (const m of manifests) {
    if (!isProjectFile(m)) continue;
    const spec = record(m.object.spec);
    if (typeof spec.repository !== "string" || !spec.repository) continue;
    const dir = m.file.includes("/") ? m.file.slice(0, m.file.lastIndexOf("/") + 1) : "";
    projects.push({
      file: m.file,
      dir,
      repository: spec.repository,
      paths: pathsOf(spec.paths),
      declared: declaredOf(spec.functions),
      imageConfigs: rewritesOf(spec.imageConfigs),
    });
  }
  return projects;
}

function pathsOf(value: unknown): ProjectPaths {
  const given = record(value);
  const paths = { ...DEFAULT_PATHS };
  for (const key of Object.keys(DEFAULT_PATHS) as (keyof ProjectPaths)[]) {
    const v = given[key];
    if (typeof v === "string" && v.trim()) paths[key] = path.posix.normalize(v.trim()).replace(/\/+$/, "");
  }
  return paths;
}

function declaredOf(value: unknown): DeclaredFunction[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const declared: DeclaredFunction[] = [];
  for (const entry of value.map(record)) {
    const source = entry.source === "Tarball" ? "Tarball" : "Directory";
    const name = record(source === "Tarball" ? entry.tarball : entry.directory).name;
    if (typeof name === "string" && name) declared.push({ name, source });
  }
  return declared;
}

function rewritesOf(value: unknown): ImageRewrite[] {
  const rewrites: ImageRewrite[] = [];
  for (const config of Array.isArray(value) ? value.map(record) : []) {
    const spec = record(config.spec);
    const rewrite = record(spec.rewriteImage).prefix;
    const prefixes = (Array.isArray(spec.matchImages) ? spec.matchImages.map(record) : [])
      .map((m) => m.prefix)
      .filter((p): p is string => typeof p === "string" && p !== "");
    if (typeof rewrite === "string" && rewrite && prefixes.length) rewrites.push({ prefixes, rewrite });
  }
  return rewrites;
}

/**
 * An image as the project's ImageConfigs rewrite it (crossplane-runtime's ImageConfigStore: the
 * config with the longest matching prefix wins, and its longest matching prefix is replaced).
 */
export function rewriteImage(image: string, rewrites: readonly ImageRewrite[]): string {
  let best: ImageRewrite | undefined;
  let longest = 0;
  for (const r of rewrites) {
    for (const p of r.prefixes) {
      if (image.startsWith(p) && p.length > longest) {
        longest = p.length;
        best = r;
      }
    }
  }
  if (!best) return image;
  const match = best.prefixes.filter((p) => image.startsWith(p)).reduce((a, b) => (b.length > a.length ? b : a), "");
  return best.rewrite + image.slice(match.length);
}

/**
 * crossplane-runtime's `xpkg.ToDNSLabel`, byte for byte: lower-case letters and digits kept, `.`
 * `/` `:` `-` made a dash (not at the first byte, the 63rd or the last), everything else dropped,
 * the input cut at its 63rd byte, dashes trimmed.
 */
export function toDnsLabel(s: string): string {
  const bytes = Buffer.from(s, "utf8");
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39)) out += String.fromCharCode(b);
    if ((b === 0x2e || b === 0x2f || b === 0x3a || b === 0x2d) && i !== 0 && i !== 62 && i !== bytes.length - 1) out += "-";
    if (i === 62) break;
  }
  return out.replace(/^-+|-+$/g, "");
}

/** The repository path of an OCI repository reference (its registry host left out, as go-containerregistry's RepositoryStr). */
function repositoryPath(repository: string): string {
  const [first, ...rest] = repository.split("/");
  const isRegistry = rest.length > 0 && (first!.includes(".") || first!.includes(":") || first === "localhost");
  return isRegistry ? rest.join("/") : repository;
}

/**
 * The Function name the CLI gives a project's embedded function: its package repository is
 * `<project repository>_<folder>` and the Function is named after that repository's path made a
 * DNS label (`xpkg.upbound.io/upbound/configuration-app` and `xapp` make `upbound-configuration-appxapp`).
 */
export function embeddedFunctionName(project: Project, folder: string): string {
  return toDnsLabel(`${repositoryPath(project.repository)}_${folder}`);
}

export interface EmbeddedFunction {
  project: Project;
  /** Its folder name under the project's functions path. */
  name: string;
  /** Its folder relative to the repository root, with a trailing slash. */
  dir: string;
  source: "Directory" | "Tarball";
}

/**
 * The project function a Function name stands for. With `root`, the functions folders are listed
 * and named exactly as the CLI names them; without, the name is matched by the project's prefix.
 */
export function findEmbeddedFunction(projects: readonly Project[], name: string, root?: string): EmbeddedFunction | undefined {
  for (const project of projects) {
    const functionsDir = `${project.dir}${project.paths.functions}/`;
    const at = (folder: string, source: DeclaredFunction["source"] = "Directory"): EmbeddedFunction => ({
      project,
      name: folder,
      dir: `${functionsDir}${folder}/`,
      source,
    });
    const candidates =
      project.declared ?? (root ? folders(path.join(root, functionsDir)).map((folder) => ({ name: folder, source: "Directory" as const })) : undefined);
    if (candidates) {
      const hit = candidates.find((c) => embeddedFunctionName(project, c.name) === name);
      if (hit) return at(hit.name, hit.source);
      if (project.declared || candidates.length > 0) continue;
    }
    const prefix = toDnsLabel(repositoryPath(project.repository));
    if (prefix && name.startsWith(prefix) && name.length > prefix.length) return at(name.slice(prefix.length));
  }
  return undefined;
}

/** Every embedded function of the projects whose folder is there (declared ones, or every folder of the functions path). */
export function embeddedFunctions(projects: readonly Project[], root: string): { name: string; fn: EmbeddedFunction }[] {
  return projects.flatMap((project) => {
    const functionsDir = `${project.dir}${project.paths.functions}/`;
    const names = project.declared ?? folders(path.join(root, functionsDir)).map((name) => ({ name, source: "Directory" as const }));
    return names.map((d) => ({
      name: embeddedFunctionName(project, d.name),
      fn: { project, name: d.name, dir: `${functionsDir}${d.name}/`, source: d.source },
    }));
  });
}

function folders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
