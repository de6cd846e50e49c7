import path from "node:path";
import { readManifests } from "../manifest/read.js";
import { functionManifests } from "../render/crossplane/repo.js";
import { PackageRuntime } from "../runtimes/package.js";
import { FunctionFailure } from "../runtimes/runtime.js";
import { runtimeFor } from "../render/runner/select.js";
import { projectRuntime, ProjectPackageRuntime } from "../render/runner/project.js";
import { embeddedFunctions, projectsOf } from "../project/index.js";
import { loadPackageSchemas } from "../packages/schemas.js";
import { prefetchKptImages } from "../kpt/index.js";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";
import { commandPackageSettings, parseCommandArgs } from "./options.js";
import { configOrUsage } from "../run/config.js";

export const FUNCTIONS_HELP = `Usage: composition-ci functions pull [paths...] [options]

Fills the package cache with every function package the repository's Functions would run as a
process (trusted packages: the crossplane-contrib functions, the config's functions.trusted, or
every package with --allow-exec), and every trusted function image of the repository's kpt
packages' pipelines (Kptfiles), the base package of every project function that runs on one
(a KCL folder of crossplane-project.yaml or upbound.yaml runs on function-kcl, when trusted) with
the KCL modules its kcl.mod depends on,
for the platform of this machine, and with the schemas
(package.yaml) of the packages the repository depends on (crossplane.yaml, upbound.yaml,
Provider/Function/Configuration objects, the config's packages:). A later run, --offline or not,
then makes no registry request for them. Keep the cache directory with actions/cache.

Options:
  --allow-exec          pull every Function's package, trusted or not
  --cache-dir DIR       the cache (default: $COMPOSITION_CI_CACHE or ~/.cache/composition-ci)
  --config FILE         config file (default: .composition-ci.yaml at the root)
  --root DIR            repository root (default: .)
`;

const OPTIONS = {
  "allow-exec": { type: "boolean" },
  "cache-dir": { type: "string" },
  config: { type: "string" },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function functionsCommand(argv: string[], io: CommandIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseCommandArgs(rest, OPTIONS);
  if (values.help || sub === "--help" || sub === "-h" || sub === undefined) {
    io.stdout(FUNCTIONS_HELP);
    return 0;
  }
  if (sub !== "pull") throw new UsageError(`unknown functions command "${sub}"; see composition-ci functions --help`);
  const root = path.resolve(io.cwd, values.root ?? ".");
  const config = configOrUsage(root, values.config);
  const manifests = readManifests(
    (positionals.length ? positionals : ["."]).map((p) => path.resolve(io.cwd, p)),
    root,
    config.ignore,
  ).manifests;
  const packages = { ...commandPackageSettings(io, { "cache-dir": values["cache-dir"] }), offline: false };
  const options = { functions: config.functions, root, allowExec: values["allow-exec"] === true, packages, trustedPackages: config.trustedFunctions };
  let pulled = 0;
  let failed = 0;
  const skipped: string[] = [];
  for (const [name, fn] of functionManifests(manifests)) {
    const runtime = runtimeFor(fn, name, options);
    if (!(runtime instanceof PackageRuntime)) {
      skipped.push(`${name} (${runtime.kind === "builtin" ? "built in" : runtime.kind === "package" ? "not trusted" : `runs as ${runtime.kind}`})`);
      continue;
    }
    try {
      const image = await runtime.prefetch();
      io.stderr(`${name}: ${image.reference} ${image.platform.os}/${image.platform.architecture} ${image.digest.slice(0, 19)}\n`);
      pulled++;
    } catch (err) {
      failed++;
      io.stderr(`${name}: ${(err as FunctionFailure).message}\n`);
    }
  }
  const bases = new Set<string>();
  let modules = 0;
  for (const { name, fn } of embeddedFunctions(projectsOf(manifests), root)) {
    const runtime = projectRuntime(name, fn, options);
    if (!(runtime instanceof ProjectPackageRuntime)) continue;
    try {
      if (!bases.has(runtime.image)) {
        bases.add(runtime.image);
        const image = await runtime.prefetch();
        io.stderr(`${name} (project function, base): ${image.reference} ${image.platform.os}/${image.platform.architecture} ${image.digest.slice(0, 19)}\n`);
        pulled++;
      }
      for (const module of await runtime.prefetchModules()) {
        io.stderr(`${name} (project function, kcl.mod): ${module.replace(/(@sha256:.{12}).*$/, "$1")}\n`);
        modules++;
      }
    } catch (err) {
      failed++;
      io.stderr(`${name}: ${(err as FunctionFailure).message}\n`);
    } finally {
      await runtime.close();
    }
  }
  let images = 0;
  for (const kpt of await prefetchKptImages(manifests, {
    root,
    allowExec: options.allowExec,
    trustedPackages: config.trustedFunctions,
    packages,
    timeoutMs: 60_000,
  })) {
    if (kpt.outcome === "builtin") continue;
    if (kpt.outcome === "skipped") skipped.push(`${kpt.file} ${kpt.step} (not trusted)`);
    else io.stderr(`${kpt.file} ${kpt.step}: ${kpt.detail}\n`);
    if (kpt.outcome === "pulled") images++;
    if (kpt.outcome === "failed") failed++;
  }
  const schemas = await loadPackageSchemas(manifests, {
    packages,
    trusted: config.trustedFunctions,
    configPackages: config.packages,
    allowExec: options.allowExec,
  });
  for (const used of schemas.used) io.stderr(`schemas: ${used.reference} ${used.digest.slice(0, 19)} (${used.crds} CRDs)\n`);
  for (const f of schemas.findings) io.stderr(`${f.severity}: ${f.message}\n`);
  const schemaFailures = schemas.findings.filter((f) => f.severity === "warning").length;
  io.stderr(
    `${pulled} function package${pulled === 1 ? "" : "s"}${images ? `, ${images} kpt function image${images === 1 ? "" : "s"}` : ""}${modules ? `, ${modules} KCL module${modules === 1 ? "" : "s"}` : ""} and ${schemas.used.length} package schema${schemas.used.length === 1 ? "" : "s"} in ${path.join(packages.cacheDir, "oci")}${failed + schemaFailures ? `; ${failed + schemaFailures} failed` : ""}${skipped.length ? `; not pulled: ${skipped.join(", ")}` : ""}\n`,
  );
  return failed + schemaFailures ? 1 : 0;
}
