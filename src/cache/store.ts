// cache/: work kept across runs, by the content it was made from (issue 38).
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { TOOL_VERSION } from "../version.js";

/**
 * A content-addressed store of per-file work (parsed files, for now) that outlives the run: one
 * pack file per repository root under `<cache dir>/work/<build>/`, read whole at the start and
 * written once at the end (to a temporary file renamed into place, so concurrent runs never see
 * half a pack: the last writer wins). Entries are kept by last use up to a size bound. A pack is
 * only ever read by the build of composition-ci that wrote it: the key of its directory is the
 * tool's version and a hash of its code, so no result outlives a change to the code that made it.
 */

export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** A pack: this line, a 4-byte length, a JSON index ({build, entries: [key, last used, size][]}), the entries' bytes in that order. */
const MAGIC = Buffer.from("composition-ci work pack 1\n");
const EMPTY = new Uint8Array(0);
/** Last use is kept to the day: a run that only reads what is there does not write the pack again. */
const DAY = 24 * 3600 * 1000;

interface Entry {
  /** The day a run last used it (ms since the epoch, a multiple of DAY). */
  used: number;
  /** v8-serialized value: its place in the pack read at the start (no view made until it is asked for), or its bytes. */
  start: number;
  size: number;
  bytes?: Uint8Array;
}

export class WorkStore {
  private readonly entries = new Map<string, Entry>();
  private changed = false;
  private readonly today = Math.floor(Date.now() / DAY) * DAY;

  private constructor(
    private readonly file: string,
    private readonly build: string,
    private readonly maxBytes: number,
  ) {}

  /** The store of `root`'s work in `cacheDir`; an unreadable or foreign pack is an empty store. */
  static open(cacheDir: string, root: string, maxBytes = DEFAULT_MAX_BYTES): WorkStore {
    const build = buildId();
    const scope = createHash("sha256").update(realpath(root)).digest("hex").slice(0, 16);
    const store = new WorkStore(path.join(cacheDir, "work", build, `${scope}.pack`), build, maxBytes);
    store.load();
    return store;
  }

  /** The pack read at the start; its entries are views into it. */
  private pack: Buffer = Buffer.alloc(0);

  private bytesOf(entry: Entry): Uint8Array {
    return (entry.bytes ??= this.pack.subarray(entry.start, entry.start + entry.size));
  }

  private load(): void {
    try {
      const pack = fs.readFileSync(this.file);
      this.pack = pack;
      if (!pack.subarray(0, MAGIC.length).equals(MAGIC)) return;
      const length = pack.readUInt32BE(MAGIC.length);
      let at = MAGIC.length + 4;
      const index = JSON.parse(pack.toString("utf8", at, at + length)) as { build: string; entries: [string, number, number][] };
      if (index.build !== this.build) return;
      at += length;
      for (const [key, used, size] of index.entries) {
        if (at + size > pack.length) return;
        this.entries.set(key, { used, start: at, size });
        at += size;
      }
    } catch {
      this.entries.clear();
    }
  }

  /** Whether a value is kept under `key` (marked used). */
  has(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry) this.use(entry);
    return entry !== undefined;
  }

  /** The value kept under `key`, marked used; undefined when there is none (or it cannot be read). */
  get(key: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    try {
      const value = v8.deserialize(this.bytesOf(entry));
      this.use(entry);
      return value;
    } catch {
      this.entries.delete(key);
      return undefined;
    }
  }

  /** Keeps `key` with no value: `has` answers for it. */
  mark(key: string): void {
    this.entries.set(key, { used: this.today, start: 0, size: 0, bytes: EMPTY });
    this.changed = true;
  }

  set(key: string, value: unknown): void {
    const bytes = v8.serialize(value);
    this.entries.set(key, { used: this.today, start: 0, size: bytes.length, bytes });
    this.changed = true;
  }

  private use(entry: Entry): void {
    if (entry.used === this.today) return;
    entry.used = this.today;
    this.changed = true;
  }

  /** Writes the pack when anything changed: the most recently used entries that fit, atomically. Never throws. */
  save(): void {
    if (!this.changed) return;
    const kept: [string, Entry][] = [];
    let size = 0;
    for (const [key, entry] of [...this.entries].sort((a, b) => b[1].used - a[1].used)) {
      size += entry.size + key.length + 32;
      if (size > this.maxBytes) break;
      kept.push([key, entry]);
    }
    const index = Buffer.from(JSON.stringify({ build: this.build, entries: kept.map(([key, e]) => [key, e.used, e.size]) }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(index.length);
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      writeParts(temporary, [MAGIC, length, index, ...kept.map(([, e]) => this.bytesOf(e))]);
      fs.renameSync(temporary, this.file);
      this.changed = false;
      removeStale(path.dirname(path.dirname(this.file)), this.build);
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  }
}

/** Writes the parts one after another without joining them first (a pack is tens of MiB). */
function writeParts(file: string, parts: Uint8Array[]): void {
  const fd = fs.openSync(file, "w");
  try {
    // writev takes at most IOV_MAX (1024 on Linux) buffers a call, and may write less than asked.
    for (let at = 0; at < parts.length; ) {
      const batch = parts.slice(at, at + 1024).filter((p) => p.length > 0);
      const total = batch.reduce((n, p) => n + p.length, 0);
      let written = batch.length ? fs.writevSync(fd, batch) : 0;
      const joined = written < total ? Buffer.concat(batch) : undefined;
      while (joined && written < total) written += fs.writeSync(fd, joined, written);
      at += 1024;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A key for content: the parts hashed with separators no part can forge. */
export function contentKey(...parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const p of parts) {
    const bytes = typeof p === "string" ? Buffer.from(p) : p;
    hash.update(`${bytes.length}:`);
    hash.update(bytes);
  }
  return hash.digest("base64url");
}

let build: string | undefined;

/** Set by the bundler (scripts/bundle.mjs): a hash of the source and the locked dependencies it was built from. */
declare const __COMPOSITION_CI_BUILD__: string | undefined;

/**
 * This build of composition-ci: its version and a hash of its code (the bundler's; run from
 * source, every source file's path, size and time).
 */
export function buildId(): string {
  if (build) return build;
  // The V8 that serialized a pack reads it; another is not asked to.
  const hash = createHash("sha256").update(`${TOOL_VERSION}\0${process.versions.v8}\0`);
  if (typeof __COMPOSITION_CI_BUILD__ === "string") hash.update(__COMPOSITION_CI_BUILD__);
  else {
    const self = fileURLToPath(import.meta.url);
    if (self.endsWith(".ts")) {
      // From source: every source file's path, size and time, and the locked dependencies.
      const src = path.resolve(path.dirname(self), "..");
      for (const file of sourceFiles(src)) {
        const stat = fs.statSync(file);
        hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
      }
      const lock = path.join(src, "..", "package-lock.json");
      if (fs.existsSync(lock)) hash.update(fs.readFileSync(lock));
    } else hash.update(fs.readFileSync(self));
  }
  build = `${TOOL_VERSION}-${hash.digest("hex").slice(0, 16)}`;
  return build;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/**
 * Packs of other builds are never read again, and a root no run checked for a week (a temporary
 * checkout) is unlikely to be checked again: those go, with what a writer that died left behind.
 */
function removeStale(workDir: string, build: string): void {
  const weekAgo = Date.now() - 7 * DAY;
  const hourAgo = Date.now() - 3600 * 1000;
  for (const name of fs.readdirSync(workDir)) {
    const dir = path.join(workDir, name);
    if (name !== build) {
      if (fs.statSync(dir).mtimeMs < weekAgo) fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    for (const pack of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!pack.isFile()) continue; // responses/ keeps its own bound (FunctionResponses)
      const file = path.join(dir, pack.name);
      const changed = fs.statSync(file).mtimeMs;
      if (changed < weekAgo || (!pack.name.endsWith(".pack") && changed < hourAgo)) fs.rmSync(file, { force: true });
    }
  }
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
