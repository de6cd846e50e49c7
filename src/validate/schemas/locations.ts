import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Gvk, OpenAPISchema } from "./types.js";

export interface LocationResult {
  schema?: OpenAPISchema;
  /** Where the schema came from (a path or URL). */
  origin?: string;
  /** Locations that failed for another reason than "not there" (network, bad JSON). */
  failures: string[];
}

export interface LocationOptions {
  templates: string[];
  /** Where downloaded schemas are kept; undefined turns the disk cache off. */
  cacheDir?: string;
  kubernetesVersion?: string;
  strict?: boolean;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Where relative local templates resolve (the repository root; default: the working directory). */
  root?: string;
}

/**
 * kubeconform-style schema locations: each template is filled in for a GVK and tried in turn;
 * the first that yields a schema wins. Templates are local paths or http(s) URLs; downloads are
 * cached on disk by URL, and a location that fails is reported, never fatal.
 */
export class SchemaLocations {
  constructor(private readonly options: LocationOptions) {}

  async find(gvk: Gvk): Promise<LocationResult> {
    // The GVK comes from a manifest: `apiVersion: x/../../secret` must not walk a template out of its directory.
    if (!isKubernetesGvk(gvk)) return { failures: [] };
    const failures: string[] = [];
    for (const template of this.options.templates) {
      const where = expandTemplate(template, gvk, this.options);
      try {
        const text = isUrl(where) ? await this.download(where) : readLocal(template, where, this.options.root);
        if (text === undefined) continue;
        return { schema: parseJson(text) as OpenAPISchema, origin: where, failures };
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
      }
    }
    return { failures };
  }

  private async download(url: string): Promise<string | undefined> {
    const cached = this.cachePath(url);
    if (cached && fs.existsSync(cached)) return fs.readFileSync(cached, "utf8");
    const doFetch = this.options.fetch ?? fetch;
    const response = await doFetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const text = await response.text();
    parseJson(text);
    if (cached) {
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      fs.writeFileSync(cached, text);
    }
    return text;
  }

  private cachePath(url: string): string | undefined {
    if (!this.options.cacheDir) return undefined;
    return path.join(this.options.cacheDir, crypto.createHash("sha256").update(url).digest("hex").slice(0, 32) + ".json");
  }
}

const DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const GROUP = new RegExp(`^(${DNS_LABEL}(\\.${DNS_LABEL})*)?$`);
const VERSION = new RegExp(`^${DNS_LABEL}$`);
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/** Group, version and kind as Kubernetes names them (a DNS subdomain, a DNS label, a word). */
export function isKubernetesGvk(gvk: Gvk): boolean {
  return GROUP.test(gvk.group) && VERSION.test(gvk.version) && KIND.test(gvk.kind);
}

/**
 * A local template reads only below its fixed part (the directory before the first `{{`), once
 * symbolic links are resolved: `schemas/{{ .Group }}/…` with a link `schemas/evil.io -> /etc`
 * reads nothing.
 */
function readLocal(template: string, file: string, root = "."): string | undefined {
  const abs = path.resolve(root, file);
  if (!fs.existsSync(abs)) return undefined;
  const fixed = template.split("{{")[0]!;
  const boundary = path.resolve(root, template.includes("{{") ? fixed.replace(/[^/]*$/, "") || "." : fixed);
  const real = fs.realpathSync(abs);
  const realBoundary = fs.realpathSync(fs.existsSync(boundary) ? boundary : root);
  if (real !== realBoundary && !real.startsWith(realBoundary + path.sep))
    throw new Error(`resolves outside ${path.relative(root, boundary) || "."}/ (a symbolic link?); not read`);
  if (!fs.statSync(real).isFile()) throw new Error("not a regular file; not read");
  return fs.readFileSync(real, "utf8");
}

/** JSON.parse, with an error that says where but never quotes the text (it may be any file). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    throw new Error(`not valid JSON${at ? ` (at byte ${at[1]})` : ""}`);
  }
}

function isUrl(where: string): boolean {
  return /^https?:\/\//i.test(where);
}

/**
 * Fills in kubeconform's template variables. A template with no `{{` is a directory (or base
 * URL) holding files in kubeconform's default layout.
 */
export function expandTemplate(template: string, gvk: Gvk, options: Pick<LocationOptions, "kubernetesVersion" | "strict"> = {}): string {
  const version = options.kubernetesVersion ?? "master";
  const normalized = version === "master" ? "master" : version.startsWith("v") ? version : `v${version}`;
  const strictSuffix = options.strict ? "-strict" : "";
  const kindSuffix = gvk.group ? `-${gvk.group.split(".")[0].toLowerCase()}-${gvk.version.toLowerCase()}` : `-${gvk.version.toLowerCase()}`;
  const full = template.includes("{{")
    ? template
    : `${template.replace(/\/$/, "")}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
  const values: Record<string, string> = {
    Group: gvk.group,
    ResourceKind: gvk.kind.toLowerCase(),
    ResourceAPIVersion: gvk.version,
    KindSuffix: kindSuffix,
    NormalizedKubernetesVersion: normalized,
    StrictSuffix: strictSuffix,
  };
  return full.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (match, name: string) => values[name] ?? match);
}
