import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import * as tar from "tar-stream";

/**
 * Image layers applied in order onto a directory, as a container runtime does, and no further:
 * OCI whiteouts (`.wh.<name>`, `.wh..wh..opq`) hide lower layers' files, every path is resolved
 * inside the root as chroot would and every symbolic link is written relative and confined to
 * it (an entry named with `..` is refused; `/var/run -> /run` becomes `../run`; merged-usr links
 * such as `/lib -> usr/lib` keep working), hard links must point at a file of the image,
 * device files and FIFOs are skipped, set-id bits are dropped, and the unpacked size and entry
 * count are bounded.
 */

export interface UnpackLimits {
  maxBytes: number;
  maxEntries: number;
}

export class UnsafeLayer extends Error {}

const MAX_LINK_HOPS = 40;
const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

export class LayerApplier {
  private bytes = 0;
  private entries = 0;
  /** Directory modes, applied last so that a read-only directory can be filled first. */
  private readonly dirModes = new Map<string, number>();

  constructor(
    readonly root: string,
    private readonly limits: UnpackLimits,
  ) {}

  /** Applies one layer blob (gzip, zstd or plain tar, by its first bytes). */
  async apply(blobFile: string): Promise<void> {
    const extract = tar.extract();
    const written = new Set<string>();
    const done = pipeline(fs.createReadStream(blobFile), decompressor(blobFile), extract);
    const consume = (async () => {
      for await (const entry of extract) {
        try {
          await this.entry(entry.header, entry as AsyncIterable<Buffer>, written);
        } finally {
          entry.resume();
        }
      }
    })();
    await Promise.all([done, consume]);
  }

  /** Gives directories their modes, read-only (u+rwx was kept while unpacking). */
  finish(): void {
    // A later layer may have removed a directory (a whiteout, an opaque marker): nothing to give a mode to.
    for (const [dir, mode] of this.dirModes) if (lstat(dir)?.isDirectory()) fs.chmodSync(dir, (mode | 0o500) & ~0o222);
  }

  private async entry(header: tar.Header, body: AsyncIterable<Buffer>, written: Set<string>): Promise<void> {
    if (++this.entries > this.limits.maxEntries) throw new UnsafeLayer(`more than ${this.limits.maxEntries} files`);
    const name = archivePath(header.name);
    if (name === "") return;
    const base = path.posix.basename(name);
    const parentName = path.posix.dirname(name);
    if (base === OPAQUE) return this.opaque(parentName, written);
    if (base.startsWith(WHITEOUT)) {
      const hidden = base.slice(WHITEOUT.length);
      // `.wh..` would name the parent: a whiteout hides one entry of its own directory, nothing else.
      if (hidden === "" || hidden === "." || hidden === ".." || hidden.includes("/")) throw new UnsafeLayer(`"${header.name}" is not a whiteout of an entry`);
      return this.whiteout(path.posix.join(parentName, hidden), written);
    }
    written.add(name);
    for (let p = parentName; p !== "." && p !== ""; p = path.posix.dirname(p)) written.add(p);
    const parent = this.resolve(parentName, true);
    fs.mkdirSync(parent, { recursive: true });
    const target = path.join(parent, base);
    const mode = (header.mode ?? 0o644) & 0o777;
    switch (header.type) {
      case "directory":
        return this.directory(target, mode);
      case "file":
      case "contiguous-file":
        return this.file(target, mode, body, header.size ?? 0);
      case "symlink":
        this.replace(target);
        fs.symlinkSync(confinedLinkTarget(name, header.linkname ?? ""), target);
        return;
      case "link":
        return this.hardlink(target, header.linkname ?? "");
      default:
        // character and block devices, FIFOs: an unprivileged run cannot make them, and functions do not need them
        return;
    }
  }

  private directory(target: string, mode: number): void {
    const existing = lstat(target);
    if (existing && !existing.isDirectory()) this.replace(target);
    fs.mkdirSync(target, { recursive: true, mode: 0o700 });
    fs.chmodSync(target, mode | 0o700);
    this.dirModes.set(target, mode);
  }

  private async file(target: string, mode: number, body: AsyncIterable<Buffer>, size: number): Promise<void> {
    this.bytes += size;
    if (this.bytes > this.limits.maxBytes) throw new UnsafeLayer(`unpacks to more than ${Math.round(this.limits.maxBytes / 1024 / 1024)} MiB`);
    this.replace(target);
    await pipeline(body, fs.createWriteStream(target, { mode: mode | 0o600, flags: "wx" }));
    // Read-only once unpacked: a function must not change another's binary in the shared cache.
    fs.chmodSync(target, (mode | 0o400) & ~0o222);
  }

  private hardlink(target: string, linkname: string): void {
    const source = this.resolve(archivePath(linkname), false);
    const stat = lstat(source);
    if (!stat?.isFile()) throw new UnsafeLayer(`hard link ${linkname} does not name a file of the image`);
    this.replace(target);
    try {
      fs.linkSync(source, target);
    } catch {
      fs.copyFileSync(source, target);
    }
  }

  private opaque(dirName: string, written: Set<string>): void {
    const dir = this.resolve(dirName, true);
    if (!lstat(dir)?.isDirectory()) return;
    for (const child of fs.readdirSync(dir)) {
      const childName = dirName === "." ? child : path.posix.join(dirName, child);
      if (!written.has(childName)) fs.rmSync(path.join(dir, child), { recursive: true, force: true });
    }
  }

  private whiteout(name: string, written: Set<string>): void {
    if (written.has(name)) return;
    const target = path.join(this.resolve(path.posix.dirname(name), true), path.posix.basename(name));
    if (!target.startsWith(this.root + path.sep)) throw new UnsafeLayer(`whiteout ${name} leads outside the image root`);
    fs.rmSync(target, { recursive: true, force: true });
  }

  /** Removes what is at `target` (never following a link there), unless it is a directory to keep. */
  private replace(target: string): void {
    const existing = lstat(target);
    if (!existing) return;
    if (existing.isDirectory()) fs.chmodSync(target, 0o700);
    fs.rmSync(target, { recursive: true, force: true });
  }

  resolve(name: string, followLast: boolean): string {
    return resolveInRoot(this.root, name, followLast);
  }
}

/**
 * The host path of a path inside an unpacked image, every symbolic link on the way resolved
 * inside the root as chroot would (an absolute target starts again at the root, `..` stops at
 * it). `followLast` resolves the last component too.
 */
export function resolveInRoot(root: string, name: string, followLast: boolean): string {
  const pending = name === "." || name === "" ? [] : name.split("/");
  const current: string[] = [];
  let hops = 0;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current.pop();
      continue;
    }
    const host = path.join(root, ...current, part);
    const stat = lstat(host);
    if (stat?.isSymbolicLink() && (pending.length > 0 || followLast)) {
      if (++hops > MAX_LINK_HOPS) throw new UnsafeLayer(`too many symbolic links resolving ${name}`);
      const link = fs.readlinkSync(host);
      if (link.startsWith("/")) current.length = 0;
      pending.unshift(...link.split("/"));
      continue;
    }
    current.push(part);
  }
  return path.join(root, ...current);
}

/**
 * A symbolic link's target made relative and kept inside the root, read as chroot would read it
 * (an absolute target from the root, `..` stopping at it): `/var/run -> /run` becomes `../run`,
 * so that nothing on the host, the function process included, follows a link of the image out.
 */
export function confinedLinkTarget(linkName: string, target: string): string {
  if (target.includes("\0")) throw new UnsafeLayer(`the link ${linkName} holds a NUL byte`);
  const from = path.posix.dirname(linkName);
  const parts: string[] = [];
  for (const part of (target.startsWith("/") ? target : `${from}/${target}`).split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const relative = path.posix.relative(from === "." ? "/" : `/${from}`, `/${parts.join("/")}`);
  return relative === "" ? "." : relative;
}

/** An archive member's path relative to the root: no NUL, no `..` component, no leading `/`. */
export function archivePath(raw: string): string {
  if (raw.includes("\0")) throw new UnsafeLayer(`a file name holds a NUL byte`);
  const normalised = path.posix.normalize(raw.replace(/^\/+/, "")).replace(/\/+$/, "");
  if (normalised === ".") return "";
  if (normalised === ".." || normalised.startsWith("../") || normalised.split("/").includes("..")) {
    throw new UnsafeLayer(`"${raw}" leads outside the image root`);
  }
  return normalised.replace(/^\.\//, "");
}

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** A decompressing stream chosen by the blob's first bytes: gzip, zstd, or a plain tar. */
function decompressor(file: string): Transform {
  const fd = fs.openSync(file, "r");
  const magic = Buffer.alloc(4);
  try {
    fs.readSync(fd, magic, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (magic[0] === 0x1f && magic[1] === 0x8b) return zlib.createGunzip();
  if (magic.readUInt32LE(0) === 0xfd2fb528) {
    const zstd = (zlib as unknown as { createZstdDecompress?: () => Transform }).createZstdDecompress;
    if (!zstd) throw new UnsafeLayer("the layer is zstd-compressed, which needs Node 22.15 or later");
    return zstd();
  }
  return new Transform({ transform: (chunk, _enc, done) => done(null, chunk) });
}

/** The `package.yaml` at any depth of a layer (the package format's stream file), or undefined. */
export async function extractPackageYaml(blobFile: string, maxBytes: number): Promise<string | undefined> {
  const extract = tar.extract();
  const done = pipeline(fs.createReadStream(blobFile), decompressor(blobFile), extract);
  let found: string | undefined;
  for await (const entry of extract) {
    const header = entry.header;
    if (found === undefined && header.type === "file" && path.posix.basename(header.name) === "package.yaml") {
      if ((header.size ?? 0) > maxBytes) throw new UnsafeLayer(`package.yaml is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
      const chunks: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
      found = Buffer.concat(chunks).toString("utf8");
    } else entry.resume();
  }
  await done;
  return found;
}

/** Removes an unpacked tree, read-only directories included. */
export function removeTree(dir: string): void {
  const writable = (d: string) => {
    const stat = lstat(d);
    if (!stat?.isDirectory()) return;
    fs.chmodSync(d, 0o700);
    for (const e of fs.readdirSync(d)) writable(path.join(d, e));
  };
  try {
    writable(dir);
  } catch {
    // best effort: rmSync says what is left
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
