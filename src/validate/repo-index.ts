import type { UnreadObject } from "../manifest/glimpse.js";
import { groupOf, Manifest } from "../manifest/manifest.js";
import { isCrd } from "./schemas/crd.js";
import { isXrd, schemasFromXrd } from "./schemas/xrd.js";
import { gvkKey, type OpenAPISchema } from "./schemas/types.js";
import { isPlainObject } from "../core/json.js";
import { guarded } from "./guard.js";
import { PackageLayout, isPackageMetadata } from "../manifest/packages.js";
import { packagePath } from "../manifest/package-ref.js";
import type { Finding } from "../core/finding.js";
import { findEmbeddedFunction, projectsOf, type EmbeddedFunction, type Project } from "../project/index.js";

/**
 * Everything the semantic rules and the renderer look things up by, built once from the
 * manifests already read: no rule reads a file or parses YAML again.
 */

export interface CrdInfo {
  manifest: Manifest;
  /** `<plural>.<group>`, as the CRD's metadata.name must be. */
  name: string;
  group: string;
  kind: string;
  plural: string;
  /** Version names in order (`spec.versions[].name`, or the v1beta1 `spec.version`). */
  versions: string[];
}

export interface XrType {
  xrd: Manifest;
  xrKind: string;
  /** True for the claim kind a (legacy) XRD offers. */
  claim: boolean;
  /**
   * No XRD of the repository defines the kind, but a Composition is for it: rendered with that
   * Composition as `crossplane render` renders an XR it is given (`xrd` then stands in, empty).
   */
  untyped?: boolean;
  /** The XR schema, for the XR kind. */
  schema?: OpenAPISchema;
}

const OAM_GROUP = "core.oam.dev";

/** The CRDs the OAM Kubernetes runtime installs itself: definitions may name them without the repo holding them. */
const OAM_RUNTIME_KINDS: KindInfo[] = ["ContainerizedWorkload", "ManualScalerTrait", "HealthScope"].map((kind) => ({
  name: `${guessPlural(kind)}.${OAM_GROUP}`,
  group: OAM_GROUP,
  kind,
  versions: ["v1alpha2"],
}));

export type KindInfo = Pick<CrdInfo, "name" | "group" | "kind" | "versions">;

export class RepoIndex {
  readonly crds: CrdInfo[] = [];
  readonly xrds: Manifest[] = [];
  /** XR and claim types by `group/version/kind`; alternative packages may define one type each. */
  private readonly xrTypesByKey = new Map<string, XrType[]>();
  readonly compositions: Manifest[] = [];
  /** `pkg.crossplane.io` Functions by name. */
  readonly functions = new Map<string, Manifest>();
  /** OAM v1alpha2 and KubeVela v1beta1 objects (both `core.oam.dev`). */
  readonly components = new Map<string, Manifest[]>();
  readonly appConfigs: Manifest[] = [];
  readonly applications: Manifest[] = [];
  readonly workloadDefinitions = new Map<string, Manifest>();
  readonly traitDefinitions = new Map<string, Manifest>();
  readonly componentDefinitions = new Map<string, Manifest>();
  readonly scopeDefinitions = new Map<string, Manifest>();
  /** ConfigMaps holding a KubeVela definition's parameter schema, by definition name. */
  readonly parameterSchemas = new Map<string, Manifest>();
  private readonly compositionsByType = new Map<string, Manifest[]>();
  private readonly compositionsByName = new Map<string, Manifest[]>();
  private readonly xrdsByType = new Map<string, Manifest[]>();
  private readonly crdByName = new Map<string, CrdInfo>();
  private readonly crdByGroupKind = new Map<string, CrdInfo>();
  private objectsByIdentity?: Map<string, Manifest>;
  private dependencyFunctionNames?: Set<string>;

  /** Objects that could not be indexed (a composition-ci bug): reported, never the end of the run. */
  readonly failures: Finding[] = [];

  readonly layout: PackageLayout;
  private allSecrets?: Manifest[];
  private allEnvironmentConfigs?: Manifest[];

  /**
   * `kptfileDirs`: directories discovery walked and whether each holds a Kptfile (kpt packages need
   * no second look); `unread`: objects seen in files that were not read (templates, YAML errors).
   */
  constructor(
    readonly manifests: Manifest[],
    readonly kptfileDirs?: ReadonlyMap<string, boolean>,
    private readonly unread: readonly UnreadObject[] = [],
  ) {
    this.layout = PackageLayout.fromManifests(manifests);
    for (const m of manifests) guarded(m, "indexing", this.failures, () => this.add(m));
  }

  /** An object of the group and kind with the name in a file composition-ci did not read, if one is seen there. */
  unreadObject(group: string, kind: string, name: string): UnreadObject | undefined {
    return this.unread.find((o) => o.group === group && o.kind === kind && o.name === name);
  }

  /** The XR or claim type of a manifest, defined by the XRD nearest to it; undefined when it is neither. */
  xrTypeOf(m: Manifest): XrType | undefined {
    return this.xrType(m.group, m.version, m.kind, m.file) ?? this.untypedXr(m);
  }

  private readonly untyped = new WeakMap<Manifest, XrType | null>();

  /** An object that no XRD types but some Composition's compositeTypeRef names: an XR to render all the same. */
  private untypedXr(m: Manifest): XrType | undefined {
    let type = this.untyped.get(m);
    if (type === undefined) {
      const composable =
        m.group !== "" && m.group !== "apiextensions.crossplane.io" && !m.group.endsWith(".k8s.io") && this.compositionsFor(m.apiVersion, m.kind).length > 0;
      // The stand-in names the XR's group and version: what renders it (its Compositions, their Functions) is found through them.
      const standIn = {
        apiVersion: "apiextensions.crossplane.io/v2",
        kind: "CompositeResourceDefinition",
        metadata: { name: "" },
        spec: { group: m.group, versions: [{ name: m.version }] },
      };
      type = composable ? { xrd: new Manifest(standIn, m.source, m.docIndex, m.pointerPrefix), xrKind: m.kind, claim: false, untyped: true } : null;
      this.untyped.set(m, type);
    }
    return type ?? undefined;
  }

  /** The type of `group/version/kind` as seen from `near` (the nearest XRD defining it). */
  xrType(group: string, version: string, kind: string, near: string): XrType | undefined {
    const types = this.xrTypesByKey.get(`${group}/${version}/${kind}`);
    return types && this.layout.nearest(types, (t) => t.xrd.file, near);
  }

  /**
   * Where a project builds a function of this name from (`functions/<folder>/`), as the CLI names
   * embedded functions; with `root`, the folders are listed and the name matched exactly.
   */
  embeddedFunction(name: string, root?: string): EmbeddedFunction | undefined {
    this.projects ??= projectsOf(this.manifests);
    return findEmbeddedFunction(this.projects, name, root);
  }

  /**
   * The names Crossplane gives the Functions a package depends on (`dependsOn` of crossplane.yaml
   * or upbound.yaml): the package path as a DNS label, `crossplane-contrib-function-auto-ready`.
   */
  private projects?: Project[];

  dependencyFunctions(): Set<string> {
    if (this.dependencyFunctionNames) return this.dependencyFunctionNames;
    const names = new Set<string>();
    for (const m of this.manifests) {
      if (!isPackageMetadata(m)) continue;
      const deps = (m.object.spec as { dependsOn?: unknown } | undefined)?.dependsOn;
      for (const dep of Array.isArray(deps) ? deps : []) {
        if (!isPlainObject(dep)) continue;
        const pkg = typeof dep.function === "string" ? dep.function : dep.kind === "Function" && typeof dep.package === "string" ? dep.package : undefined;
        if (pkg) names.add(packagePath(pkg).replaceAll("/", "-").toLowerCase());
      }
    }
    this.dependencyFunctionNames = names;
    return names;
  }

  /**
   * The repository's EnvironmentConfigs, as functions ask for them (v1beta1; older examples write
   * v1alpha1): they answer function-environment-configs' requirements the way the cluster would.
   */
  environmentConfigs(near: string): Record<string, unknown>[] {
    // One list for every asking XR: proximity answers are cached by list.
    const all = (this.allEnvironmentConfigs ??= this.manifests.filter((m) => m.group === "apiextensions.crossplane.io" && m.kind === "EnvironmentConfig"));
    // Those of the asking file's package, nearest in the tree: repositories of separate examples repeat them.
    const nearest = this.layout.nearestAll(all, (m) => m.file, near);
    const byName = new Map<string, Manifest>();
    for (const m of nearest) if (!byName.has(m.name ?? "")) byName.set(m.name ?? "", m);
    return [...byName.values()].map((m) => ({ ...m.object, apiVersion: "apiextensions.crossplane.io/v1beta1" }));
  }

  /**
   * The repository's objects of a kind nearest a file (one per namespace and name), as a function
   * that requires them would get them from the cluster once the repository is applied.
   * EnvironmentConfigs are answered by environmentConfigs().
   */
  objectsOfKind(apiVersion: string, kind: string, near: string): Record<string, unknown>[] {
    if (kind === "EnvironmentConfig" && apiVersion.startsWith("apiextensions.crossplane.io/")) return [];
    if (!this.byKind) {
      // Grouped once by kind, then by namespace and name: each name's candidates are one stable list.
      this.byKind = new Map();
      for (const m of this.manifests) {
        const key = `${m.apiVersion}\u0000${m.kind}`;
        let names = this.byKind.get(key);
        if (!names) this.byKind.set(key, (names = new Map()));
        const name = `${m.namespace ?? ""}/${m.name ?? ""}`;
        (names.get(name) ?? names.set(name, []).get(name)!).push(m);
      }
    }
    const names = this.byKind.get(`${apiVersion}\u0000${kind}`);
    if (!names) return [];
    return [...names.values()].map((same) => (same.length === 1 ? same[0]! : this.layout.nearest(same, (m) => m.file, near)!).object);
  }

  private byKind?: Map<string, Map<string, Manifest[]>>;

  /**
   * The repository's Secrets nearest a file (one per namespace and name): what a function's
   * credentials may come from when a repository renders, as EnvironmentConfigs do.
   */
  secrets(near: string): Record<string, unknown>[] {
    const all = (this.allSecrets ??= this.manifests.filter((m) => m.apiVersion === "v1" && m.kind === "Secret"));
    const byName = new Map<string, Manifest>();
    for (const m of this.layout.nearestAll(all, (x) => x.file, near)) {
      const key = `${m.namespace ?? ""}/${m.name ?? ""}`;
      if (!byName.has(key)) byName.set(key, m);
    }
    return [...byName.values()].map((m) => m.object);
  }

  /** True when some XRD defines the manifest's kind as an XR or claim. */
  isXrOrClaim(m: Manifest): boolean {
    return this.xrTypesByKey.has(`${m.group}/${m.version}/${m.kind}`) || this.untypedXr(m) !== undefined;
  }

  /**
   * Compositions whose compositeTypeRef is this apiVersion and kind; with `near`, only those of
   * that file's own package when it has any (alternative packages are never installed together),
   * and of those the ones nearest in the directory tree (repositories of separate examples).
   */
  compositionsFor(apiVersion: string, kind: string, near?: string): readonly Manifest[] {
    const all = this.compositionsByType.get(`${apiVersion}|${kind}`) ?? [];
    return near === undefined ? all : this.layout.nearestAll(all, (c) => c.file, near);
  }

  /** The Composition of that name (the nearest to `near` when alternative packages each have one). */
  compositionNamed(name: string, near?: string): Manifest | undefined {
    const found = this.compositionsByName.get(name) ?? [];
    return near === undefined ? found[0] : this.layout.nearest(found, (c) => c.file, near);
  }

  /** XRDs defining this group and XR kind (any version). */
  xrdsFor(group: string, kind: string): Manifest[] {
    return this.xrdsByType.get(`${group}|${kind}`) ?? [];
  }

  crdNamed(name: string): CrdInfo | undefined {
    return this.crdByName.get(name);
  }

  /** A CRD of the repo by name, or one the OAM runtime installs (`containerizedworkloads.core.oam.dev`). */
  kindNamed(name: string): KindInfo | undefined {
    return this.crdByName.get(name) ?? OAM_RUNTIME_KINDS.find((k) => k.name === name);
  }

  /** The first object of the repo with this apiVersion, kind, name and (when given) namespace. */
  object(apiVersion: string, kind: string, name: string, namespace?: string): Manifest | undefined {
    if (!this.objectsByIdentity) {
      this.objectsByIdentity = new Map();
      for (const m of this.manifests) {
        const key = identity(m.apiVersion, m.kind, m.name, m.namespace);
        if (m.name && !this.objectsByIdentity.has(key)) this.objectsByIdentity.set(key, m);
      }
    }
    return (
      this.objectsByIdentity.get(identity(apiVersion, kind, name, namespace)) ??
      (namespace ? this.objectsByIdentity.get(identity(apiVersion, kind, name)) : undefined)
    );
  }

  crdFor(apiVersion: string, kind: string): CrdInfo | undefined {
    return this.crdByGroupKind.get(`${groupOf(apiVersion)}/${kind}`);
  }

  /** The resource name (`<plural>.<group>`) of a kind, from its CRD or by Kubernetes' plural guess. */
  resourceName(apiVersion: string, kind: string, guess = true): string | undefined {
    const crd = this.crdFor(apiVersion, kind);
    if (crd) return crd.name;
    if (!guess) return undefined;
    const group = groupOf(apiVersion);
    const plural = guessPlural(kind);
    return group ? `${plural}.${group}` : plural;
  }

  /** A Component by name, preferring one next to the object that refers to it. */
  component(name: string, near: Manifest): Manifest | undefined {
    const found = this.components.get(name);
    if (!found || found.length === 1) return found?.[0];
    const dir = near.file.slice(0, near.file.lastIndexOf("/") + 1);
    return found.find((c) => c.file.startsWith(dir)) ?? found[0];
  }

  private add(m: Manifest): void {
    if (isCrd(m)) this.addCrd(m);
    else if (isXrd(m)) this.addXrd(m);
    else if (m.group === "apiextensions.crossplane.io" && m.kind === "Composition") this.addComposition(m);
    else if (m.group === "pkg.crossplane.io" && m.kind === "Function" && m.name) this.functions.set(m.name, m);
    else if (m.group === OAM_GROUP) this.addOam(m);
    else if (m.apiVersion === "v1" && m.kind === "ConfigMap") this.addParameterSchema(m);
  }

  private addCrd(m: Manifest): void {
    const spec = m.object.spec;
    if (!isPlainObject(spec) || typeof spec.group !== "string" || !isPlainObject(spec.names)) return;
    const { kind, plural } = spec.names as { kind?: unknown; plural?: unknown };
    if (typeof kind !== "string") return;
    const versions = Array.isArray(spec.versions)
      ? spec.versions.flatMap((v) => (isPlainObject(v) && typeof v.name === "string" ? [v.name] : []))
      : typeof spec.version === "string"
        ? [spec.version]
        : [];
    const pluralName = typeof plural === "string" ? plural : guessPlural(kind);
    const info: CrdInfo = { manifest: m, name: m.name ?? `${pluralName}.${spec.group}`, group: spec.group, kind, plural: pluralName, versions };
    this.crds.push(info);
    if (!this.crdByName.has(info.name)) this.crdByName.set(info.name, info);
    const key = `${info.group}/${kind}`;
    if (!this.crdByGroupKind.has(key)) this.crdByGroupKind.set(key, info);
  }

  private addComposition(m: Manifest): void {
    this.compositions.push(m);
    if (m.name) this.compositionsByName.set(m.name, [...(this.compositionsByName.get(m.name) ?? []), m]);
    const ref = isPlainObject(m.object.spec) && isPlainObject(m.object.spec.compositeTypeRef) ? m.object.spec.compositeTypeRef : {};
    const key = `${String(ref.apiVersion)}|${String(ref.kind)}`;
    this.compositionsByType.set(key, [...(this.compositionsByType.get(key) ?? []), m]);
  }

  private addXrd(xrd: Manifest): void {
    this.xrds.push(xrd);
    const spec = isPlainObject(xrd.object.spec) ? xrd.object.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    const xrKind = typeof names.kind === "string" ? names.kind : "";
    const typeKey = `${String(spec.group)}|${xrKind}`;
    this.xrdsByType.set(typeKey, [...(this.xrdsByType.get(typeKey) ?? []), xrd]);
    const claimNames = isPlainObject(spec.claimNames) ? spec.claimNames : {};
    const claimKind = typeof claimNames.kind === "string" ? claimNames.kind : undefined;
    for (const s of schemasFromXrd(xrd)) {
      const key = gvkKey(s.gvk);
      const isXr = s.gvk.kind === xrKind;
      const type: XrType = { xrd, xrKind, claim: s.gvk.kind === claimKind && !isXr, schema: isXr ? s.schema : undefined };
      this.xrTypesByKey.set(key, [...(this.xrTypesByKey.get(key) ?? []), type]);
    }
  }

  private addOam(m: Manifest): void {
    const named = (map: Map<string, Manifest>) => {
      if (m.name && !map.has(m.name)) map.set(m.name, m);
    };
    switch (m.kind) {
      case "Component":
        if (m.name) this.components.set(m.name, [...(this.components.get(m.name) ?? []), m]);
        break;
      case "ApplicationConfiguration":
        this.appConfigs.push(m);
        break;
      case "Application":
        this.applications.push(m);
        break;
      case "WorkloadDefinition":
        named(this.workloadDefinitions);
        break;
      case "TraitDefinition":
        named(this.traitDefinitions);
        break;
      case "ComponentDefinition":
        named(this.componentDefinitions);
        break;
      case "ScopeDefinition":
        named(this.scopeDefinitions);
        break;
    }
  }

  private addParameterSchema(m: Manifest): void {
    const labels = m.object.metadata?.labels ?? {};
    const data = m.object.data;
    if (!isPlainObject(data) || typeof data["openapi-v3-json-schema"] !== "string") return;
    const name = labels["definition.oam.dev/name"] ?? (m.name?.startsWith("schema-") ? m.name.slice("schema-".length) : undefined);
    if (name && !this.parameterSchemas.has(name)) this.parameterSchemas.set(name, m);
  }
}

function identity(apiVersion: string, kind: string, name: string | undefined, namespace?: string): string {
  return `${apiVersion}|${kind}|${namespace ?? ""}|${name ?? ""}`;
}

/** Kubernetes' guess of a resource name from a kind (apimachinery's UnsafeGuessKindToResource). */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s")) return `${lower}es`;
  if (lower.endsWith("y")) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
