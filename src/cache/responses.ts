import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import type { RunFunctionRequest, RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { buildId, contentKey } from "./store.js";

/** The default bound of the responses kept, by last use. */
export const DEFAULT_RESPONSE_BYTES = 64 * 1024 * 1024;
const DAY = 24 * 3600 * 1000;

/**
 * What function packages answered, kept across runs (issue 38) where the caller vouches that the
 * image digest, the request and an identity it gives are all an answer follows from (a project's
 * KCL function whose kcl.mod pins every dependency: runtimes/package.ts `identity`): such a request
 * is answered from here without starting the process. One file per answer under
 * `<cache dir>/work/<build>/responses/`, written atomically (temporary file, then rename), kept to a
 * size bound by last use.
 */
export class FunctionResponses {
  private pruned = false;
  private readonly dir: string;

  constructor(
    cacheDir: string,
    private readonly maxBytes = DEFAULT_RESPONSE_BYTES,
  ) {
    this.dir = path.join(cacheDir, "work", buildId(), "responses");
  }

  /** The key of `req` sent to the image `digest`; `identity` is what else reaches the process (a project function's source). */
  key(digest: string, identity: string, req: RunFunctionRequest): string {
    return contentKey(digest, identity, v8.serialize(req));
  }

  /** The kept answer, marked used; undefined when there is none or it cannot be read. */
  get(key: string): RunFunctionResponse | undefined {
    const file = path.join(this.dir, key);
    try {
      const response = v8.deserialize(fs.readFileSync(file)) as RunFunctionResponse;
      const now = Date.now();
      if (now - fs.statSync(file).mtimeMs > DAY) fs.utimesSync(file, now / 1000, now / 1000);
      return response;
    } catch {
      return undefined;
    }
  }

  /** Keeps an answer; a cache that cannot be written is no cache, never a failure of the run. */
  set(key: string, response: RunFunctionResponse): void {
    const file = path.join(this.dir, key);
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      fs.writeFileSync(temporary, v8.serialize(response));
      fs.renameSync(temporary, file);
      if (!this.pruned) this.prune();
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  }

  /** Once a run: the least recently used answers past the bound go, with what a writer that died left behind. */
  private prune(): void {
    this.pruned = true;
    const hourAgo = Date.now() - 3600 * 1000;
    const files = fs.readdirSync(this.dir).map((name) => {
      const stat = fs.statSync(path.join(this.dir, name));
      return { name, size: stat.size, used: stat.mtimeMs };
    });
    let size = 0;
    for (const f of files.sort((a, b) => b.used - a.used)) {
      size += f.size;
      const abandoned = f.name.endsWith(".tmp") && f.used < hourAgo;
      if (size > this.maxBytes || abandoned) fs.rmSync(path.join(this.dir, f.name), { force: true });
    }
  }
}
