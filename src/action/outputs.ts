import fs from "node:fs";
import path from "node:path";
import * as core from "@actions/core";
import { summarize, type Finding } from "../core/finding.js";
import { formatReport } from "../report/formats/index.js";
import { pickAnnotations } from "../report/github/annotations.js";
import { maskFindings, type SecretMasker } from "../secrets/mask.js";
import { TOOL_VERSION } from "../version.js";

/** What every mode writes: the job log's masks, report files, SARIF, the job summary, annotations. */

/** The job log hides each secret value (only values that are secret, never ordinary words). */
export function maskLogs(masker: SecretMasker): void {
  for (const value of masker.values()) core.setSecret(value);
}

export function writeReportFile(dir: string, name: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** SARIF for code scanning, masked finding by finding. */
export function writeSarif(file: string, findings: Finding[], masker: SecretMasker): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const masked = maskFindings(findings, masker);
  fs.writeFileSync(file, formatReport("sarif", { findings: masked, summary: summarize(masked, 0, 0), toolVersion: TOOL_VERSION }));
}

export function appendSummary(markdown: string): void {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (file) fs.appendFileSync(file, markdown);
}

/** Annotations for the most severe findings, new ones first; the rest are counted in the job summary. */
export function annotate(findings: Finding[], isNew: (f: Finding) => boolean, masker: SecretMasker): void {
  const { annotations, left } = pickAnnotations(findings, isNew);
  for (const { level, finding: f } of annotations) {
    const properties = { title: f.rule, file: f.file, startLine: f.line, startColumn: f.column };
    (level === "error" ? core.error : core.warning)(masker.redact(f.message), properties);
  }
  if (left > 0) {
    const text = `${left} more error and warning finding${left === 1 ? " is" : "s are"} not annotated (GitHub shows 10 errors and 10 warnings per step); the report files in report-dir list them all.`;
    core.notice(text);
    appendSummary(`\n> ${text}\n`);
  }
}

export function setFindingOutputs(findings: Finding[], changed: boolean, reportPath: string, sarifPath: string): void {
  const visible = findings.filter((f) => !f.suppressed);
  core.setOutput("errors", visible.filter((f) => f.severity === "error").length);
  core.setOutput("warnings", visible.filter((f) => f.severity === "warning").length);
  core.setOutput("changed", changed);
  core.setOutput("report-path", reportPath);
  core.setOutput("sarif-path", sarifPath);
}
