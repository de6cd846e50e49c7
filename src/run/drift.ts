import { stateCounts } from "../rendered/source.js";
import fs from "node:fs";
import path from "node:path";
import { ClusterError, clusterDrift, kubectlRunner, type Kubectl } from "../drift/cluster.js";
import { driftFingerprint, markPrevious, snapshotDrift, type DriftItem, type DriftReport } from "../drift/report.js";
import { readSnapshot, snapshotOf, snapshotState, writeSnapshot, type SnapshotUpdate } from "../drift/snapshot.js";
import type { SecretMasker } from "../secrets/mask.js";
import { maskerFor } from "../rendered/secrets.js";
import { validateRepo } from "./validate.js";
import { TOOL_VERSION } from "../version.js";
import { renderAndValidate, renderStepOptions } from "./check.js";
import { UsageError } from "../core/usage.js";
import type { PackageSettings } from "../runtimes/package.js";
import { configOrUsage } from "./config.js";

export interface DriftOptions {
  root: string;
  paths: string[];
  snapshot?: string;
  updateSnapshot?: boolean;
  cluster?: boolean;
  kubectl?: Kubectl;
  previous?: string;
  allowExec?: boolean;
  developmentTargets?: Record<string, string>;
  packages?: PackageSettings;
  timeoutMs?: number;
  /** How deep composed XRs render with their own Compositions (default 5). */
  maxNestedDepth?: number;
  /** --crossplane-version: the release the repository renders as. */
  crossplaneVersion?: string;
  configFile?: string;
  crds?: string[];
  schemaLocations?: string[];
}

export interface DriftResult {
  report: DriftReport;
  masker: SecretMasker;
  /** What --update-snapshot wrote. */
  update?: SnapshotUpdate;
}

export async function runDrift(options: DriftOptions): Promise<DriftResult> {
  if (!options.snapshot && !options.cluster) throw new UsageError("drift needs a baseline: --snapshot DIR, --cluster, or both");
  if (options.updateSnapshot && !options.snapshot) throw new UsageError("--update-snapshot needs --snapshot DIR");
  const state = options.snapshot ? snapshotState(options.snapshot) : undefined;
  if (state === "not-a-directory")
    throw new UsageError(
      `--snapshot ${path.relative(options.root, options.snapshot!) || "."}: not a directory (a snapshot is a directory of one file per source)`,
    );
  let config = configOrUsage(options.root, options.configFile);
  // The snapshot is rendered output, not source: never scan it.
  const snapshotRel = options.snapshot && path.relative(options.root, options.snapshot).split(path.sep).join("/");
  if (snapshotRel && !snapshotRel.startsWith("..")) config = { ...config, ignore: [...config.ignore, `${snapshotRel}/**`] };
  const validated = await validateRepo({
    root: options.root,
    paths: options.paths,
    config,
    crds: options.crds,
    schemaLocations: options.schemaLocations,
    packages: options.packages && { settings: options.packages, allowExec: options.allowExec === true },
  });
  const { sources } = await renderAndValidate(validated, options.root, renderStepOptions(options));
  const masker = maskerFor(validated.manifests, sources, config.secretFields, [validated.secrets]);
  const current = snapshotOf(sources, masker);
  const items: DriftItem[] = [];
  let update: SnapshotUpdate | undefined;
  if (options.snapshot && options.updateSnapshot) update = writeSnapshot(options.snapshot, current);
  else if (options.snapshot) items.push(...snapshotDrift(current, readSnapshot(options.snapshot), masker));
  if (options.cluster) {
    try {
      items.push(...(await clusterDrift(sources, options.kubectl ?? kubectlRunner(), masker)));
    } catch (err) {
      if (err instanceof ClusterError) throw new UsageError(err.message);
      throw err;
    }
  }
  const previous = readPrevious(options.previous);
  markPrevious(items, previous, (detail) => masker.redact(detail));
  // Said only of a snapshot compared with: --update-snapshot has just written it.
  const snapshotMissing = options.snapshot && !options.updateSnapshot && (state === "no-directory" || state === "empty") ? state : undefined;
  const previousName = options.previous && path.basename(options.previous);
  const report: DriftReport = {
    version: 1,
    tool: { name: "composition-ci", version: TOOL_VERSION },
    baselines: {
      snapshot: snapshotRel || undefined,
      ...(snapshotMissing ? { snapshotMissing } : {}),
      cluster: options.cluster === true,
      // A previous report named but not there (the first night) is named as missing, never as compared with.
      ...(previousName ? (previous ? { previous: previousName } : { previousMissing: previousName }) : {}),
    },
    ...(options.paths.some((p) => p !== ".") ? { paths: options.paths } : {}),
    sources: current.length,
    states: stateCounts(sources),
    items,
    fingerprint: driftFingerprint(items),
  };
  return { report, masker, update };
}

/** The previous run's report; a missing file (the first night) is no previous run. */
function readPrevious(file: string | undefined): DriftReport | undefined {
  if (!file || !fs.existsSync(file)) return undefined;
  try {
    const report = JSON.parse(fs.readFileSync(file, "utf8")) as DriftReport;
    if (report.version !== 1 || !Array.isArray(report.items)) throw new Error("not a composition-ci drift report (version 1)");
    return report;
  } catch (err) {
    throw new UsageError(`--previous ${file}: ${(err as Error).message}`);
  }
}
