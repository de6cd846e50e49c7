import path from "node:path";
import { type FailOn } from "../core/finding.js";
import { COMMENT_LIMIT } from "../report/formats/markdown.js";
import { type CommandIO } from "./io.js";
import { UsageError, oneOf } from "../core/usage.js";
import { commandPackageSettings, maxCharsOption, nestedDepthOption, parseCommandArgs, TREE_OPTIONS, writeOutput, targetsOrUsage } from "./options.js";
import { parseDuration } from "./render-inputs.js";
import { formatDiff, runDiff } from "../run/diff.js";

export const DIFF_HELP = `Usage: composition-ci diff --base <ref> [--head <ref>] [paths...] [options]

Renders what the repository renders (XRs, claims, OAM ApplicationConfigurations) at the base ref
and at the head ref (default: the working tree), and reports what changed: per source and per
rendered object, with a unified diff of each changed object, and which findings are new, fixed
or unchanged. Only the sources whose files changed (the XR, its XRD, Compositions and Functions;
an ApplicationConfiguration's Components, definitions and scopes) are rendered, unless --all.
The base is checked out into a temporary directory through a throw-away index (its files that
the head holds byte for byte are hard links to the head's, not copies); your checkout, index and
worktrees are not changed.
Secret values are masked in everything written.

Options:
  --base REF                    the ref to compare against (required)
  --head REF                    the ref to compare (default: the working tree)
  --all                         render every source on both sides
  --format markdown|text|json|sarif
                                output format (default: markdown; text: the same report for a
                                terminal, without markup or a size limit)
  --output FILE                 write the report to FILE instead of stdout
  --max-chars N                 markdown size limit (default: 65000, a PR comment's)
  --fail-on error|warning|info|never
                                exit 1 when a finding at head reaches this severity (default: error)
  --fail-on-new                 count only findings that are new at head (a baseline: old
                                findings on the base branch do not fail the run)
  --allow-exec                  allow functions that run repository code (process, module,
                                Docker) and the Development targets the repository names
  --development-target NAME=ADDR
                                where the Development function NAME listens (repeatable)
  --trust-base-config           take what widens the run (schemaLocations, functions:) from the
                                base ref's config; the head's config may only narrow it (the
                                Action's pr mode does this)
  --timeout D                   per function call (default: 60s)
  --crossplane-version V        render as that Crossplane release prints it (default: the
                                config's crossplaneVersion, else v2.5)
  --max-nested-depth N          render composed XRs with their own Compositions this deep
                                (default 5; 0: not at all)
  --offline                     function packages only from the cache (see functions pull)
  --config FILE                 config file (default: .composition-ci.yaml at the root)
  --crds PATH                   CRD files or directories (repeatable)
  --policies PATH               admission policy files or directories besides the repository's (repeatable)
  --schema-location TEMPLATE    kubeconform-style schema location (repeatable)
  --root DIR                    repository root (default: .)
`;

const OPTIONS = {
  base: { type: "string" },
  head: { type: "string" },
  all: { type: "boolean" },
  "fail-on": { type: "string" },
  "fail-on-new": { type: "boolean" },
  "trust-base-config": { type: "boolean" },
  ...TREE_OPTIONS,
} as const;

export async function diffCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(DIFF_HELP);
    return 0;
  }
  if (!values.base) throw new UsageError("diff needs --base <ref>; see --help");
  const format = oneOf("--format", values.format ?? "markdown", ["markdown", "json", "sarif", "text"] as const);
  const failOn = oneOf<FailOn>("--fail-on", values["fail-on"] ?? "error", ["error", "warning", "info", "never"]);
  const maxChars = maxCharsOption(values["max-chars"], COMMENT_LIMIT);
  const result = await runDiff({
    root: path.resolve(io.cwd, values.root ?? "."),
    paths: positionals.length ? positionals : ["."],
    base: values.base,
    head: values.head,
    all: values.all,
    allowExec: values["allow-exec"],
    developmentTargets: targetsOrUsage(values["development-target"]),
    packages: commandPackageSettings(io, { offline: values.offline }),
    trustBaseConfig: values["trust-base-config"],
    timeoutMs: parseDuration(values.timeout ?? "60s"),
    maxNestedDepth: nestedDepthOption(values["max-nested-depth"]),
    crossplaneVersion: values["crossplane-version"],
    configFile: values.config,
    crds: values.crds,
    policies: values.policies,
    schemaLocations: values["schema-location"],
    failOn,
    failOnNew: values["fail-on-new"],
  });
  const text = formatDiff(result, format, maxChars);
  writeOutput(io, values.output, text);
  return result.report.verdict.failed ? 1 : 0;
}

function parse(argv: string[]) {
  return parseCommandArgs(argv, OPTIONS);
}
