import path from "node:path";
import { ConfigError, loadConfig, type Config } from "../config/config.js";
import { maskerFor } from "../rendered/secrets.js";
import { formatTestReport, runTests, testExitCode, TEST_FORMATS, type TestFormat, type TestReport } from "../testing/index.js";
import { validateRepo, type ValidateResult } from "../run/validate.js";
import { TOOL_VERSION } from "../version.js";
import { type CommandIO } from "./io.js";
import { UsageError, oneOf } from "../core/usage.js";
import { commandPackageSettings, parseCommandArgs, targetsOrUsage, writeOutput } from "./options.js";
import { renderRelease } from "../run/release.js";
import { parseDuration } from "./render-inputs.js";

export const TEST_HELP = `Usage: composition-ci test [paths...] [options]

Runs the composition tests below the paths (default: .), with no Docker and no cluster:

  CompositionTest objects (meta.dev.upbound.io/v1alpha1, as \`up test run\` runs them): the XR is
    rendered through its Composition and every object of spec.assertResources must be found among
    the rendered ones and hold what it says (fields it omits are free; lists compare item by item).
    validate: true also checks the rendered objects against their schemas.
  CompositionTest objects (test.crossplane.io/v1alpha1, Crossplane's design): each of spec.tests
    renders its XR (patched by addFields/removeFields) with the Composition and Functions it
    lists; each resource of its chainsaw assertions must match a rendered one.
  Golden files: a file holding a \`crossplane render\` output stream whose XR is an example of the
    repository, or one mapped from example XRs by tests.golden in .composition-ci.yaml. The render
    is compared with it as objects, as the release that wrote it prints them (v2.2's generated
    names' random part and UIDs aside), listing every difference; --update rewrites the golden files that differ in crossplane render's format.

docs/testing.md says more.

Options:
  --format text|json|junit|sarif|markdown
                                output format (default: text)
  --output FILE                 write the report to FILE instead of stdout
  --junit FILE                  also write JUnit XML to FILE (for CI test reporters)
  --update                      rewrite golden files that differ (or are missing)
  --crossplane-version V        the release every golden file is compared (and --update writes)
                                as; without it (or the config's crossplaneVersion) each file's
                                release is recognised from its shape (v2.2 or earlier, or v2.3+
                                compared as v2.5)
  --allow-exec                  allow functions that run repository code (process, module, Docker)
  --development-target NAME=ADDR
                                where the Development function NAME listens (repeatable)
  --timeout D                   per function call, when a test does not say (default: 60s)
  --config FILE                 config file (default: .composition-ci.yaml at the root)
  --crds PATH                   CRD files or directories, for validate: true (repeatable)
  --schema-location TEMPLATE    kubeconform-style schema location (repeatable)
  --cache-dir DIR               compiled validators, downloaded schemas and function packages
  --offline                     function packages only from the cache (see functions pull)
  --no-cache                    compile every schema afresh, write nothing
  --root DIR                    repository root (default: .)

Exit codes: 0 every test passed, 1 a test failed or could not run, 2 a test file cannot be read
(its line is named), or a usage or configuration error.
`;

const OPTIONS = {
  format: { type: "string" },
  output: { type: "string" },
  junit: { type: "string" },
  update: { type: "boolean" },
  "crossplane-version": { type: "string" },
  "allow-exec": { type: "boolean" },
  "development-target": { type: "string", multiple: true },
  timeout: { type: "string" },
  config: { type: "string" },
  crds: { type: "string", multiple: true },
  "schema-location": { type: "string", multiple: true },
  "cache-dir": { type: "string" },
  "no-cache": { type: "boolean" },
  offline: { type: "boolean" },
  root: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function testCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    io.stdout(TEST_HELP);
    return 0;
  }
  const format = oneOf<TestFormat>("--format", values.format ?? "text", TEST_FORMATS);
  const timeoutMs = parseDuration(values.timeout ?? "60s");
  const developmentTargets = targetsOrUsage(values["development-target"]);
  const root = path.resolve(io.cwd, values.root ?? ".");
  const paths = positionals.length ? positionals : ["."];
  const allowExec = values["allow-exec"] === true;
  const packages = commandPackageSettings(io, values);
  let result: ValidateResult;
  let config: Config;
  try {
    config = loadConfig(root, values.config);
    result = await validateRepo({
      root,
      paths,
      config,
      crds: values.crds,
      schemaLocations: values["schema-location"],
      cacheDir: values["no-cache"] ? null : values["cache-dir"] && path.resolve(io.cwd, values["cache-dir"]),
      packages: { settings: packages, allowExec },
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  // A test's differences quote what it read and rendered: the masker learns the secrets of the
  // repository's manifests and of every object the tests read and render, and masks them in the
  // report's values before they are formatted (quoted, escaped, cut), then in its text.
  const masker = maskerFor(result.manifests, [], config.secretFields);
  const report: TestReport = masker.redactJson(
    await runTests(result, root, {
      paths,
      allowExec,
      developmentTargets,
      timeoutMs,
      packages,
      update: values.update === true,
      masker,
      release: values["crossplane-version"] === undefined ? undefined : renderRelease(values["crossplane-version"], result.config),
    }),
  );
  const text = masker.redact(formatTestReport(format, report, { toolVersion: TOOL_VERSION, color: format === "text" && !values.output && io.isTTY }));
  writeOutput(io, values.output, text);
  if (values.junit) writeOutput(io, values.junit, masker.redact(formatTestReport("junit", report, { toolVersion: TOOL_VERSION })));
  return testExitCode(report);
}
