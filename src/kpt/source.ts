import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../manifest/manifest.js";
import { toPointer } from "../manifest/pointer.js";
import type { Finding, Severity } from "../core/finding.js";
import type { JsonObject } from "../core/json.js";
import type { NotRendered, RenderedSource } from "../rendered/source.js";
import { findingAt } from "../validate/findings.js";
import type { KrmResult } from "./functions/types.js";
import { stepName } from "./kptfile.js";
import { readPackage, type KptPackage } from "./package.js";
import { NotRenderedStop, originKey, renderPackage, RenderStop, type FunctionRun, type PackageRender } from "./render.js";
import { annotation, fileOf, isLocalConfig, kindOf, nameOf, namespaceOf, PACKAGE_PATH, withoutBookkeeping } from "./resources.js";
import { KptRuntimes, type KptRuntimeOptions } from "./runtime.js";
import { isObject } from "./yaml.js";

/** What rendered a kpt package, in reports. */
export const KPT_VIA = "kpt fn render";

/**
 * One kpt package (a top-level one, with its subpackages) as a rendered source: the printed
 * stream is the package as `kpt fn render` leaves it on disk (every resource, ordered by file and
 * index, kpt's bookkeeping annotations gone); the objects are those `kpt live apply` would apply
 * (local config left out), known across renders by kind, namespace and name.
 */
export async function renderKptSource(root: string, pkg: KptPackage, options: KptRuntimeOptions): Promise<RenderedSource> {
  const runtimes = new KptRuntimes(options);
  let render: PackageRender;
  try {
    render = await renderPackage(root, pkg.dir, runtimes);
  } finally {
    runtimes.close();
  }
  return sourceOf(pkg.kptfile, render);
}

export function sourceOf(source: Manifest, render: PackageRender): RenderedSource {
  const found = [...render.findings, ...render.runs.flatMap((run) => resultFindings(run, render))];
  const stop = render.stop;
  if (stop instanceof NotRenderedStop) {
    const why: NotRendered = {
      what: stop.what,
      reason: stop.reason,
      fix: stop.fix,
      severity: "warning",
      at: { manifest: stop.at.pkg.kptfile, pointer: stop.at.pointer },
    };
    return { source, via: KPT_VIA, documents: [], objects: [], keys: [], ok: false, findings: found, notRendered: [why] };
  }
  if (stop instanceof RenderStop) {
    return { source, via: KPT_VIA, documents: [], objects: [], keys: [], ok: false, findings: stop.finding ? [...found, stop.finding] : found };
  }
  const documents = render.resources
    .map((r) => ({ r, file: fileOf(r) }))
    .sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : Number(a.file.index || 0) - Number(b.file.index || 0)))
    .map(({ r }) => withoutBookkeeping(r));
  const objects = documents.filter((o) => !isLocalConfig(o));
  return { source, via: KPT_VIA, documents, objects, keys: objectKeys(objects), ok: true, findings: found };
}

/** `Kind/name`, or `Kind/namespace/name`; a repeat gets `#2`, `#3`. */
export function objectKeys(objects: JsonObject[]): string[] {
  const seen = new Map<string, number>();
  return objects.map((o) => {
    const ns = namespaceOf(o);
    const base = `${kindOf(o)}/${ns ? `${ns}/` : ""}${nameOf(o)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  });
}

const SEVERITY: Record<string, Severity> = { error: "error", warning: "warning", info: "info", "": "info" };

/**
 * A function's results as findings: on the resource a result names (by resourceRef, else by
 * file and index) at its field when the field path resolves, else on the step in the Kptfile.
 */
function resultFindings(run: FunctionRun, render: PackageRender): Finding[] {
  return run.results.map((r) => {
    const severity = SEVERITY[r.severity ?? ""] ?? "info";
    const origin = resultOrigin(r, run, render);
    const step = `${run.fn.kind} ${stepName(run.fn)}`;
    if (origin) {
      const pointer = fieldPointer(origin.object, r.field?.path);
      return findingAt(origin.manifest, pointer, "render/kpt-result", severity, `${r.message} (${step} of ${run.pkg.kptfile.file}, ${run.name})`);
    }
    const where = r.file?.path
      ? ` [${r.file.path}${r.file.index ? `#${r.file.index}` : ""}${r.field?.path ? ` ${r.field.path}` : ""}]`
      : r.field?.path
        ? ` [${r.field.path}]`
        : "";
    return findingAt(run.pkg.kptfile, run.fn.pointer, "render/kpt-result", severity, `${step} (${run.name}): ${r.message}${where}`);
  });
}

function resultOrigin(r: KrmResult, run: FunctionRun, render: PackageRender): { manifest: Manifest; object: unknown } | undefined {
  let item: JsonObject | undefined;
  const ref = r.resourceRef;
  if (ref && (ref.kind || ref.name)) {
    item = run.input.find(
      (o) =>
        (!ref.kind || kindOf(o) === ref.kind) &&
        (!ref.name || nameOf(o) === ref.name) &&
        (!ref.namespace || namespaceOf(o) === ref.namespace) &&
        (!ref.apiVersion || o.apiVersion === ref.apiVersion),
    );
  }
  if (!item && r.file?.path) {
    const index = String(r.file.index ?? 0);
    const candidates = run.input.filter(
      (o) => path.posix.normalize(fileOf(o).path) === path.posix.normalize(r.file!.path!) && (fileOf(o).index || "0") === index,
    );
    item = candidates.find((o) => annotation(o, PACKAGE_PATH) === run.pkg.dir) ?? candidates[0];
  }
  if (!item) return undefined;
  const { path: file, index } = fileOf(item);
  const read = render.origins.get(originKey(annotation(item, PACKAGE_PATH) ?? run.pkg.dir, file, index));
  return read ? { manifest: read.manifest, object: read.manifest.object } : undefined;
}

/** A result's field path (`spec.template.spec.containers[0].image`, `[name=x]` entries) as a pointer into the object; what does not resolve stops there. */
export function fieldPointer(object: unknown, fieldPath: string | undefined): string {
  if (!fieldPath) return "";
  const segments: (string | number)[] = [];
  let cur: unknown = object;
  const parts = fieldPath.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  for (const raw of parts) {
    if (raw.startsWith("[")) {
      const inner = raw.slice(1, -1);
      if (!Array.isArray(cur)) break;
      let i = -1;
      if (/^\d+$/.test(inner)) i = Number(inner);
      else if (inner.includes("=")) {
        const [k, v] = [inner.slice(0, inner.indexOf("=")), inner.slice(inner.indexOf("=") + 1)];
        i = cur.findIndex((e) => isObject(e) && String(e[k]) === v);
      }
      if (i < 0 || i >= cur.length) break;
      segments.push(i);
      cur = cur[i];
    } else {
      if (!isObject(cur) || !(raw in cur)) break;
      segments.push(raw);
      cur = cur[raw];
    }
  }
  return toPointer(segments);
}

/** The package a Kptfile manifest of a kpt source stands for. */
const packages = new WeakMap<Manifest, KptPackage>();

export function sourcePackage(m: Manifest): KptPackage | undefined {
  return packages.get(m);
}

export function packageSource(root: string, rel: string): KptPackage {
  const pkg = readPackage(root, path.join(root, rel));
  packages.set(pkg.kptfile, pkg);
  return pkg;
}

/** Every file below a package (subpackages included), relative to the root: a change to any may change its render. */
export function packageFiles(root: string, pkg: KptPackage): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".git" && e.name !== "node_modules") walk(abs);
      } else out.add(path.relative(root, abs).split(path.sep).join("/"));
    }
  };
  walk(pkg.dir);
  return out;
}
