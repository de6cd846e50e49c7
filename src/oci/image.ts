import fs from "node:fs";
import { RegistryError, type RegistryClient } from "./registry.js";
import { formatReference, parseReference, type ImageReference } from "./reference.js";
import { BlobStore, DigestMismatch, sha256 } from "./store.js";
import { extractPackageYaml, LayerApplier, removeTree, type UnpackLimits } from "./unpack.js";

/**
 * Pulling an image to a directory, the one door of `src/oci/`: resolve the reference (a tag
 * once per run at most, or not at all when the cache has it and the policy allows), pick the
 * manifest of the platform from an index, fetch and verify every blob into the content-addressed
 * store, and unpack the layers once per manifest digest.
 */

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export type PullPolicy = "Always" | "IfNotPresent" | "Never";

export interface PullOptions {
  cacheDir: string;
  client: RegistryClient;
  platform?: Platform;
  /** Only the cache: a missing image is an error that says so. */
  offline?: boolean;
  /** As Docker's: IfNotPresent (default) uses a tag resolved by an earlier run. */
  pullPolicy?: PullPolicy;
  /** Tags resolved in this run, so that each is asked once. */
  resolved?: Map<string, string>;
  limits?: Partial<ImageLimits>;
  /** Called before a network pull of an image starts (progress lines). */
  onPull?: (reference: string) => void;
}

export interface ImageLimits extends UnpackLimits {
  maxManifestBytes: number;
  maxLayerBytes: number;
}

export const DEFAULT_LIMITS: ImageLimits = {
  maxManifestBytes: 4 * 1024 * 1024,
  maxLayerBytes: 512 * 1024 * 1024,
  maxBytes: 2 * 1024 * 1024 * 1024,
  maxEntries: 200_000,
};

export interface ImageConfig {
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Env?: string[] | null;
  WorkingDir?: string;
  User?: string;
}

export interface PulledImage {
  reference: string;
  /** The platform manifest's digest. */
  digest: string;
  /** The unpacked root filesystem. */
  root: string;
  config: ImageConfig;
  platform: Platform;
  /** The manifest's annotations (an artifact's, such as a KCL module's checksum). */
  annotations?: Record<string, string>;
}

export class PullError extends Error {
  constructor(
    message: string,
    readonly kind: "offline" | "registry" | "integrity" | "platform" | "format",
  ) {
    super(message);
  }
}

const INDEX_TYPES = ["application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"];
const MANIFEST_TYPES = ["application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"];
const ACCEPT = [...INDEX_TYPES, ...MANIFEST_TYPES].join(", ");
const LAYER_TYPES = /^application\/vnd\.(oci\.image\.layer(\.nondistributable)?\.v1\.tar(\+gzip|\+zstd)?|docker\.image\.rootfs\.diff\.tar(\.gzip)?)$/;

interface Descriptor {
  mediaType?: string;
  digest: string;
  size?: number;
  platform?: Platform & { "os.version"?: string };
  annotations?: Record<string, string>;
}

interface Manifest {
  mediaType?: string;
  manifests?: Descriptor[];
  config?: Descriptor;
  layers?: Descriptor[];
  annotations?: Record<string, string>;
}

/** The platform a function binary must be built for to run here. */
export function hostPlatform(): Platform {
  const arch: Record<string, string> = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" };
  return { os: "linux", architecture: arch[process.arch] ?? process.arch };
}

export async function pullImage(referenceText: string, options: PullOptions): Promise<PulledImage> {
  const ref = parseReference(referenceText);
  const store = new BlobStore(options.cacheDir);
  const platform = options.platform ?? hostPlatform();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const puller = new Puller(ref, store, options, platform, limits);
  const digest = await puller.platformManifestDigest();
  const manifest = await puller.manifest(digest);
  const config = await puller.config(manifest);
  const root = fs.existsSync(store.rootfsPath(digest)) ? store.rootfsPath(digest) : await puller.unpack(manifest, digest);
  return { reference: formatReference(ref), digest, root, config, platform, annotations: manifest.annotations };
}

/**
 * The `package.yaml` of a Crossplane package (provider, function, configuration): read from the
 * layer annotated `io.crossplane.xpkg: base` (the package format's stream layer), else from the
 * layers top down; only that layer is fetched, never the runtime's. Cached by layer digest.
 */
export async function pullPackageYaml(referenceText: string, options: PullOptions): Promise<{ reference: string; digest: string; yaml: string }> {
  const ref = parseReference(referenceText);
  const store = new BlobStore(options.cacheDir);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const puller = new Puller(ref, store, options, options.platform ?? hostPlatform(), limits);
  const digest = await puller.platformManifestDigest();
  const manifest = await puller.manifest(digest);
  const layers = manifest.layers!;
  const base = layers.filter((l) => l.annotations?.["io.crossplane.xpkg"] === "base");
  for (const layer of base.length ? base : [...layers].reverse()) {
    const cached = store.packageYamlPath(layer.digest);
    if (fs.existsSync(cached)) return { reference: formatReference(ref), digest, yaml: fs.readFileSync(cached, "utf8") };
    await puller.layerBlob(layer);
    const yaml = await extractPackageYaml(store.blobPath(layer.digest), Math.min(limits.maxLayerBytes, 64 * 1024 * 1024));
    if (yaml === undefined) continue;
    store.putPackageYaml(layer.digest, yaml);
    return { reference: formatReference(ref), digest, yaml };
  }
  throw new PullError(`${formatReference(ref)} holds no package.yaml: it is not a Crossplane package`, "format");
}

/** The tags of a repository (`/v2/<name>/tags/list`, following `Link` pages), for version constraints. */
export async function listTags(referenceText: string, client: RegistryClient): Promise<string[]> {
  const ref = parseReference(referenceText);
  const tags: string[] = [];
  let next: string | undefined = "tags/list?n=1000";
  for (let page = 0; next && page < 20; page++) {
    let response: Response;
    try {
      response = await client.get(ref.registry, ref.repository, next);
    } catch (err) {
      if (err instanceof RegistryError) throw new PullError(`listing the tags of ${ref.registry}/${ref.repository}: ${err.message}`, "registry");
      throw err;
    }
    const body = (await response.json().catch(() => ({}))) as { tags?: unknown };
    if (Array.isArray(body.tags)) tags.push(...body.tags.filter((t): t is string => typeof t === "string"));
    const link = /<[^>]*\/tags\/list(\?[^>]*)>\s*;\s*rel="?next"?/.exec(response.headers.get("link") ?? "");
    next = link ? `tags/list${link[1]}` : undefined;
  }
  return tags;
}

class Puller {
  private announced = false;

  constructor(
    private readonly ref: ImageReference,
    private readonly store: BlobStore,
    private readonly options: PullOptions,
    private readonly platform: Platform,
    private readonly limits: ImageLimits,
  ) {}

  private get name() {
    return formatReference(this.ref);
  }

  /** The digest of the image manifest for the platform, from the reference, the cache or the registry. */
  async platformManifestDigest(): Promise<string> {
    if (this.ref.digest && this.store.has(this.ref.digest)) {
      const pinned = parseJson<Manifest>(this.store.read(this.ref.digest), `manifest ${this.ref.digest}`);
      return pinned.manifests ? this.pick(pinned) : this.ref.digest;
    }
    const key = `${this.name}|${this.platform.os}/${this.platform.architecture}`;
    const policy = this.options.pullPolicy ?? "IfNotPresent";
    const known = this.options.resolved?.get(key) ?? (policy !== "Always" || this.options.offline ? this.store.readRef(key)?.digest : undefined);
    if (known && this.store.has(known)) return known;
    if (this.options.offline || policy === "Never") {
      throw new PullError(`${this.name} is not in the cache${this.options.offline ? " (--offline)" : " (pull policy Never)"}`, "offline");
    }
    const top = await this.fetchManifest(this.ref.digest ?? this.ref.tag!);
    const digest = INDEX_TYPES.includes(top.type) ? this.pick(top.manifest) : top.digest;
    this.options.resolved?.set(key, digest);
    if (!this.ref.digest) this.store.writeRef(key, digest);
    return digest;
  }

  /** An image manifest by digest, from the store or the registry (verified either way). */
  async manifest(digest: string): Promise<Manifest> {
    if (!this.store.has(digest)) await this.fetchManifest(digest);
    const parsed = parseJson<Manifest>(this.store.read(digest), `manifest ${digest}`);
    if (parsed.manifests) throw new PullError(`${this.name}: ${digest} is an index inside an index`, "format");
    if (!parsed.config?.digest || !Array.isArray(parsed.layers))
      throw new PullError(`${this.name}: manifest ${digest} has no config or layers (schema 1 images are not supported)`, "format");
    return parsed;
  }

  async config(manifest: Manifest): Promise<ImageConfig> {
    const descriptor = manifest.config!;
    await this.blob(descriptor, this.limits.maxManifestBytes);
    const config = parseJson<{ config?: ImageConfig; os?: string; architecture?: string }>(
      this.store.read(descriptor.digest),
      `image config ${descriptor.digest}`,
    );
    return config.config ?? {};
  }

  async unpack(manifest: Manifest, digest: string): Promise<string> {
    const layers = manifest.layers!;
    for (const layer of layers) {
      if (layer.mediaType && !LAYER_TYPES.test(layer.mediaType))
        throw new PullError(`${this.name}: layer ${layer.digest} has the media type ${layer.mediaType}, which is not a Linux image layer`, "format");
      await this.blob(layer, this.limits.maxLayerBytes);
    }
    const tmp = this.store.tempRootfs();
    try {
      const applier = new LayerApplier(tmp, this.limits);
      for (const layer of layers) await applier.apply(this.store.blobPath(layer.digest));
      applier.finish();
      return this.store.commitRootfs(tmp, digest);
    } catch (err) {
      removeTree(tmp);
      throw new PullError(`${this.name}: cannot unpack: ${(err as Error).message}`, "integrity");
    }
  }

  private pick(index: Manifest): string {
    const entries = (index.manifests ?? []).filter(
      (d) => d.platform?.os !== "unknown" && d.annotations?.["vnd.docker.reference.type"] !== "attestation-manifest",
    );
    const wanted = this.platform;
    const match = entries.find((d) => {
      const p = d.platform ?? { os: "linux", architecture: "amd64" };
      if (p.os !== wanted.os || p.architecture !== wanted.architecture) return false;
      if (!wanted.variant) return true;
      return p.variant === wanted.variant || (wanted.architecture === "arm64" && (p.variant ?? "v8") === "v8");
    });
    if (!match) {
      const offered = entries
        .map((d) => (d.platform ? `${d.platform.os}/${d.platform.architecture}${d.platform.variant ? `/${d.platform.variant}` : ""}` : "linux/amd64"))
        .join(", ");
      throw new PullError(`${this.name} has no image for ${wanted.os}/${wanted.architecture} (it has ${offered || "none"})`, "platform");
    }
    return match.digest;
  }

  private async fetchManifest(reference: string): Promise<{ manifest: Manifest; type: string; digest: string }> {
    this.announce();
    const response = await this.registry(() => this.options.client.get(this.ref.registry, this.ref.repository, `manifests/${reference}`, ACCEPT));
    const bytes = await readLimited(response, this.limits.maxManifestBytes, `manifest of ${this.name}`);
    const digest = sha256(bytes);
    const claimed = response.headers.get("docker-content-digest");
    if (reference.startsWith("sha256:") && digest !== reference) throw new PullError(new DigestMismatch(reference, digest).message, "integrity");
    if (claimed && claimed.startsWith("sha256:") && claimed !== digest) throw new PullError(new DigestMismatch(claimed, digest).message, "integrity");
    const manifest = parseJson<Manifest>(bytes, `manifest of ${this.name}`);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim() || manifest.mediaType || "";
    const kind = INDEX_TYPES.includes(type) || (manifest.manifests && !manifest.config) ? INDEX_TYPES[0]! : type;
    if (!INDEX_TYPES.includes(kind) && !MANIFEST_TYPES.includes(kind) && !(manifest.config && manifest.layers)) {
      throw new PullError(`${this.name}: the registry answered a manifest of type "${type}", which is not an image`, "format");
    }
    this.store.put(digest, bytes);
    return { manifest, type: kind, digest };
  }

  async layerBlob(descriptor: Descriptor): Promise<void> {
    return this.blob(descriptor, this.limits.maxLayerBytes);
  }

  private async blob(descriptor: Descriptor, maxBytes: number): Promise<void> {
    if (this.store.has(descriptor.digest)) return;
    if (this.options.offline) throw new PullError(`${this.name}: blob ${descriptor.digest} is not in the cache (--offline)`, "offline");
    if (descriptor.size !== undefined && descriptor.size > maxBytes)
      throw new PullError(`${this.name}: blob ${descriptor.digest} is ${descriptor.size} bytes, over the limit of ${maxBytes}`, "integrity");
    this.announce();
    const response = await this.registry(() => this.options.client.get(this.ref.registry, this.ref.repository, `blobs/${descriptor.digest}`));
    try {
      await this.store.putStream(descriptor.digest, response.body!, descriptor.size, maxBytes);
    } catch (err) {
      throw new PullError(`${this.name}: ${(err as Error).message}`, err instanceof DigestMismatch ? "integrity" : "registry");
    }
  }

  private async registry<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof RegistryError) throw new PullError(`pulling ${this.name}: ${err.message}`, "registry");
      throw err;
    }
  }

  private announce(): void {
    if (this.announced) return;
    this.announced = true;
    this.options.onPull?.(this.name);
  }
}

async function readLimited(response: Response, max: number, what: string): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) throw new PullError(`${what} is ${declared} bytes, over the limit of ${max}`, "format");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > max) throw new PullError(`${what} is over the limit of ${max} bytes`, "format");
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function parseJson<T>(bytes: Buffer, what: string): T {
  try {
    const value = JSON.parse(bytes.toString("utf8")) as unknown;
    if (!value || typeof value !== "object") throw new Error("not an object");
    return value as T;
  } catch (err) {
    throw new PullError(`${what} is not valid JSON: ${(err as Error).message}`, "format");
  }
}
