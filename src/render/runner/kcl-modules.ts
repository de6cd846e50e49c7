import fs from "node:fs";
import path from "node:path";
import { pullImage, PullError, type PulledImage } from "../../oci/image.js";
import { completedLock, kclDependencies, kpmHashDir, moduleReference, moduleVersion, type KclModule } from "../../project/kcl-modules.js";
import type { PackageSettings } from "../../runtimes/package.js";
import { FunctionNotRunnable } from "../../runtimes/runtime.js";

/** The annotation kpm puts the module's checksum in when it pushes it. */
const SUM_ANNOTATION = "org.kcllang.package.sum";

const PULL_FIX = "run `composition-ci functions pull` where the registry can be reached, and keep its cache (actions/cache)";

/**
 * Puts the KCL modules a project function's `kcl.mod` depends on (and theirs) where kpm looks for
 * them in the function's copy of the folder, from the package cache (pulled into it first unless
 * the run is offline), and completes the copy's `kcl.mod.lock` so that kpm asks no registry for
 * a checksum. A module the folder already holds is used as it is (its own dependencies too).
 * Returns the modules' digests and whether every dependency was put in place: one kpm fetches
 * itself (git, an OCI module without a tag) can change without anything here saying so.
 */
export async function prefillKclModules(copy: string, settings: PackageSettings): Promise<{ modules: string[]; pinned: boolean }> {
  const declared = kclDependencies(copy);
  if (!declared) return { modules: [], pinned: true };
  const digests: string[] = [];
  const fetchedByFunction = [...declared.fetchedByFunction];
  const locked: { module: KclModule; version: string; sum: string }[] = [];
  const queue = [...declared.modules];
  const seen = new Set<string>();
  for (let m = queue.shift(); m; m = queue.shift()) {
    if (seen.has(m.dir)) continue;
    seen.add(m.dir);
    const target = path.join(copy, m.dir);
    let sum: string | undefined;
    if (fs.existsSync(path.join(target, "kcl.mod"))) digests.push(`${moduleReference(m)}@folder`);
    else {
      const image = await pullModule(m, settings);
      fs.cpSync(image.root, target, { recursive: true });
      makeWritable(target);
      digests.push(`${moduleReference(m)}@${image.digest}`);
      sum = image.annotations?.[SUM_ANNOTATION];
    }
    const version = moduleVersion(target);
    if (version !== undefined) locked.push({ module: m, version, sum: sum || kpmHashDir(target) });
    const theirs = kclDependencies(target);
    queue.push(...(theirs?.modules ?? []));
    fetchedByFunction.push(...(theirs?.fetchedByFunction.map((d) => `${d} (a dependency of ${m.name})`) ?? []));
  }
  if (settings.offline && fetchedByFunction.length)
    throw new FunctionNotRunnable(
      `depends on ${fetchedByFunction.join(", ")} in kcl.mod, which function-kcl fetches from the network itself: an --offline run cannot have it`,
      'run without --offline, or pin the dependency as an OCI module with a tag (`name = "version"`, or oci and tag), which the package cache can hold',
    );
  const lockFile = path.join(copy, "kcl.mod.lock");
  const lock = completedLock(fs.existsSync(lockFile) ? fs.readFileSync(lockFile, "utf8") : undefined, locked);
  if (lock !== undefined) fs.writeFileSync(lockFile, lock);
  return { modules: digests, pinned: fetchedByFunction.length === 0 };
}

async function pullModule(m: KclModule, settings: PackageSettings): Promise<PulledImage> {
  const reference = moduleReference(m);
  try {
    return await pullImage(reference, { ...settings, pullPolicy: "IfNotPresent" });
  } catch (err) {
    if (!(err instanceof PullError)) throw err;
    if (err.kind === "offline")
      throw new FunctionNotRunnable(`needs the KCL module ${reference} (kcl.mod), which is not in the package cache: ${err.message}`, PULL_FIX);
    throw new FunctionNotRunnable(
      `needs the KCL module ${reference} (kcl.mod), which could not be pulled: ${err.message}`,
      `check the dependency in kcl.mod and the registry's credentials (docker login), or ${PULL_FIX}`,
    );
  }
}

/** The unpacked module is read-only in the cache; its copy is the function's to write, as /src is in the built image. */
function makeWritable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) makeWritable(full);
    else if (e.isFile()) fs.chmodSync(full, 0o644);
  }
}
