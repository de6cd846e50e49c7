import path from "node:path";
import { ConfigError, loadConfig, type MissingSchemaPolicy } from "../config/config.js";
import { compareFindings, failsAt, findingKey, summarize, type FailOn, type Finding } from "../core/finding.js";
import { formatReport, OUTPUT_FORMATS, type OutputFormat } from "../report/formats/index.js";
import { type Coverage } from "../report/report.js";
import { KubeconformUnavailable, type Engine } from "../validate/kubeconform.js";
import { validateRepo, type ValidateResult } from "../run/validate.js";
import { TOOL_VERSION } from "../version.js";
import { maskFindings, type SecretMasker } from "../secrets/mask.js";
import { maskerFor } from "../rendered/secrets.js";
import type { RenderedSource } from "../rendered/source.js";
import { type CommandIO } from "./io.js";
import { UsageError, oneOf } from "../core/usage.js";
import { commandPackageSettings, parseCommandArgs, writeOutput } from "./options.js";
import type { PolicyExplain } from "../policy/index.js";

export const VALIDATE_HELP = `Usage: composition-ci validate [paths...] [options]

Checks every manifest (*.yaml, *.yml, *.json) below the paths (default: .) against its schema.

Options:
  --format text|json|sarif|junit   output format (default: text)
  --output FILE                    write the report to FILE instead of stdout
  --fail-on error|warning|info|never
                                   exit 1 when a finding reaches this severity (default: error)
  --config FILE                    config file (default: .composition-ci.yaml at the root)
  --crds PATH                      CRD files or directories (repeatable)
  --policies PATH                  admission policy files or directories besides the repository's
                                   (ValidatingAdmissionPolicy, Kyverno, Gatekeeper; repeatable)
  --explain-policies               list each policy: what it matched, passed, failed, could not evaluate
  --schema-location TEMPLATE       kubeconform-style schema location (repeatable)
  --missing-schemas error|warning|ignore
                                   what a kind with no schema is (default: warning)
  --engine builtin|kubeconform|both
                                   who validates Kubernetes core kinds (default: builtin)
  --kubeconform PATH               the kubeconform binary (default: kubeconform on PATH)
  --max-file-bytes N               skip larger files with a finding (default: 5 MiB)
  --cache-dir DIR                  compiled validators and downloaded schemas
  --no-cache                       compile every schema afresh, write nothing
  --offline                        package schemas only from the cache (no registry request)
  --root DIR                       repository root; [paths] and the paths in findings are relative to it (default: .)
  --debug                          print the stack of an internal error with its finding
`;

const OPTIONS = {
  format: { type: "string" },
  output: { type: "string" },
  "fail-on": { type: "string" },
  config: { type: "string" },
  crds: { type: "string", multiple: true },
  policies: { type: "string", multiple: true },
  "explain-policies": { type: "boolean" },
  "schema-location": { type: "string", multiple: true },
  "missing-schemas": { type: "string" },
  engine: { type: "string" },
  kubeconform: { type: "string" },
  "max-file-bytes": { type: "string" },
  "cache-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  offline: { type: "boolean" },
  root: { type: "string" },
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The masked report, handed back to an extension that writes more files from it (check --output-dir). */
export interface FinishedReport {
  findings: Finding[];
  summary: ReturnType<typeof summarize>;
  masker: SecretMasker;
}

/**
 * More findings from a finished validation (check adds rendering), and what it rendered; they go
 * through the same report. `finish` runs after the report is written.
 */
export type ValidationExtension = (
  result: ValidateResult,
  root: string,
) => Promise<{
  findings: Finding[];
  sources?: RenderedSource[];
  coverage?: Coverage;
  policyExplain?: PolicyExplain[];
  finish?: (report: FinishedReport) => void;
}>;

export async function validateCommand(argv: string[], io: CommandIO, extend?: ValidationExtension, trust: { allowExec?: boolean } = {}): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(VALIDATE_HELP);
    return 0;
  }
  const format = oneOf<OutputFormat>("--format", values.format ?? "text", OUTPUT_FORMATS);
  const failOn = oneOf<FailOn>("--fail-on", values["fail-on"] ?? "error", ["error", "warning", "info", "never"]);
  const engine = oneOf<Engine>("--engine", values.engine ?? "builtin", ["builtin", "kubeconform", "both"]);
  const missing =
    values["missing-schemas"] === undefined
      ? undefined
      : oneOf<MissingSchemaPolicy>("--missing-schemas", values["missing-schemas"], ["error", "warning", "ignore"]);
  const maxFileBytes = values["max-file-bytes"] === undefined ? undefined : positiveInt("--max-file-bytes", values["max-file-bytes"]);
  const root = path.resolve(io.cwd, values.root ?? ".");

  let result;
  try {
    const config = loadConfig(root, values.config);
    result = await validateRepo({
      root,
      paths: positionals.length ? positionals : ["."],
      config,
      crds: values.crds,
      policies: values.policies,
      schemaLocations: values["schema-location"],
      missingSchemas: missing,
      limits: maxFileBytes ? { maxFileBytes } : undefined,
      cacheDir: values["no-cache"] ? null : values["cache-dir"] && path.resolve(io.cwd, values["cache-dir"]),
      engine,
      kubeconformPath: values.kubeconform,
      packages: { settings: commandPackageSettings(io, values), allowExec: trust.allowExec === true },
    });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof KubeconformUnavailable) throw new UsageError(err.message);
    throw err;
  }
  let sources: RenderedSource[] = [];
  let finish: ((report: FinishedReport) => void) | undefined;
  let coverage: Coverage | undefined;
  let policyExplain = result.policyExplain;
  if (extend) {
    const seen = new Set(result.findings.map(findingKey));
    const extended = await extend(result, root);
    result.findings.push(...extended.findings.filter((f) => !seen.has(findingKey(f))));
    result.findings.sort(compareFindings);
    sources = extended.sources ?? [];
    finish = extended.finish;
    coverage = extended.coverage;
    policyExplain = extended.policyExplain ?? policyExplain;
  }
  // Secret values never reach the output, not even through a message a repository's CEL rule builds.
  const masker = maskerFor(result.manifests, sources, result.config.secretFields, [result.secrets]);
  const findings = maskFindings(result.findings, masker);
  const summary = summarize(findings, result.files, result.documents);
  const text = formatReport(
    format,
    { findings, summary, toolVersion: TOOL_VERSION, packages: result.packages, failOn, coverage, ...(policyExplain.length ? { policies: policyExplain } : {}) },
    { color: format === "text" && !values.output && io.isTTY, debug: values.debug === true },
  );
  writeOutput(io, values.output, text);
  if (values["explain-policies"]) io.stderr(explainPolicies(policyExplain));
  finish?.({ findings, summary, masker });
  return findings.some((f) => failsAt(f, failOn)) ? 1 : 0;
}

function parse(argv: string[]) {
  return parseCommandArgs(argv, OPTIONS);
}

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive whole number (got "${value}")`);
  return n;
}

/** `--explain-policies`: a line per policy, so none is ever silently skipped. */
function explainPolicies(explain: PolicyExplain[]): string {
  if (!explain.length) return "no admission policies found (the repository's, the config's policies: and --policies)\n";
  const lines = explain.map((e) => {
    const where = e.file ? ` (${e.file}${e.line ? `:${e.line}` : ""})` : "";
    const counts = `matched ${e.matched}: ${e.passed} passed, ${e.failed} failed, ${e.notEvaluated} not evaluated${e.errors ? `, ${e.errors} errors` : ""}${e.skipped ? `, ${e.skipped} skipped` : ""}`;
    return `  ${e.policyKind} ${e.policy}${where}: ${counts}${e.note ? ` — ${e.note}` : ""}`;
  });
  return `policies:\n${lines.join("\n")}\n`;
}
