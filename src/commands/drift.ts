import path from "node:path";
import { kubectlRunner } from "../drift/cluster.js";
import { updateSnapshotCommand } from "../drift/command.js";
import { COMMENT_LIMIT, formatDriftMarkdown } from "../report/formats/markdown.js";
import { type CommandIO } from "./io.js";
import { commandPackageSettings, maxCharsOption, nestedDepthOption, parseCommandArgs, TREE_OPTIONS, writeOutput, targetsOrUsage } from "./options.js";
import { oneOf } from "../core/usage.js";
import { parseDuration } from "./render-inputs.js";
import { runDrift } from "../run/drift.js";

export const DRIFT_HELP = `Usage: composition-ci drift [paths...] (--snapshot DIR | --cluster) [options]

Renders everything (XRs, claims, OAM ApplicationConfigurations) and compares it with baselines:
a committed snapshot of rendered objects, and/or the live cluster. Reports objects added, removed
or changed, sources that no longer render or render with new errors, and (with --cluster)
objects the cluster lacks or that an XR no longer renders. Secret values are masked.

Options:
  --snapshot DIR          the committed snapshot (one file per source); a DIR that does not
                          exist yet is reported, with the command that creates it, and every
                          source counts as added
  --update-snapshot       write or refresh the snapshot in DIR from today's render (says what it
                          wrote); commit DIR afterwards
  --cluster               compare with the cluster: kubectl get -o json, the ambient kubeconfig
  --kubectl PATH          the kubectl binary (default: kubectl on PATH)
  --context NAME          the kubeconfig context
  --previous FILE         the previous run's JSON report: marks each item new or persisting; a
                          FILE that does not exist yet (the first night) makes this the first report
  --format markdown|json  output format (default: markdown)
  --output FILE           write the report to FILE instead of stdout
  --max-chars N           markdown size limit (default: 65000)
  --fail-on-drift         exit 1 when there is drift
  --allow-exec            allow functions that run repository code (process, module, Docker)
                          and the Development targets the repository names
  --development-target NAME=ADDR
                          where the Development function NAME listens (repeatable)
  --timeout D             per function call (default: 60s)
  --max-nested-depth N    render composed XRs with their own Compositions this deep (default 5)
  --crossplane-version V  render as that Crossplane release prints it (default: the config's, else v2.5)
  --offline               function packages only from the cache (see functions pull)
  --config FILE, --crds PATH, --schema-location TEMPLATE, --root DIR   as for validate

Exit codes: 0 the report was written (drift or not, without --fail-on-drift); 1 there is drift and
--fail-on-drift is set (a --snapshot DIR that does not exist yet counts: every source is added);
2 usage: no baseline, --update-snapshot without --snapshot, a --snapshot that is not a directory,
a --previous FILE that is not a drift report, a cluster kubectl cannot reach, a path not found.
`;

const OPTIONS = {
  snapshot: { type: "string" },
  "update-snapshot": { type: "boolean" },
  cluster: { type: "boolean" },
  kubectl: { type: "string" },
  context: { type: "string" },
  previous: { type: "string" },
  "fail-on-drift": { type: "boolean" },
  ...TREE_OPTIONS,
} as const;

export async function driftCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(DRIFT_HELP);
    return 0;
  }
  const format = oneOf("--format", values.format ?? "markdown", ["markdown", "json"] as const);
  const maxChars = maxCharsOption(values["max-chars"], COMMENT_LIMIT);
  const result = await runDrift({
    root: path.resolve(io.cwd, values.root ?? "."),
    paths: positionals.length ? positionals : ["."],
    snapshot: values.snapshot && path.resolve(io.cwd, values.snapshot),
    updateSnapshot: values["update-snapshot"],
    cluster: values.cluster,
    kubectl: values.cluster ? kubectlRunner(values.kubectl ?? "kubectl", values.context) : undefined,
    previous: values.previous && path.resolve(io.cwd, values.previous),
    allowExec: values["allow-exec"],
    developmentTargets: targetsOrUsage(values["development-target"]),
    packages: commandPackageSettings(io, { offline: values.offline }),
    timeoutMs: parseDuration(values.timeout ?? "60s"),
    maxNestedDepth: nestedDepthOption(values["max-nested-depth"]),
    crossplaneVersion: values["crossplane-version"],
    configFile: values.config,
    crds: values.crds,
    schemaLocations: values["schema-location"],
  });
  if (result.update) {
    const u = result.update;
    io.stderr(`snapshot ${values.snapshot}: ${u.written.length} written, ${u.removed.length} removed, ${u.unchanged.length} unchanged\n`);
    const { notRendered, failed } = result.report.states;
    if (notRendered + failed)
      io.stderr(
        `  note: ${notRendered + failed} of its sources did not render (${notRendered} not rendered, ${failed} failed): their files hold their errors instead of what they make, so their drift is unknown until they render\n`,
      );
    for (const f of u.written) io.stderr(`  wrote ${f}\n`);
    for (const f of u.removed) io.stderr(`  removed ${f}\n`);
    if (u.written.length + u.removed.length) io.stderr(`  next: review and commit ${values.snapshot}: the drift run compares with what is committed\n`);
  }
  const missing = result.report.baselines.snapshotMissing;
  if (missing && values.snapshot) {
    const command = updateSnapshotCommand(values.snapshot, { paths: positionals, root: values.root, config: values.config });
    const what = missing === "no-directory" ? "does not exist yet" : "holds no snapshot file yet";
    io.stderr(`note: the snapshot directory ${values.snapshot} ${what}, so every source counts as added; create it with \`${command}\` and commit it\n`);
  }
  const report = result.masker.redactJson(result.report);
  const out =
    format === "json"
      ? JSON.stringify(report, null, 2) + "\n"
      : result.masker.redact(formatDriftMarkdown(report, { maxChars, fullReportHint: "The JSON report (--format json) holds everything." }));
  writeOutput(io, values.output, out);
  return values["fail-on-drift"] && result.report.items.length > 0 ? 1 : 0;
}

function parse(argv: string[]) {
  return parseCommandArgs(argv, OPTIONS);
}
