import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import * as tar from "tar-stream";

/**
 * A registry for the tests, on 127.0.0.1: the distribution API's pull half (manifests by tag and
 * digest, blobs, a bearer-token challenge answered on the registry's own host), blobs optionally
 * redirected to a second "storage" server, and injected failures. It logs every request.
 */

export interface TarEntry {
  name: string;
  type?: "file" | "directory" | "symlink" | "link" | "character-device" | "fifo";
  content?: string | Buffer;
  linkname?: string;
  mode?: number;
}

export type Compression = "gzip" | "zstd" | "none";

export async function layer(entries: TarEntry[], compression: Compression = "gzip"): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on("data", (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => pack.on("end", () => resolve()));
  for (const e of entries) {
    const type = e.type ?? "file";
    const body = type === "file" ? Buffer.from(e.content ?? "") : undefined;
    await new Promise<void>((resolve, reject) => {
      const header = { name: e.name, type, mode: e.mode ?? (type === "directory" ? 0o755 : 0o644), linkname: e.linkname, size: body?.length ?? 0 };
      pack.entry(header, body ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
    });
  }
  pack.finalize();
  await ended;
  const tarball = Buffer.concat(chunks);
  if (compression === "gzip") return zlib.gzipSync(tarball);
  if (compression === "zstd") return (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync(tarball);
  return tarball;
}

export const hasZstd = typeof (zlib as unknown as { zstdCompressSync?: unknown }).zstdCompressSync === "function";

export function digestOf(bytes: Buffer): string {
  return `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
}

const MEDIA = {
  index: "application/vnd.oci.image.index.v1+json",
  manifest: "application/vnd.docker.distribution.manifest.v2+json",
  config: "application/vnd.docker.container.image.v1+json",
  gzip: "application/vnd.docker.image.rootfs.diff.tar.gzip",
  zstd: "application/vnd.oci.image.layer.v1.tar+zstd",
  none: "application/vnd.oci.image.layer.v1.tar",
};

export interface ImageSpec {
  layers: { bytes: Buffer; compression: Compression; annotations?: Record<string, string> }[];
  entrypoint?: string[];
  env?: string[];
  workingDir?: string;
}

interface Logged {
  method: string;
  url: string;
  authorization?: string;
  host: string;
}

export class TestRegistry {
  readonly requests: Logged[] = [];
  readonly storageRequests: Logged[] = [];
  private server?: http.Server;
  private storage?: http.Server;
  private readonly manifests = new Map<string, { body: Buffer; type: string }>();
  private readonly blobs = new Map<string, Buffer>();
  /** Path regex → status to answer instead (or "hang"), `times` times (default always). */
  readonly failures: { pattern: RegExp; status: number | "hang"; times?: number }[] = [];
  auth: "none" | "bearer" | "basic" = "bearer";
  /** Basic credentials the registry (or its token endpoint) requires, when set. */
  credentials?: { username: string; password: string };
  redirectBlobs = false;
  /** Corrupts a blob's bytes as served (digest mismatch). */
  corrupt = new Set<string>();
  port = 0;
  private storagePort = 0;
  private tokenCount = 0;

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.storage = http.createServer((req, res) => this.serveStorage(req, res));
    this.port = await listen(this.server);
    this.storagePort = await listen(this.storage);
  }

  async stop(): Promise<void> {
    for (const s of [this.server, this.storage]) {
      s?.closeAllConnections();
      await new Promise((resolve) => s?.close(resolve));
    }
  }

  /** Pushes an image for each platform under `repository:tag`, as an index when there are several. */
  push(
    repository: string,
    tag: string,
    platforms: Record<string, ImageSpec>,
    options: { single?: boolean; attestation?: boolean } = {},
  ): { index?: string; manifests: Record<string, string> } {
    const digests: Record<string, string> = {};
    const entries: unknown[] = [];
    for (const [platform, spec] of Object.entries(platforms)) {
      const [os, architecture] = platform.split("/");
      const layers = spec.layers.map((l) => ({ ...this.putBlob(l.bytes, MEDIA[l.compression]), ...(l.annotations ? { annotations: l.annotations } : {}) }));
      const config = Buffer.from(
        JSON.stringify({
          os,
          architecture,
          config: { Entrypoint: spec.entrypoint ?? ["/function"], Env: spec.env ?? ["PATH=/usr/local/bin:/usr/bin:/bin"], WorkingDir: spec.workingDir ?? "/" },
          rootfs: { type: "layers", diff_ids: [] },
        }),
      );
      const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.manifest, config: this.putBlob(config, MEDIA.config), layers }));
      const digest = digestOf(manifest);
      this.manifests.set(`${repository}@${digest}`, { body: manifest, type: MEDIA.manifest });
      digests[platform] = digest;
      entries.push({ mediaType: MEDIA.manifest, digest, size: manifest.length, platform: { os, architecture } });
      if (options.single) this.manifests.set(`${repository}:${tag}`, { body: manifest, type: MEDIA.manifest });
    }
    if (options.single) return { manifests: digests };
    if (options.attestation)
      entries.push({
        mediaType: MEDIA.manifest,
        digest: `sha256:${"0".repeat(64)}`,
        size: 2,
        platform: { os: "unknown", architecture: "unknown" },
        annotations: { "vnd.docker.reference.type": "attestation-manifest" },
      });
    const index = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.index, manifests: entries }));
    const indexDigest = digestOf(index);
    this.manifests.set(`${repository}:${tag}`, { body: index, type: MEDIA.index });
    this.manifests.set(`${repository}@${indexDigest}`, { body: index, type: MEDIA.index });
    return { index: indexDigest, manifests: digests };
  }

  /**
   * Pushes an OCI artifact as kpm pushes a KCL module: one manifest (no index), the empty config,
   * one layer (a tar of the module's files), the manifest's annotations.
   */
  pushArtifact(repository: string, tag: string, layerBytes: Buffer, compression: Compression, annotations: Record<string, string>): string {
    const layerDescriptor = this.putBlob(layerBytes, MEDIA[compression]);
    const config = this.putBlob(Buffer.from("{}"), "application/vnd.oci.empty.v1+json");
    const manifest = Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.manifest, artifactType: layerDescriptor.mediaType, config, layers: [layerDescriptor], annotations }),
    );
    const digest = digestOf(manifest);
    this.manifests.set(`${repository}@${digest}`, { body: manifest, type: MEDIA.manifest });
    this.manifests.set(`${repository}:${tag}`, { body: manifest, type: MEDIA.manifest });
    return digest;
  }

  private putBlob(bytes: Buffer, mediaType: string) {
    const digest = digestOf(bytes);
    this.blobs.set(digest, bytes);
    return { mediaType, digest, size: bytes.length };
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = req.url ?? "/";
    this.requests.push({ method: req.method ?? "GET", url, authorization: req.headers.authorization, host: this.host });
    const failure = this.failures.find((f) => f.pattern.test(url) && (f.times === undefined || f.times > 0));
    if (failure) {
      if (failure.times !== undefined) failure.times--;
      if (failure.status === "hang") return;
      return json(res, failure.status, { errors: [{ code: "INJECTED", message: `injected ${failure.status}` }] });
    }
    if (url.startsWith("/token")) return this.token(req, res);
    if (!this.authorized(req)) {
      const repo = url.split("/").slice(2, -2).join("/");
      const challenge =
        this.auth === "basic" ? `Basic realm="test"` : `Bearer realm="http://${this.host}/token",service="test-registry",scope="repository:${repo}:pull"`;
      res.setHeader("www-authenticate", challenge);
      return json(res, 401, { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] });
    }
    const tags = /^\/v2\/(.+)\/tags\/list(\?.*)?$/.exec(url);
    if (tags) {
      const repository = tags[1]!;
      const list = [...this.manifests.keys()].filter((k) => k.startsWith(`${repository}:`)).map((k) => k.slice(repository.length + 1));
      return json(res, list.length ? 200 : 404, list.length ? { name: repository, tags: list } : { errors: [{ code: "NAME_UNKNOWN", message: repository }] });
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url);
    if (!m) return json(res, 404, { errors: [{ code: "NAME_UNKNOWN", message: url }] });
    const [, repository, kind, reference] = m;
    if (kind === "manifests") {
      const found = this.manifests.get(`${repository}${reference!.startsWith("sha256:") ? "@" : ":"}${reference}`);
      if (!found) return json(res, 404, { errors: [{ code: "MANIFEST_UNKNOWN", message: reference }] });
      res.writeHead(200, { "content-type": found.type, "docker-content-digest": digestOf(found.body), "content-length": found.body.length });
      return void res.end(found.body);
    }
    const blob = this.blobs.get(reference!);
    if (!blob) return json(res, 404, { errors: [{ code: "BLOB_UNKNOWN", message: reference }] });
    if (this.redirectBlobs) {
      res.writeHead(307, { location: `http://127.0.0.1:${this.storagePort}/storage/${reference}` });
      return void res.end();
    }
    this.sendBlob(res, reference!, blob);
  }

  private sendBlob(res: http.ServerResponse, digest: string, blob: Buffer): void {
    const bytes = this.corrupt.has(digest) ? Buffer.concat([blob.subarray(0, blob.length - 1), Buffer.from([blob[blob.length - 1]! ^ 0xff])]) : blob;
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
    res.end(bytes);
  }

  private serveStorage(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.storageRequests.push({
      method: req.method ?? "GET",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      host: `127.0.0.1:${this.storagePort}`,
    });
    const digest = (req.url ?? "").replace("/storage/", "");
    const blob = this.blobs.get(digest);
    if (!blob) return json(res, 404, {});
    this.sendBlob(res, digest, blob);
  }

  private token(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.credentials && req.headers.authorization !== basic(this.credentials))
      return json(res, 401, { errors: [{ code: "UNAUTHORIZED", message: "bad credentials" }] });
    const token = `token-${++this.tokenCount}`;
    // Both spellings registries use: Docker Hub's `token`, others' `access_token`.
    json(res, 200, this.tokenCount % 2 ? { token } : { access_token: token });
  }

  private authorized(req: http.IncomingMessage): boolean {
    if (this.auth === "none") return true;
    const header = req.headers.authorization ?? "";
    if (this.auth === "basic") return !!this.credentials && header === basic(this.credentials);
    return /^Bearer token-\d+$/.test(header);
  }
}

function basic(c: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}`;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}
