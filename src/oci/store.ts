import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { removeTree } from "./unpack.js";

/**
 * The content-addressed cache under `<cache>/oci/`: `blobs/sha256/<hex>` (every blob verified
 * before it lands), `refs/` (what a tag resolved to, for later runs and --offline) and
 * `rootfs/<hex>` (an image's unpacked layers, by manifest digest, complete or absent).
 */
export class BlobStore {
  readonly dir: string;

  constructor(cacheDir: string) {
    this.dir = path.join(cacheDir, "oci");
  }

  blobPath(digest: string): string {
    return path.join(this.dir, "blobs", "sha256", hexOf(digest));
  }

  has(digest: string): boolean {
    return fs.existsSync(this.blobPath(digest));
  }

  read(digest: string): Buffer {
    return fs.readFileSync(this.blobPath(digest));
  }

  /** Stores bytes already in memory, checking them against their digest. */
  put(digest: string, bytes: Buffer): void {
    if (sha256(bytes) !== digest) throw new DigestMismatch(digest, sha256(bytes));
    this.commit(digest, (tmp) => fs.writeFileSync(tmp, bytes));
  }

  /**
   * Streams a body into the store, counting and hashing as it goes: more than `maxBytes` or a
   * digest or size other than the descriptor's, and nothing is kept.
   */
  async putStream(
    digest: string,
    body: WebReadableStream<Uint8Array> | ReadableStream<Uint8Array>,
    expectedSize: number | undefined,
    maxBytes: number,
  ): Promise<void> {
    const tmp = this.tempPath(digest);
    const hash = crypto.createHash("sha256");
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new SizeLimitExceeded(digest, maxBytes));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), meter, fs.createWriteStream(tmp));
      const actual = `sha256:${hash.digest("hex")}`;
      if (actual !== digest) throw new DigestMismatch(digest, actual);
      if (expectedSize !== undefined && size !== expectedSize) throw new DigestMismatch(digest, `${size} bytes instead of ${expectedSize}`);
      fs.renameSync(tmp, this.blobPath(digest));
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  /** The `package.yaml` read from a layer, kept by the layer's digest. */
  packageYamlPath(layerDigest: string): string {
    return path.join(this.dir, "packages", `${hexOf(layerDigest)}.yaml`);
  }

  putPackageYaml(layerDigest: string, yaml: string): void {
    const file = this.packageYamlPath(layerDigest);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, yaml);
    fs.renameSync(tmp, file);
  }

  rootfsPath(manifestDigest: string): string {
    return path.join(this.dir, "rootfs", hexOf(manifestDigest));
  }

  /** A fresh directory beside the rootfs ones, renamed into place by `commitRootfs`. */
  tempRootfs(): string {
    fs.mkdirSync(path.join(this.dir, "rootfs"), { recursive: true });
    return fs.mkdtempSync(path.join(this.dir, "rootfs", ".unpacking-"));
  }

  commitRootfs(tmp: string, manifestDigest: string): string {
    const target = this.rootfsPath(manifestDigest);
    try {
      fs.renameSync(tmp, target);
    } catch (err) {
      // Another run unpacked the same image meanwhile: theirs is as good.
      removeTree(tmp);
      if (!fs.existsSync(target)) throw err;
    }
    return target;
  }

  /** What a tag resolved to, for a platform. */
  readRef(key: string): { digest: string } | undefined {
    try {
      const parsed = JSON.parse(fs.readFileSync(this.refPath(key), "utf8")) as { digest?: unknown };
      return typeof parsed.digest === "string" && /^sha256:[a-f0-9]{64}$/.test(parsed.digest) ? { digest: parsed.digest } : undefined;
    } catch {
      return undefined;
    }
  }

  writeRef(key: string, digest: string): void {
    const file = this.refPath(key);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ reference: key, digest, resolved: new Date().toISOString() }) + "\n");
    fs.renameSync(tmp, file);
  }

  private refPath(key: string): string {
    return path.join(this.dir, "refs", `${crypto.createHash("sha256").update(key).digest("hex")}.json`);
  }

  private tempPath(digest: string): string {
    const dir = path.join(this.dir, "blobs", "sha256");
    fs.mkdirSync(dir, { recursive: true });
    return path.join(dir, `.${hexOf(digest)}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`);
  }

  private commit(digest: string, write: (tmp: string) => void): void {
    const tmp = this.tempPath(digest);
    try {
      write(tmp);
      fs.renameSync(tmp, this.blobPath(digest));
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
}

export class DigestMismatch extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the registry sent content that does not match its digest ${expected} (got ${actual}); nothing from it was kept or run`);
  }
}

export class SizeLimitExceeded extends Error {
  constructor(digest: string, limit: number) {
    super(`blob ${digest} is larger than the limit of ${Math.round(limit / 1024 / 1024)} MiB`);
  }
}

export function sha256(bytes: Buffer | string): string {
  return `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
}

function hexOf(digest: string): string {
  const m = /^sha256:([a-f0-9]{64})$/.exec(digest);
  if (!m) throw new Error(`"${digest}" is not a sha256 digest`);
  return m[1]!;
}
