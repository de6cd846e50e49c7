import path from "node:path";
import type { Manifest } from "./manifest.js";

/**
 * Files that hold objects which are not meant to be applied as they are: test assertions (partial
 * objects a test expects to find), templates a test tool fills in, and `crossplane render`
 * outputs kept as golden files. Checking them as manifests gives false errors; rendering them as
 * sources gives phantom sources. Tools' own files (Kustomization, kuttl and chainsaw tests,
 * project files) are not cluster objects either: they need no schema.
 */

/** Groups of tools' own files: read by a tool, never applied to a cluster. */
const TOOL_GROUPS = new Set([
  "kustomize.config.k8s.io",
  "kuttl.dev",
  "chainsaw.kyverno.io",
  "meta.dev.upbound.io",
  "dev.crossplane.io",
  "test.crossplane.io",
  "kpt.dev",
  "fn.kpt.dev",
  "config.kubernetes.io",
  "render.crossplane.io",
  "backstage.io",
  "scaffolder.backstage.io",
  "kind.x-k8s.io",
]);

/**
 * Whether an object is a tool's own file rather than a cluster object: a tool group's kind, a
 * kubeconfig (`v1 Config`), or an object kpt and Config Sync never apply
 * (`config.kubernetes.io/local-config` set to anything but "" or "false": a function's config,
 * read by the function, never by an API server).
 */
export function isToolObject(m: Manifest): boolean {
  if (TOOL_GROUPS.has(m.group)) return true;
  if (m.apiVersion === "v1" && m.kind === "Config") return true;
  return isLocalConfig(m.object);
}

/** kpt's and Config Sync's mark of an object that is configuration for a tool, never applied. */
export function isLocalConfig(object: unknown): boolean {
  const annotations = (object as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata?.annotations;
  if (annotations === null || typeof annotations !== "object") return false;
  const value = annotations["config.kubernetes.io/local-config"];
  return value !== undefined && value !== null && value !== "" && String(value) !== "false";
}

/** kuttl's assert and error files: `01-assert.yaml`, `assert-db.yaml`, `02-errors-x.yaml`. */
export function isKuttlAssertion(file: string): boolean {
  return /^(\d+-)?(assert|errors)(-[^.]*)?\.ya?ml$/.test(path.posix.basename(file));
}

/** The annotation naming a composed resource in its Composition (the key the pipeline, the diff and the reports know it by). */
export const COMPOSITION_RESOURCE_NAME = "crossplane.io/composition-resource-name";

/**
 * A `crossplane render` output stream: the XR first (no composition-resource-name), then composed
 * resources that carry the annotation, and possibly Result and Context documents.
 */
export function isRenderOutput(documents: unknown[]): boolean {
  const objects = documents.filter(
    (d): d is { kind?: unknown; apiVersion?: unknown; metadata?: { annotations?: Record<string, unknown> }; status?: unknown } =>
      typeof d === "object" && d !== null,
  );
  if (objects.length < 2) return false;
  const annotated = (o: (typeof objects)[number]) => typeof o.metadata?.annotations?.[COMPOSITION_RESOURCE_NAME] === "string";
  const [first, ...rest] = objects;
  if (annotated(first!)) return false;
  const composed = rest.filter(annotated).length;
  const renderDocs = rest.filter((o) => typeof o.apiVersion === "string" && o.apiVersion.startsWith("render.crossplane.io/")).length;
  return composed + renderDocs === rest.length && (composed > 0 || renderDocs > 0);
}

const CHAINSAW_OPERATIONS = ["apply", "assert", "error", "create", "update", "patch", "delete"];

/**
 * The files chainsaw Tests use: each step's operations name them (`file: ../common/db.yaml`),
 * relative to the test's own file. Chainsaw fills them in from bindings (`($namespace)`), so they
 * are templates, and its assertions are partial objects.
 */
/** Directory names that hold tests and their data, not the repository's objects. */
const TEST_TREE = /^(tests?|e2e|testdata|test-data|fixtures?|chainsaw)$/i;

export function chainsawFiles(manifests: Manifest[]): Set<string> {
  const files = new Set<string>();
  for (const test of manifests) {
    if (test.group !== "chainsaw.kyverno.io" || test.kind !== "Test") continue;
    const dir = path.posix.dirname(test.file);
    for (const step of asList((test.object.spec as { steps?: unknown } | undefined)?.steps)) {
      for (const phase of ["try", "catch", "finally", "cleanup"]) {
        for (const op of asList((step as Record<string, unknown>)?.[phase])) {
          for (const name of CHAINSAW_OPERATIONS) {
            const file = ((op as Record<string, unknown>)?.[name] as { file?: unknown } | undefined)?.file;
            if (typeof file !== "string" || /^[a-z]+:\/\//.test(file)) continue;
            const target = path.posix.normalize(path.posix.join(dir, file));
            // A file outside the test's own directory and outside every test tree
            // (`../../package/xrd.yaml`) is the repository's, which the test applies too: it stays a manifest.
            const insideTest = target.startsWith(dir === "." ? "" : `${dir}/`) && !target.startsWith("../");
            if (insideTest || target.split("/").some((segment) => TEST_TREE.test(segment))) files.add(target);
          }
        }
      }
    }
  }
  return files;
}

/** A kustomization file, which may omit apiVersion and kind. */
export function isKustomizationFile(file: string): boolean {
  return /^(kustomization\.ya?ml|Kustomization)$/.test(path.posix.basename(file));
}

/**
 * The patch files a kustomization names (`patchesStrategicMerge`, `patches[].path`,
 * `patchesJson6902[].path`), relative to its own file, and everything in a `patches/` directory
 * beside it (kubebuilder keeps its optional patches there, commented out of the list): partial
 * objects kustomize merges into others.
 */
export function kustomizePatchFiles(kustomizations: { file: string; document: unknown }[], allFiles: Iterable<string>): Set<string> {
  const files = new Set<string>();
  const patchDirs: string[] = [];
  for (const { file, document } of kustomizations) {
    const dir = path.posix.dirname(file);
    patchDirs.push(dir === "." ? "patches/" : `${dir}/patches/`);
    const add = (p: unknown) => {
      if (typeof p === "string" && !p.includes("\n") && !/^[a-z]+:\/\//.test(p)) files.add(path.posix.normalize(path.posix.join(dir, p)));
    };
    const object = (typeof document === "object" && document !== null ? document : {}) as Record<string, unknown>;
    for (const p of asList(object.patchesStrategicMerge)) add(p);
    for (const p of [...asList(object.patches), ...asList(object.patchesJson6902)]) add((p as { path?: unknown } | null)?.path);
  }
  for (const f of allFiles) if (patchDirs.some((d) => f.startsWith(d))) files.add(f);
  return files;
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The files a kustomization lists as `resources` (directories and URLs left out), relative to the repository. */
export function kustomizeResourceFiles(kustomizations: { file: string; document: unknown }[]): Set<string> {
  const files = new Set<string>();
  for (const { file, document } of kustomizations) {
    const dir = path.posix.dirname(file);
    const object = (typeof document === "object" && document !== null ? document : {}) as Record<string, unknown>;
    for (const r of [...asList(object.resources), ...asList(object.bases)]) {
      if (typeof r === "string" && /\.(ya?ml|json)$/i.test(r) && !/^[a-z]+:\/\//.test(r)) files.add(path.posix.normalize(path.posix.join(dir, r)));
    }
  }
  return files;
}
