import path from "node:path";
import { readManifests } from "../manifest/read.js";
import { renderOperation } from "../render/crossplane/operation.js";
import { functionManifests } from "../render/crossplane/repo.js";
import { RuntimePool } from "../render/runner/select.js";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";
import { commandPackageSettings, parseCommandArgs, targetsOrUsage } from "./options.js";
import { renderRelease } from "../run/release.js";
import { contextFrom, parseDuration, readInputs, readObjects, requiredSchemas, single, withAnnotations } from "./render-inputs.js";
import { yamlStream } from "../rendered/stream.js";
import { configOrUsage } from "../run/config.js";

export const RENDER_OP_HELP = `Usage: composition-ci render op <operation> [functions] [options]

Renders an Operation (or the Operation a CronOperation or WatchOperation creates) as
\`crossplane operation render\` does: the Operation with the status its controller gives it, the
resources its pipeline applies, and, when asked, Results and the Context. Without functions, the
Functions of the repository are used. Built-in functions run in-process; others as for render.

Options:
  -e, --required-resources PATH   resources functions may require (repeatable, comma-separated)
  -w, --watched-resource PATH     a WatchOperation's watched resource (also a required resource)
  -o, --include-full-operation    print the Operation's spec too
  -r, --include-function-results  print the functions' results as Result documents
  -c, --include-context           print the final context as a Context document
  --context-files K=PATH, --context-values K=JSON
  --function-credentials PATH     Secrets the steps' credentials name
  -s, --required-schemas DIR      OpenAPI v3 documents (JSON) for functions that require schemas
  -a, --function-annotations K=V  set on every Function (repeatable)
  --crossplane-version V          print as that release does: v2.3 and later run the Operation
                                  controller (its conditions, the spec, events as Results),
                                  v2.2 the in-process render (default: the config's, else v2.5)
  --timeout D, --allow-exec, --offline, --development-target NAME=ADDR, --config FILE, --root DIR
`;

const OPTIONS = {
  "required-resources": { type: "string", short: "e", multiple: true },
  "watched-resource": { type: "string", short: "w" },
  "include-full-operation": { type: "boolean", short: "o" },
  "include-function-results": { type: "boolean", short: "r" },
  "include-context": { type: "boolean", short: "c" },
  "context-files": { type: "string", multiple: true },
  "context-values": { type: "string", multiple: true },
  "function-credentials": { type: "string" },
  "required-schemas": { type: "string", short: "s" },
  "function-annotations": { type: "string", short: "a", multiple: true },
  timeout: { type: "string" },
  "crossplane-version": { type: "string" },
  "allow-exec": { type: "boolean" },
  offline: { type: "boolean" },
  "development-target": { type: "string", multiple: true },
  config: { type: "string" },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function renderOpCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    io.stdout(RENDER_OP_HELP);
    return 0;
  }
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError("render op needs <operation> [functions]; see render op --help");
  const root = path.resolve(io.cwd, values.root ?? ".");
  const config = configOrUsage(root, values.config);
  const [operationPath, functionsPath] = positionals as [string, string?];
  const operation = single(readObjects(operationPath, io.cwd), operationPath, "Operation");
  const watched = values["watched-resource"] ? readObjects(values["watched-resource"], io.cwd) : undefined;
  if (watched && watched.length !== 1) throw new UsageError(`--watched-resource must contain exactly one resource, got ${watched.length}`);
  const functionObjects = functionsPath ? readInputs(functionsPath, io.cwd) : readManifests(["."], root, config.ignore).manifests;
  const functions = withAnnotations(functionManifests(functionObjects), values["function-annotations"]);
  const pool = new RuntimePool(functions, {
    functions: config.functions,
    root,
    allowExec: values["allow-exec"] === true,
    developmentTargets: targetsOrUsage(values["development-target"]),
    packages: commandPackageSettings(io, { offline: values.offline }),
    trustedPackages: config.trustedFunctions,
  });
  const required = (values["required-resources"] ?? [])
    .flatMap((p) => p.split(","))
    .filter(Boolean)
    .flatMap((p) => readObjects(p, io.cwd));
  try {
    const rendered = await renderOperation({
      operation,
      watched: watched?.[0],
      runtime: (name) => pool.get(name),
      requiredResources: required,
      context: contextFrom(values, io.cwd),
      credentials: values["function-credentials"] ? readObjects(values["function-credentials"], io.cwd) : [],
      schemaFor: values["required-schemas"] ? requiredSchemas(values["required-schemas"], io.cwd) : undefined,
      timeoutMs: parseDuration(values.timeout ?? "60s"),
      includeFullOperation: values["include-full-operation"],
      includeFunctionResults: values["include-function-results"],
      includeContext: values["include-context"],
      release: renderRelease(values["crossplane-version"], config),
    });
    for (const p of rendered.problems) if (p.severity !== "info") io.stderr(`${p.severity}: ${p.rule}: ${p.message}${p.detail ? `\n${p.detail}` : ""}\n`);
    for (const n of rendered.notRunnable ?? [])
      io.stderr(`warning: render/not-rendered: not rendered: step "${n.step}": function ${n.functionName} ${n.reason}. To render it: ${n.fix}\n`);
    if (!rendered.ok) return 1;
    io.stdout(yamlStream(rendered.documents));
    return 0;
  } finally {
    await pool.close();
  }
}
