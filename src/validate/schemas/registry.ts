import type { Manifest } from "../../manifest/manifest.js";
import type { ExternalValidator } from "./kubernetes.js";
import { kubernetesValidator } from "./kubernetes.js";
import { loadBuiltinSchemas } from "./builtin.js";
import { isCrd, schemasFromCrd, type DefinedSchema } from "./crd.js";
import type { SchemaLocations } from "./locations.js";
import { isXrd, schemasFromXrd } from "./xrd.js";
import { sanitizeSchema, type SchemaDefect } from "./sanitize.js";
import { gvkKey, gvkLabel, type Gvk, type OpenAPISchema, type SchemaSource } from "./types.js";

export interface SchemaEntry {
  gvk: Gvk;
  source: SchemaSource;
  /** A file, URL or `built-in`, for messages. */
  origin: string;
  /** The structural schema (CRD, XRD, built-in or location); absent for Kubernetes core kinds. */
  schema?: OpenAPISchema;
  /** Structural (CRD) semantics apply: unknown fields are errors unless preserved. */
  structural: boolean;
  external?: ExternalValidator;
  /** The manifest that defined it (a CRD or XRD in the repo), if any. */
  definedBy?: Manifest;
  definedAt?: string;
  /** Parts of the schema left out because they were malformed (reported on the definition). */
  defects?: SchemaDefect[];
}

type DefinitionLayer = "crd" | "crdLibrary" | "xrd" | "xrdLibrary";

export interface RegistryNote {
  message: string;
  manifest?: Manifest;
}

/**
 * Every schema a run knows, keyed by group, version and kind (never by kind alone). Sources in
 * order, first hit wins: CRDs in the scanned paths then `--crds`, XRD-derived schemas (scanned,
 * then `--crds`), the built-in schemas (ours, then Kubernetes core kinds), then schema locations.
 * Library definitions (`--crds`) have layers of their own, so they may be added before or after
 * the repository's with the same result.
 */
export class SchemaRegistry {
  private readonly layers: Record<DefinitionLayer | "builtin" | "location", Map<string, SchemaEntry>> = {
    crd: new Map(),
    crdLibrary: new Map(),
    xrd: new Map(),
    xrdLibrary: new Map(),
    builtin: new Map(),
    location: new Map(),
  };
  private readonly kubernetes = new Map<string, SchemaEntry | null>();
  private readonly missingFromLocations = new Set<string>();
  readonly notes: RegistryNote[] = [];

  constructor(private readonly locations?: SchemaLocations) {}

  /**
   * Registers whatever schemas a manifest defines (CRDs and XRDs); returns how many. A second
   * definition of a GVK in the repository is noted; in a `library` (CRDs given with --crds often
   * overlap) it is not.
   */
  addDefinitions(manifest: Manifest, options: { library?: boolean } = {}): number {
    const library = options.library === true;
    if (isCrd(manifest)) return this.addAll(library ? "crdLibrary" : "crd", schemasFromCrd(manifest), manifest, library);
    if (isXrd(manifest)) return this.addAll(library ? "xrdLibrary" : "xrd", schemasFromXrd(manifest), manifest, library);
    return 0;
  }

  addBuiltins(dir?: string): void {
    for (const b of loadBuiltinSchemas(dir)) {
      this.layers.builtin.set(gvkKey(b.gvk), { gvk: b.gvk, source: "builtin", origin: b.file, schema: b.schema, structural: true });
    }
  }

  /** Loads what the synchronous lookup needs: Kubernetes core validators and location schemas. */
  async prepare(gvks: Iterable<Gvk>): Promise<string[]> {
    const failures: string[] = [];
    for (const gvk of gvks) {
      const key = gvkKey(gvk);
      if (this.fromLayers(key)) continue;
      if (!this.kubernetes.has(key)) {
        const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
        const external = await kubernetesValidator(apiVersion, gvk.kind);
        this.kubernetes.set(key, external ? { gvk, source: "kubernetes", origin: "kubernetes-models", structural: false, external } : null);
      }
      if (this.kubernetes.get(key) || !this.locations || this.layers.location.has(key) || this.missingFromLocations.has(key)) continue;
      const found = await this.locations.find(gvk);
      failures.push(...found.failures.map((f) => `schema location for ${gvkLabel(gvk)}: ${f}`));
      if (found.schema) {
        const defects: SchemaDefect[] = [];
        const schema = sanitizeSchema(found.schema, defects, { jsonSchema: true });
        failures.push(...defects.map((d) => `schema for ${gvkLabel(gvk)} from ${found.origin} at ${d.path}: ${d.message}`));
        this.layers.location.set(key, { gvk, source: "location", origin: found.origin!, schema, structural: false });
      }
      else this.missingFromLocations.add(key);
    }
    return failures;
  }

  get(gvk: Gvk): SchemaEntry | undefined {
    const key = gvkKey(gvk);
    return this.fromLayers(key) ?? this.kubernetes.get(key) ?? this.layers.location.get(key) ?? undefined;
  }

  has(gvk: Gvk): boolean {
    return this.get(gvk) !== undefined;
  }

  /** All entries that came from definitions in the repo (for rules that cross-reference them). */
  defined(): SchemaEntry[] {
    const { crd, crdLibrary, xrd, xrdLibrary } = this.layers;
    return [...crd.values(), ...crdLibrary.values(), ...xrd.values(), ...xrdLibrary.values()];
  }

  private fromLayers(key: string): SchemaEntry | undefined {
    const { crd, crdLibrary, xrd, xrdLibrary, builtin } = this.layers;
    return crd.get(key) ?? crdLibrary.get(key) ?? xrd.get(key) ?? xrdLibrary.get(key) ?? builtin.get(key);
  }

  private addAll(layer: DefinitionLayer, defined: DefinedSchema[], manifest: Manifest, quiet: boolean): number {
    const map = this.layers[layer];
    for (const d of defined) {
      const key = gvkKey(d.gvk);
      const existing = map.get(key);
      if (existing) {
        if (!quiet && (existing.definedBy?.file !== manifest.file || existing.definedBy?.docIndex !== manifest.docIndex)) {
          this.notes.push({ manifest, message: `${gvkLabel(d.gvk)} is also defined in ${existing.origin}; the first definition is used` });
        }
        continue;
      }
      const defects: SchemaDefect[] = [];
      const schema = sanitizeSchema(d.schema, defects);
      const entry: SchemaEntry = { gvk: d.gvk, source: layer.startsWith("crd") ? "crd" : "xrd", origin: manifest.file, schema, structural: true, definedBy: manifest, definedAt: d.pointer };
      if (defects.length) entry.defects = defects;
      map.set(key, entry);
    }
    return defined.length;
  }
}
