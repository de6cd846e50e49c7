import path from "node:path";
import * as core from "@actions/core";
import { packageSettings, type PackageSettings } from "../runtimes/package.js";
import { defaultCacheDir } from "../validate/compile.js";
import { oneOf, UsageError } from "../core/usage.js";
import type { FailOn } from "../core/finding.js";
import type { CommentMode } from "../report/github/comment.js";
import { pullRequest } from "./context.js";
import { parseDevelopmentTargets } from "../trust.js";

/** The Action's inputs (action.yml), read once. */
export interface Inputs {
  mode: "pr" | "validate" | "drift" | "test";
  paths: string[];
  baseRef: string;
  failOn: FailOn;
  failOnNew: boolean;
  comment: CommentMode;
  commentKey: string;
  /** How many comments a report past GitHub's size limit may take before detail is dropped (1: one comment, cut to fit). */
  commentParts: number;
  /** `labels: true`: the pull request gets one label saying what merging it does (deletes, changes, no-changes, incomplete). */
  labels: boolean;
  token: string;
  config?: string;
  crds: string[];
  schemaLocations: string[];
  allowExec: boolean;
  /** `NAME=ADDR` entries: Development functions the workflow (not the pull request) points at. */
  developmentTargets: Record<string, string>;
  /** Function packages only from the cache (a workflow that keeps it with actions/cache). */
  offline: boolean;
  kubeconform: boolean;
  sarifFile: string;
  reportDir: string;
  snapshot?: string;
  previous?: string;
  cluster: boolean;
  failOnDrift: boolean;
}

export function readInputs(): Inputs {
  const list = (name: string) =>
    core
      .getInput(name)
      .split(/[\s,]+/)
      .filter(Boolean);
  const flag = (name: string) => core.getInput(name) === "true";
  const input = <T extends string>(name: string, fallback: T, allowed: T[]): T => oneOf(`input ${name}`, core.getInput(name) || fallback, allowed);
  const reportDir = path.resolve(core.getInput("report-dir") || path.join(process.env.RUNNER_TEMP ?? ".", "composition-ci-report"));
  return {
    mode: input("mode", "pr", ["pr", "validate", "drift", "test"]),
    paths: list("paths").length ? list("paths") : ["."],
    baseRef: core.getInput("base-ref") || pullRequest()?.base?.sha || "",
    failOn: input("fail-on", "error", ["error", "warning", "info", "never"]),
    failOnNew: flag("fail-on-new"),
    comment: input("comment", "on-change", ["always", "on-change", "never"]),
    commentKey: core.getInput("comment-key") || "default",
    commentParts: partsInput(core.getInput("comment-parts")),
    labels: flag("labels"),
    token: core.getInput("github-token"),
    config: core.getInput("config") || undefined,
    crds: list("crds"),
    schemaLocations: core.getMultilineInput("schema-locations"),
    allowExec: flag("allow-exec"),
    developmentTargets: parseDevelopmentTargets(core.getMultilineInput("development-targets"), "input development-targets"),
    offline: flag("offline"),
    kubeconform: flag("kubeconform"),
    sarifFile: path.resolve(core.getInput("sarif-file") || path.join(reportDir, "composition-ci.sarif")),
    reportDir,
    snapshot: core.getInput("snapshot") || undefined,
    previous: core.getInput("previous") || undefined,
    cluster: flag("cluster"),
    failOnDrift: flag("fail-on-drift"),
  };
}

function partsInput(text: string): number {
  if (!text) return 5;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new UsageError("input comment-parts must be a whole number from 1 to 20");
  return n;
}

/** The run's function package settings: the usual cache (the workflows keep it with actions/cache). */
export function actionPackages(inputs: Inputs): PackageSettings {
  return packageSettings({ cacheDir: defaultCacheDir(), offline: inputs.offline || undefined, onPull: (reference) => core.info(`pulling ${reference}`) });
}
