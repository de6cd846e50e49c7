// kpt/: kpt packages read as kpt reads them, their Kptfiles checked, their pipelines rendered; one door, this file.
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import type { RenderedSource } from "../rendered/source.js";
import { failedInternally } from "../rendered/source.js";
import type { Finding } from "../core/finding.js";
import { guardedAsync } from "../validate/guard.js";
import { pipelineFunctions, readCheckedPackage, stepName } from "./kptfile.js";
import { directSubpackages, readPackage, topLevelPackages } from "./package.js";
import { KptRuntimes, NotRunnable, type KptRuntimeOptions } from "./runtime.js";
import { packageFiles, packageSource, renderKptSource, sourcePackage } from "./source.js";
import { porchVariants, renderPorchVariant } from "./porch.js";

/**
 * kpt packages, the one door of `src/kpt/`: which packages a repository has (for `render --all`,
 * `check`, `diff` and `drift`), rendering each as `kpt fn render` does, the files each renders
 * from, and `kpt pkg update`'s preview (update.ts, through `composition-ci kpt update-preview`).
 */

export { KPT_VIA } from "./source.js";
export { kptBuiltinVersionChanges } from "./builtin-versions.js";
export { porchVariants, porchVariantOf, porchSourceFiles, PORCH_VIA } from "./porch.js";
export { updatePreview, type UpdatePreview } from "./update.js";

export interface KptRenderOptions extends KptRuntimeOptions {
  root: string;
  /** The checkout whose git remotes decide which Porch upstream packages are in this repository (default: root). */
  gitRoot?: string;
  /** Which sources to render (all when absent); a package the selector never heard of renders. */
  select?: (source: Manifest) => boolean;
}

/**
 * What kpt takes from a read of the repository (a RepoIndex or a ReadResult): its manifests, and
 * what discovery saw, the directories walked and whether each holds a Kptfile (see topLevelPackages).
 */
export interface KptRepo {
  readonly manifests: readonly Manifest[];
  readonly kptfileDirs?: ReadonlyMap<string, boolean>;
}

/** The Kptfile manifests of the repository's top-level packages, the same objects for one read and root. */
const cache = new WeakMap<KptRepo, Map<string, Manifest[]>>();
/** Kptfile manifests handed out by kptSources (a selector built from them knows them). */
const handedOut = new WeakSet<Manifest>();

/**
 * The top-level kpt packages among the directories of `manifests` (and their parents), as source
 * manifests: each package's Kptfile. One read and root give the same objects every time.
 */
export function kptSources(repo: KptRepo, root: string, mark = false): Manifest[] {
  const abs = path.resolve(root);
  let byRoot = cache.get(repo);
  if (!byRoot) cache.set(repo, (byRoot = new Map()));
  let sources = byRoot.get(abs);
  if (!sources) {
    sources = topLevelPackages(
      abs,
      repo.manifests.map((m) => m.file),
      repo.kptfileDirs,
    ).map((rel) => packageSource(abs, rel).kptfile);
    byRoot.set(abs, sources);
  }
  if (mark) for (const s of sources) handedOut.add(s);
  return sources;
}

/** Renders every top-level kpt package of the repository. Never throws for bad input. */
export async function renderKptPackages(repo: KptRepo, options: KptRenderOptions): Promise<RenderedSource[]> {
  const root = path.resolve(options.root);
  const out: RenderedSource[] = [];
  for (const m of kptSources(repo, root)) {
    if (options.select && handedOut.has(m) && !options.select(m)) continue;
    const pkg = sourcePackage(m)!;
    const findings: Finding[] = [];
    const rendered = await guardedAsync(m, "rendering", findings, () => renderKptSource(root, pkg, options));
    out.push(rendered ?? failedInternally(m, findings));
  }
  for (const v of porchVariants(repo.manifests, root, options.gitRoot)) {
    if (options.select && !options.select(v.variant)) continue;
    const findings: Finding[] = [];
    const rendered = await guardedAsync(v.variant, "rendering", findings, () => renderPorchVariant(root, v, repo.manifests, options));
    out.push(rendered ?? failedInternally(v.variant, findings));
  }
  return out;
}

/**
 * The checks of every Kptfile of the repository's kpt packages (subpackages too), as `kpt fn
 * render` makes them before it runs anything: what `validate` reports without rendering. Rendering
 * makes the same findings again; check reports them once.
 */
export function kptfileFindings(repo: KptRepo, root: string): Finding[] {
  const abs = path.resolve(root);
  const out: Finding[] = [];
  // Only packages holding files this run reads: not ignored directories, nor vendored ones.
  const read = new Set<string>();
  for (const m of repo.manifests) for (let dir = path.posix.dirname(m.file); !read.has(dir); dir = path.posix.dirname(dir)) read.add(dir);
  const visit = (dir: string): void => {
    // Its resources unreadable: rendering reports that (readFailure), validate only the Kptfile.
    const { pkg, check } = readCheckedPackage(abs, dir);
    out.push(...check.findings);
    if (pkg.readError) return;
    for (const sub of directSubpackages(dir)) if (read.has(path.relative(abs, sub).split(path.sep).join("/"))) visit(sub);
  };
  for (const rel of topLevelPackages(
    abs,
    repo.manifests.map((m) => m.file),
    repo.kptfileDirs,
  ))
    visit(path.join(abs, rel));
  return out;
}

/** What `functions pull` did with one image step of a Kptfile. */
export interface KptPrefetch {
  /** The Kptfile, relative to the root. */
  file: string;
  step: string;
  outcome: "pulled" | "builtin" | "skipped" | "failed";
  /** The image pulled (reference, platform, digest), or why it was skipped or failed. */
  detail: string;
}

/**
 * Pulls the function images of every kpt package's pipeline (subpackages too) into the package
 * cache, so that a later render, offline or not, makes no registry request: trusted images only,
 * as rendering would run them. Never throws for bad input.
 */
export async function prefetchKptImages(manifests: readonly Manifest[], options: KptRuntimeOptions & { root: string }): Promise<KptPrefetch[]> {
  const root = path.resolve(options.root);
  const runtimes = new KptRuntimes(options);
  const out: KptPrefetch[] = [];
  const visit = async (dir: string): Promise<void> => {
    const pkg = readPackage(root, dir);
    const file = pkg.kptfile.file;
    for (const fn of pipelineFunctions(pkg.kptfile.object)) {
      if (typeof fn.spec.exec === "string" && fn.spec.exec) continue;
      const step = stepName(fn);
      try {
        const image = await runtimes.prefetch(fn.spec as { image?: string; tag?: string });
        out.push(
          image === "builtin"
            ? { file, step, outcome: "builtin", detail: "built in" }
            : { file, step, outcome: "pulled", detail: `${image.reference} ${image.platform.os}/${image.platform.architecture} ${image.digest.slice(0, 19)}` },
        );
      } catch (err) {
        const skipped = err instanceof NotRunnable && err.untrusted;
        out.push({ file, step, outcome: skipped ? "skipped" : "failed", detail: (err as Error).message });
      }
    }
    for (const sub of directSubpackages(dir)) await visit(sub);
  };
  try {
    for (const rel of topLevelPackages(
      root,
      manifests.map((m) => m.file),
    ))
      await visit(path.join(root, rel));
  } finally {
    runtimes.close();
  }
  return out;
}

/** The files a kpt source renders from: everything below its package (Kptfiles, function configs, subpackages). */
export function kptSourceFiles(source: Manifest): Set<string> | undefined {
  const pkg = sourcePackage(source);
  if (!pkg) return undefined;
  const root = pkg.rel === "." ? pkg.dir : path.resolve(pkg.dir, ...pkg.rel.split("/").map(() => ".."));
  return packageFiles(root, pkg);
}

/** Whether a manifest is a kpt source (a top-level package's Kptfile). */
export function isKptSource(m: Manifest): boolean {
  return sourcePackage(m) !== undefined;
}
