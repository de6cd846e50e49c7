// commands/: the CLI's adapter, one file per command: argv in, a use case of run/ (or a room's door), text, JSON or files out.
import fs from "node:fs";
import path from "node:path";
import { renderSummary, sourceCoverage } from "../render/not-rendered.js";
import { parseDuration } from "./render-inputs.js";
import { type CommandIO } from "./io.js";
import { UsageError } from "../core/usage.js";
import { commandPackageSettings, nestedDepthOption, packageFlags, targetsOrUsage } from "./options.js";
import { validateCommand, type FinishedReport } from "./validate.js";
import { yamlStream } from "../rendered/stream.js";
import { formatReport } from "../report/formats/index.js";
import { type Coverage } from "../report/report.js";
import { TOOL_VERSION } from "../version.js";
import { streamFileNames } from "../rendered/source.js";
import type { RenderedSource } from "../rendered/source.js";
import { checkTests, type TestCounts } from "../testing/index.js";
import { writeOwnedFiles } from "./output-dir.js";
import { renderAndValidate } from "../run/check.js";

export const CHECK_HELP = `Usage: composition-ci check [paths...] [options]

The main job: validates every manifest below the paths, renders every XR and claim example
through its Composition's pipeline (nested XRs too), every Operation, every kpt package through
its Kptfile pipeline and every OAM ApplicationConfiguration into its workloads, traits and
scopes, and validates the rendered objects (render/schema). Then it runs the
repository's tests (CompositionTests and golden files, as composition-ci test runs them): a
failing test is an error (test/failed).

Options: those of validate, and
  --allow-exec      allow functions that run repository code (process, module, Docker)
                    and connecting to the Development targets the repository names
  --development-target NAME=ADDR
                    where the Development function NAME listens (repeatable)
  --timeout D       per function call (default: 60s)
  --offline         function packages only from the cache (see functions pull)
  --max-nested-depth N
                    render composed XRs with their own Compositions this deep (default 5; 0: not)
  --crossplane-version V
                    render as that Crossplane release's crossplane render prints it (v2.2,
                    v2.3.4, v2.5; default: the config's crossplaneVersion, else v2.5)
  --no-render       validation only
  --output-dir DIR  also write DIR/rendered/ (one YAML stream per rendered source, as
                    crossplane render prints it, secret values masked), DIR/report.json
                    and DIR/report.sarif
`;

/** Splits check's own flags from those it hands to validate. */
function ownFlags(argv: string[]) {
  const rest: string[] = [];
  const own = {
    allowExec: false,
    render: true,
    timeout: "60s",
    targets: [] as string[],
    outputDir: undefined as string | undefined,
    offline: false,
    maxNestedDepth: undefined as number | undefined,
    crossplaneVersion: undefined as string | undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--allow-exec") own.allowExec = true;
    else if (a === "--no-render") own.render = false;
    else if (a === "--max-nested-depth" || a.startsWith("--max-nested-depth=")) {
      const value = a.startsWith("--max-nested-depth=") ? a.slice("--max-nested-depth=".length) : argv[++i];
      // A flag left without its value is said as one with a wrong value.
      own.maxNestedDepth = nestedDepthOption(value ?? "a missing value");
    } else if (a === "--crossplane-version" || a.startsWith("--crossplane-version=")) {
      const value = a.startsWith("--crossplane-version=") ? a.slice("--crossplane-version=".length) : argv[++i];
      if (!value) throw new UsageError("--crossplane-version needs a release (v2.5, v2.3.4, v2.2)");
      own.crossplaneVersion = value;
    } else if (a === "--offline") {
      own.offline = true;
      rest.push(a); // validate fetches package schemas too
    } else if (a === "--development-target" || a.startsWith("--development-target=")) {
      const value = a.includes("=") && a.startsWith("--development-target=") ? a.slice("--development-target=".length) : argv[++i];
      if (value === undefined) throw new UsageError("--development-target needs NAME=ADDRESS");
      own.targets.push(value);
    } else if (a === "--output-dir" || a.startsWith("--output-dir=")) {
      const value = a.startsWith("--output-dir=") ? a.slice("--output-dir=".length) : argv[++i];
      if (!value) throw new UsageError("--output-dir needs a directory");
      own.outputDir = value;
    } else if (a === "--timeout") {
      if (argv[i + 1] === undefined) throw new UsageError("--timeout needs a duration");
      own.timeout = argv[++i]!;
    } else if (a.startsWith("--timeout=")) own.timeout = a.slice("--timeout=".length);
    else rest.push(a);
  }
  return { own, rest };
}

export async function checkCommand(argv: string[], io: CommandIO): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(CHECK_HELP);
    return 0;
  }
  const { own, rest } = ownFlags(argv);
  const timeoutMs = parseDuration(own.timeout);
  const developmentTargets = targetsOrUsage(own.targets);
  if (!own.render) return validateCommand(rest, io, undefined, { allowExec: own.allowExec });
  return validateCommand(
    rest,
    io,
    async (result, root) => {
      const packages = result.packageSettings ?? commandPackageSettings(io, { ...packageFlags(rest), offline: own.offline });
      const { sources, findings, policyExplain } = await renderAndValidate(result, root, {
        allowExec: own.allowExec,
        timeoutMs,
        developmentTargets,
        packages,
        maxNestedDepth: own.maxNestedDepth,
        crossplaneVersion: own.crossplaneVersion,
      });
      if (sources.length) io.stderr(renderSummary(sources));
      // The repository's CompositionTests and golden files (composition-ci test): a failing one is an error finding.
      const tests = await checkTests(result, root, { allowExec: own.allowExec, timeoutMs, developmentTargets, packages });
      if (tests.summary) io.stderr(tests.summary);
      findings.push(...tests.findings);
      const coverage: Coverage = { sources: sourceCoverage(sources), ...(tests.counts ? { tests: testCoverage(tests.counts) } : {}) };
      const outputDir = own.outputDir;
      if (!outputDir) return { findings, sources, coverage, policyExplain };
      return {
        findings,
        sources,
        coverage,
        policyExplain,
        finish: (report) => io.stderr(writeCheckOutputs(io.cwd, path.resolve(io.cwd, outputDir), sources, report)),
      };
    },
    { allowExec: own.allowExec },
  );
}

/** check --output-dir: the rendered streams and the machine-readable reports; returns what it says it wrote. */
function writeCheckOutputs(cwd: string, dir: string, sources: RenderedSource[], report: FinishedReport): string {
  // Names over every source, as render --all gives them: a name does not change when a sibling fails.
  const names = streamFileNames(sources.map((s) => s.source));
  const rendered = sources.filter((s) => s.ok);
  // Streams an earlier run wrote for sources that no longer render are removed, nothing else.
  writeOwnedFiles(
    path.join(dir, "rendered"),
    new Map(sources.flatMap((s, i) => (s.ok ? [[names[i]!, yamlStream(s.documents.map((d) => report.masker.maskObject(d)))] as const] : []))),
  );
  const data = { findings: report.findings, summary: report.summary, toolVersion: TOOL_VERSION };
  fs.writeFileSync(path.join(dir, "report.json"), formatReport("json", data));
  fs.writeFileSync(path.join(dir, "report.sarif"), formatReport("sarif", data));
  const shown = path.relative(cwd, dir) || ".";
  return [
    `wrote ${shown}/rendered/ (${rendered.length} YAML stream${rendered.length === 1 ? "" : "s"}, one per rendered source, as crossplane render prints it), ${shown}/report.json and ${shown}/report.sarif`,
    `next: read what each source renders in ${shown}/rendered/; \`composition-ci diff --base main\` shows what a change does to it`,
    "",
  ].join("\n");
}

function testCoverage({ tests, passed, failed, errors, skipped, unreadable }: TestCounts): NonNullable<Coverage["tests"]> {
  return { run: tests, passed, failed, errors, skipped, unreadable };
}
