import type { Manifest } from "../../manifest/manifest.js";
import type { ExternalValidator } from "./kubernetes.js";
import { kubernetesValidator } from "./kubernetes.js";
import { loadBuiltinSchemas } from "./builtin.js";
import { isCrd, schemasFromCrd, type DefinedSchema } from "./crd.js";
import type { SchemaLocations } from "./locations.js";
import { isXrd, schemasFromXrd } from "./xrd.js";
import { sanitizeSchema, type SchemaDefect } from "./sanitize.js";
import { PackageLayout, parentDir } from "../../manifest/packages.js";
import { jsonEqual } from "../../manifest/fieldpath.js";
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
  /** The schema as the definition wrote it (to tell identical copies apart from real alternatives). */
  rawSchema?: OpenAPISchema;
}

type DefinitionLayer = "crd" | "crdLibrary" | "crdPackage" | "xrd" | "xrdLibrary";

export interface RegistryNote {
  message: string;
  manifest?: Manifest;
  severity: "error" | "warning" | "info";
}

/**
 * Every schema a run knows, keyed by group, version and kind (never by kind alone). Sources in
 * order, first hit wins: CRDs in the scanned paths then `--crds` then the packages the repository
 * depends on (src/packages), XRD-derived schemas (scanned,
 * then `--crds`), the built-in schemas (ours, then Kubernetes core kinds), then schema locations.
 * Library definitions (`--crds`) have layers of their own, so they may be added before or after
 * the repository's with the same result.
 */
export class SchemaRegistry {
  private readonly definitions: Record<DefinitionLayer, Map<string, SchemaEntry[]>> = {
    crd: new Map(),
    crdLibrary: new Map(),
    crdPackage: new Map(),
    xrd: new Map(),
    xrdLibrary: new Map(),
  };
  private readonly layers: Record<"builtin" | "location", Map<string, SchemaEntry>> = {
    builtin: new Map(),
    location: new Map(),
  };
  private readonly kubernetes = new Map<string, SchemaEntry | null>();
  private readonly pendingPackage = new Map<string, { manifest: Manifest; schema: DefinedSchema }>();
  /** The repository's CRDs and XRDs of a kind as one list, kept while no definition is added (lookups cache by its identity). */
  private readonly ownDefinitions = new Map<string, SchemaEntry[]>();
  private readonly missingFromLocations = new Set<string>();
  readonly notes: RegistryNote[] = [];

  constructor(
    private readonly locations?: SchemaLocations,
    /** Alternative packages may define one kind each: lookups from a file take its nearest definition. */
    private readonly layout: PackageLayout = new PackageLayout([]),
  ) {}

  /**
   * Registers whatever schemas a manifest defines (CRDs and XRDs); returns how many. A second
   * definition of a GVK in the repository is noted; in a `library` (CRDs given with --crds often
   * overlap) it is not.
   */
  addDefinitions(manifest: Manifest, options: { library?: boolean; fromPackage?: boolean } = {}): number {
    const library = options.library === true || options.fromPackage === true;
    if (isCrd(manifest) && options.fromPackage) return this.addPending(manifest);
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
      if (this.fromLayers(key, undefined)) continue;
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
      } else this.missingFromLocations.add(key);
    }
    return failures;
  }

  /** The schema of a kind; with `near` (a repository file), the definition nearest to that file. */
  get(gvk: Gvk, near?: string): SchemaEntry | undefined {
    const key = gvkKey(gvk);
    return this.fromLayers(key, near) ?? this.kubernetes.get(key) ?? this.layers.location.get(key) ?? undefined;
  }

  /**
   * The definitions a file's object may be checked against when the repository offers several
   * equally near (alternative packages, vendored copies of one CRD): the nearest first, then the
   * others tied with it; and the built-in schema of the kind, if composition-ci has one besides.
   */
  alternatives(gvk: Gvk, near: string): { tied: SchemaEntry[]; builtin?: SchemaEntry } {
    const key = gvkKey(gvk);
    const builtin = this.layers.builtin.get(key);
    const entries = this.definitionsOf(key);
    if (!entries) return { tied: [] };
    const tied = entries.length === 1 ? entries : this.layout.nearestAll(entries, (e) => e.origin, near);
    return { tied: [...tied], ...(builtin ? { builtin } : {}) };
  }

  /**
   * Whether a definition certainly goes with a file's objects: a built-in, a package's, or the
   * repository's own unless a package declaration that could not be fetched is nearer the file
   * (a test's mock CRD in another tree while the file's own tree installs the real provider).
   */
  isRelated(entry: SchemaEntry, file: string): boolean {
    if (!entry.definedBy || (entry.source !== "crd" && entry.source !== "xrd") || !this.unavailablePackages.length) return true;
    const depth = sharedDepth(file, entry.origin);
    return !this.unavailablePackages.some((declared) => sharedDepth(file, declared) > depth);
  }

  /**
   * Files declaring packages whose CRDs could not be fetched (a Provider object offline): a kind
   * they may define is checked against the repository's own definition only as a guess when
   * such a declaration is nearer the checked file than that definition.
   */
  readonly unavailablePackages: string[] = [];

  has(gvk: Gvk): boolean {
    return this.get(gvk) !== undefined;
  }

  /** All entries that came from definitions in the repo and --crds (not from packages: their problems are not the repo's). */
  defined(): SchemaEntry[] {
    const { crd, crdLibrary, xrd, xrdLibrary } = this.definitions;
    return [crd, crdLibrary, xrd, xrdLibrary].flatMap((layer) => [...layer.values()].flat());
  }

  /**
   * A package's CRD (a large provider has hundreds): its kinds are noted now, its schemas are
   * prepared only when a manifest or rendered object of one of them is looked up.
   */
  private addPending(manifest: Manifest): number {
    const defined = schemasFromCrd(manifest);
    for (const d of defined) {
      const key = gvkKey(d.gvk);
      if (!this.pendingPackage.has(key)) this.pendingPackage.set(key, { manifest, schema: d });
    }
    return defined.length;
  }

  private fromPackageLayer(key: string): void {
    const pending = this.pendingPackage.get(key);
    if (!pending) return;
    this.pendingPackage.delete(key);
    this.addAll("crdPackage", [pending.schema], pending.manifest, true);
  }

  private fromLayers(key: string, near: string | undefined): SchemaEntry | undefined {
    const entries = this.definitionsOf(key);
    if (!entries) return this.layers.builtin.get(key);
    return near === undefined || entries.length === 1 ? entries[0] : this.layout.nearest(entries, (e) => e.origin, near);
  }

  /**
   * The definitions of a kind a lookup chooses among: the repository's own CRDs and XRDs together
   * (the nearest wins, whichever kind of definition it is: a test's mock CRD elsewhere never
   * shadows the XRD beside an XR; CRDs first on a tie), else `--crds`, else the packages'
   * CRDs, else `--crds` XRDs.
   */
  private definitionsOf(key: string): SchemaEntry[] | undefined {
    this.fromPackageLayer(key);
    let own = this.ownDefinitions.get(key);
    if (!own) this.ownDefinitions.set(key, (own = [...(this.definitions.crd.get(key) ?? []), ...(this.definitions.xrd.get(key) ?? [])]));
    if (own.length) return own;
    for (const layer of [this.definitions.crdLibrary, this.definitions.crdPackage, this.definitions.xrdLibrary]) {
      const entries = layer.get(key);
      if (entries) return entries;
    }
    return undefined;
  }

  /**
   * Two different definitions of one kind: in one package (or one directory) that is a conflict
   * the cluster would resolve by whichever is applied last; in alternative packages it is how
   * repositories offer a choice, and each manifest uses its nearest definition.
   */
  private duplicateNote(gvk: Gvk, manifest: Manifest, first: SchemaEntry): RegistryNote {
    // Installed together for certain: one file, or one explicit package. One directory alone holds
    // alternatives as often (a test applies one fixture or the other): a warning.
    const together =
      first.origin === manifest.file || (this.layout.packageOf(manifest.file) !== undefined && this.layout.samePackage(first.origin, manifest.file));
    if (together)
      return {
        manifest,
        severity: "error",
        message: `${gvkLabel(gvk)} is also defined, differently, in ${first.origin} in the same package; the cluster keeps whichever is applied last`,
      };
    if (parentDir(first.origin) === parentDir(manifest.file)) {
      return {
        manifest,
        severity: "warning",
        message: `${gvkLabel(gvk)} is also defined, differently, in ${first.origin} in the same directory: if both are applied, the cluster keeps whichever is applied last`,
      };
    }
    return {
      manifest,
      severity: "info",
      message: `${gvkLabel(gvk)} is also defined in ${first.origin}, in another package; each manifest is checked against the definition nearest to it`,
    };
  }

  private addAll(layer: DefinitionLayer, defined: DefinedSchema[], manifest: Manifest, quiet: boolean): number {
    const map = this.definitions[layer];
    for (const d of defined) {
      const key = gvkKey(d.gvk);
      const existing = map.get(key) ?? [];
      if (existing.some((e) => e.definedBy === manifest)) continue;
      if (existing.some((e) => jsonEqual(e.rawSchema, d.schema))) continue; // an identical copy (vendored twice) changes nothing
      if (!quiet && existing.length) this.notes.push(this.duplicateNote(d.gvk, manifest, existing[0]!));
      const defects: SchemaDefect[] = [];
      const schema = sanitizeSchema(d.schema, defects);
      const entry: SchemaEntry = {
        gvk: d.gvk,
        source: layer.startsWith("crd") ? "crd" : "xrd",
        origin: manifest.file,
        schema,
        structural: true,
        definedBy: manifest,
        definedAt: d.pointer,
        rawSchema: d.schema,
      };
      if (defects.length) entry.defects = defects;
      map.set(key, [...existing, entry]);
      this.ownDefinitions.delete(key);
    }
    return defined.length;
  }
}

/** How many leading directories two repository files share. */
function sharedDepth(a: string, b: string): number {
  const x = a.split("/").slice(0, -1);
  const y = b.split("/").slice(0, -1);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}
