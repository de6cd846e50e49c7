import path from "node:path";
import { DEFAULT_LIMITS } from "../manifest/load.js";
import { notRenderedFindings, renderSummary } from "../render/not-rendered.js";
import { renderOpCommand } from "./render-op.js";
import { type Config } from "../config/config.js";
import { readManifests } from "../manifest/read.js";
import { compareFindings, summarize, type Finding } from "../core/finding.js";
import { formatReport } from "../report/formats/index.js";
import { renderComposite } from "../render/crossplane/render.js";
import { SEEDED_SECRETS } from "../render/functions/go-templating/reproducible.js";
import { callContext, functionManifests } from "../render/crossplane/repo.js";
import { renderEverything } from "../render/repo.js";
import { sourceTitle, streamFileNames } from "../rendered/source.js";
import { RuntimePool, type RuntimeOptions } from "../render/runner/select.js";
import { RepoIndex } from "../validate/repo-index.js";
import { TOOL_VERSION } from "../version.js";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";
import { writeOwnedFiles } from "./output-dir.js";
import { commandPackageSettings, nestedDepthOption, parseCommandArgs, targetsOrUsage } from "./options.js";
import { renderRelease } from "../run/release.js";
import type { CrossplaneRelease } from "../core/crossplane-releases.js";
import { readInputs, readObjects, single, schemaLookup, xrdFor, contextFrom, withAnnotations, requiredSchemas, parseDuration } from "./render-inputs.js";
import { yamlStream } from "../rendered/stream.js";
import { configOrUsage } from "../run/config.js";

export const RENDER_HELP = `Usage: composition-ci render <xr> <composition> [functions] [options]
       composition-ci render --all [paths...] [--output-dir DIR]
       composition-ci render op <operation> [functions] [options]   (see render op --help)

Renders composite resources through their Composition's function pipeline, with no Docker and no
cluster, printing the same YAML stream as \`crossplane render\`. With --all, also renders every OAM
ApplicationConfiguration into the workloads, traits and scopes the OAM runtime would create
(KubeVela Applications are not rendered: their definitions are CUE). Built-in functions
(function-patch-and-transform, function-auto-ready, function-go-templating,
function-environment-configs, function-extra-resources, function-cel-filter, function-kro) run in-process; trusted function packages are pulled from their
registry and run as processes (see functions pull); others run as configured under functions:
in .composition-ci.yaml, or as Development functions (annotation
render.crossplane.io/runtime: Development).

Without [functions], the Function objects of the repository (below --root) are used.

Options (the same names and short forms as crossplane render):
  -o, --observed-resources PATH observed composed resources (file or directory)
  -e, --required-resources PATH resources functions may require (file or directory; repeatable,
                                or comma-separated)
  --extra-resources PATH        the same, for functions that still ask for extra resources
  --context-files KEY=PATH      a JSON or YAML file as a context value (repeatable)
  --context-values KEY=VALUE    a JSON or YAML value as a context value (repeatable; wins over
                                --context-files)
  --function-credentials PATH   Secrets that steps reference as credentials
  -s, --required-schemas PATH   a directory of OpenAPI v3 JSON documents (kubectl get --raw
                                /openapi/v3/...), or CRDs and XRDs, whose schemas answer functions'
                                schema requirements (--all uses the repository's schemas instead)
  -a, --function-annotations KEY=VALUE
                                set an annotation on every Function, e.g.
                                render.crossplane.io/runtime=Development (repeatable)
  --xrd PATH                    the XRD whose defaults apply to the XR first
  -r, --include-function-results
                                print the functions' results as Result documents
  -x, --include-full-xr         print the input XR merged under the rendered one (v2.2: its spec
                                and metadata instead of the desired XR's)
  --crossplane-version V        print as that Crossplane release's crossplane render does: v2.3
                                and later run the XR reconciler (composed names, resourceRefs,
                                Responsive/Synced/Ready, events as Results), v2.2 and v1 the
                                in-process render (default: the config's crossplaneVersion, else
                                v2.5; docs/render.md)
  -c, --include-context         print the final context as a Context document
  --timeout D                   per-call timeout, e.g. 60s, 2m, 500ms (default: 60s)
  --allow-exec                  allow functions that run repository code (process, module,
                                Docker) and the Development targets the repository names
  --development-target NAME=ADDR
                                where the Development function NAME listens (repeatable)
  --offline                     function packages only from the cache (see functions pull)
  --all                         render every XR, claim and ApplicationConfiguration below the paths
  --output-dir DIR              with --all: one YAML stream per source in DIR
  --max-nested-depth N          with --all: render composed XRs with their own Compositions this
                                deep, their objects after the XR's (default 5; 0: not at all)
  --config FILE                 config file (default: .composition-ci.yaml at the root)
  --root DIR                    repository root; --all's [paths] are relative to it (default: .)
`;

const OPTIONS = {
  "observed-resources": { type: "string", short: "o" },
  "required-resources": { type: "string", short: "e", multiple: true },
  "extra-resources": { type: "string", multiple: true },
  "function-annotations": { type: "string", short: "a", multiple: true },
  "context-files": { type: "string", multiple: true },
  "context-values": { type: "string", multiple: true },
  "function-credentials": { type: "string" },
  "required-schemas": { type: "string", short: "s" },
  "crossplane-version": { type: "string" },
  // crossplane render's engine and project flags: composition-ci renders in-process, with no engine image.
  "crossplane-image": { type: "string" },
  "crossplane-binary": { type: "string" },
  "crossplane-docker-network": { type: "string" },
  "project-file": { type: "string", short: "f" },
  "cache-dir": { type: "string" },
  "max-concurrency": { type: "string" },
  xrd: { type: "string" },
  "include-function-results": { type: "boolean", short: "r" },
  "include-full-xr": { type: "boolean", short: "x" },
  "include-context": { type: "boolean", short: "c" },
  timeout: { type: "string" },
  "allow-exec": { type: "boolean" },
  offline: { type: "boolean" },
  "development-target": { type: "string", multiple: true },
  all: { type: "boolean" },
  "output-dir": { type: "string" },
  "max-nested-depth": { type: "string" },
  config: { type: "string" },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parse>["values"];
type CommandRuntimeOptions = RuntimeOptions & {
  timeoutMs: number;
  clusterDefinitions: string[];
  templateMounts: Record<string, string>;
  release: CrossplaneRelease;
};

export async function renderCommand(argv: string[], io: CommandIO): Promise<number> {
  if (argv[0] === "op") return renderOpCommand(argv.slice(1), io);
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(RENDER_HELP);
    return 0;
  }
  const root = path.resolve(io.cwd, values.root ?? ".");
  const config = configOrUsage(root, values.config);
  const runtimeOptions = {
    functions: config.functions,
    root,
    allowExec: Boolean(values["allow-exec"]),
    developmentTargets: targetsOrUsage(values["development-target"]),
    packages: commandPackageSettings(io, { offline: values.offline }),
    trustedPackages: config.trustedFunctions,
    clusterDefinitions: config.clusterDefinitions,
    templateMounts: config.templateMounts,
    release: renderRelease(values["crossplane-version"], config),
  };
  const timeoutMs = parseDuration(values.timeout ?? "60s");
  for (const flag of ENGINE_FLAGS) {
    if (values[flag] !== undefined)
      io.stderr(`note: --${flag} is ignored: composition-ci renders in-process, with no Crossplane engine image or project build\n`);
  }
  if (values.all) {
    const single = ONE_XR_FLAGS.filter((flag) => values[flag] !== undefined);
    if (single.length)
      throw new UsageError(
        `${single.map((f) => `--${f}`).join(", ")} appl${single.length === 1 ? "ies" : "y"} to the render of one XR, not to --all (each source there renders from what the repository holds)`,
      );
    return renderAll(positionals.length ? positionals : ["."], values, io, root, config, { ...runtimeOptions, timeoutMs });
  }
  if (positionals.length !== 2 && positionals.length !== 3) throw new UsageError("render needs <xr> <composition> [functions] (or --all); see --help");
  return renderOne(positionals as [string, string, string?], values, io, { ...runtimeOptions, timeoutMs }, config);
}

/** What only `render <xr> <composition>` reads; --all renders every source from the repository alone. */
const ONE_XR_FLAGS = [
  "observed-resources",
  "required-resources",
  "extra-resources",
  "function-annotations",
  "context-files",
  "context-values",
  "function-credentials",
  "required-schemas",
  "xrd",
  "include-context",
] as const;

const ENGINE_FLAGS = ["crossplane-image", "crossplane-binary", "crossplane-docker-network", "project-file", "cache-dir", "max-concurrency"] as const;

async function renderOne(
  [xrPath, compositionPath, functionsPath]: [string, string, string?],
  values: Values,
  io: CommandIO,
  options: CommandRuntimeOptions,
  config: Config,
): Promise<number> {
  const read = (p: string | undefined) => (p === undefined ? [] : readObjects(p, io.cwd));
  const readAll = (ps: string[] | undefined) =>
    (ps ?? [])
      .flatMap((p) => p.split(","))
      .filter(Boolean)
      .flatMap((p) => read(p));
  const xr = single(read(xrPath), xrPath, "XR");
  const composition = single(read(compositionPath), compositionPath, "Composition");
  // Without a functions file, the repository's: its Function objects, and its Upbound project's own functions.
  const repository = functionsPath ? undefined : new RepoIndex(readManifests(["."], options.root, config.ignore).manifests);
  const functionObjects = repository ? repository.manifests : readInputs(functionsPath!, io.cwd);
  const functions = withAnnotations(functionManifests(functionObjects), values["function-annotations"]);
  const pool = new RuntimePool(functions, { ...options, embeddedFunction: (name) => repository?.embeddedFunction(name, options.root) });
  try {
    const rendered = await renderComposite({
      xr,
      composition,
      runtime: (name) => pool.get(name),
      ...(values.xrd ? xrdFor(readInputs(values.xrd, io.cwd), xr) : {}),
      release: options.release,
      observedResources: read(values["observed-resources"]),
      requiredResources: [...readAll(values["required-resources"]), ...readAll(values["extra-resources"])],
      call: callContext(options, path.relative(options.root, path.resolve(io.cwd, compositionPath))),
      context: contextFrom(values, io.cwd),
      credentials: read(values["function-credentials"]),
      schemaFor: values["required-schemas"] ? requiredSchemas(values["required-schemas"], io.cwd) : undefined,
      timeoutMs: options.timeoutMs,
      includeFullXr: values["include-full-xr"],
      includeFunctionResults: values["include-function-results"],
      includeContext: values["include-context"],
    });
    for (const p of rendered.problems) {
      if (p.severity !== "info") io.stderr(`${p.severity}: ${p.rule}: ${p.message}${p.detail ? `\n${p.detail}` : ""}\n`);
      // Secret material the template made from the fixed seed is printed below: said where the user looks.
      else if (p.rule === "render/function-result" && p.message.includes(`: ${SEEDED_SECRETS} `)) io.stderr(`warning: ${p.rule}: ${p.message}\n`);
    }
    for (const n of rendered.notRunnable ?? []) {
      io.stderr(`warning: render/not-rendered: not rendered: step "${n.step}": function ${n.functionName} ${n.reason}. To render it: ${n.fix}\n`);
    }
    if (!rendered.ok) return 1;
    io.stdout(yamlStream(rendered.documents));
    return 0;
  } finally {
    await pool.close();
  }
}

async function renderAll(paths: string[], values: Values, io: CommandIO, root: string, config: Config, options: CommandRuntimeOptions): Promise<number> {
  const read = readManifests(
    paths.map((p) => path.resolve(root, p)),
    root,
    config.ignore,
    { ...DEFAULT_LIMITS, ...(config.maxFileBytes ? { maxFileBytes: config.maxFileBytes } : {}) },
  );
  const manifests = read.manifests;
  // Errors, and files too large to read: nothing in those renders, which must not pass in silence.
  const findings: Finding[] = read.findings.filter((x) => x.severity === "error" || x.rule === "file/too-large");
  const sources = await renderEverything(manifests, {
    ...options,
    schemaFor: schemaLookup(manifests, true),
    includeFunctionResults: values["include-function-results"],
    includeFullXr: values["include-full-xr"],
    maxNestedDepth: nestedDepthOption(values["max-nested-depth"]),
  });
  const outDir = values["output-dir"] && path.resolve(io.cwd, values["output-dir"]);
  const fileNames = streamFileNames(sources.map((s) => s.source));
  const written = new Map<string, string>();
  for (const [i, s] of sources.entries()) {
    findings.push(...s.findings);
    if (!s.ok) continue;
    const stream = yamlStream(s.documents);
    if (outDir) written.set(fileNames[i]!, stream);
    else io.stdout(`# ${sourceTitle(s.source)} via ${s.via}\n${stream}`);
  }
  if (outDir) {
    const { removed } = writeOwnedFiles(outDir, written);
    if (removed.length)
      io.stderr(
        `removed ${removed.length} stream${removed.length === 1 ? "" : "s"} an earlier run wrote into ${values["output-dir"]} that this run did not render: ${removed.join(", ")}\n`,
      );
  }
  findings.push(...notRenderedFindings(sources));
  findings.sort(compareFindings);
  const summary = summarize(findings, read.files, read.documents);
  const shown = findings.filter((f) => f.severity !== "info" || f.rule === "render/not-rendered" || f.rule === "render/oam-waiting");
  if (shown.length) io.stderr(formatReport("text", { findings: shown, summary, toolVersion: TOOL_VERSION }, { color: false }));
  io.stderr(renderSummary(sources));
  if (sources.length === 0 && manifests.length > 0) {
    io.stderr(
      `note: none of the ${manifests.length} object${manifests.length === 1 ? "" : "s"} below ${paths.join(", ")} is a source: an XR or claim renders when its XRD and a Composition for it are below the paths too\n`,
    );
  }
  return findings.some((f) => f.severity === "error") ? 1 : 0;
}

/**
 * The YAML stream `crossplane render` prints, byte for byte (go-yaml v2's layout, via src/goyaml).
 * A document Go's YAML could not print (control characters it rejects) is printed by the yaml
 * library instead: the render is not lost for it.
 */
function parse(argv: string[]) {
  return parseCommandArgs(argv, OPTIONS);
}
