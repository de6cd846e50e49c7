import crypto from "node:crypto";
import type { Finding } from "../finding.js";
import type { Report } from "./index.js";

const LEVEL = { error: "error", warning: "warning", info: "note" } as const;

const DOCS = "https://github.com/composition-ci/composition-ci/blob/main/docs";

/** A rule of the run: composition-ci's own (docs/rules.md), or one of the repository's admission policies, one rule each. */
function sarifRule(id: string, findings: Finding[]): Record<string, unknown> {
  if (!id.startsWith("policy/")) return { id, name: id, shortDescription: { text: id }, helpUri: `${DOCS}/rules.md#${anchor(id)}` };
  const policy = id.slice("policy/".length);
  const example = findings.find((f) => f.rule === id)?.message;
  return {
    id,
    name: id,
    shortDescription: { text: `the repository's admission policy ${policy}` },
    ...(example ? { fullDescription: { text: example.replace(/ \(.*\)$/, "") } } : {}),
    helpUri: `${DOCS}/policies.md`,
  };
}

/** SARIF 2.1.0 for code scanning (github/codeql-action/upload-sarif). */
export function formatSarif(report: Report): string {
  const visible = report.findings.filter((f) => !f.suppressed);
  const ruleIds = [...new Set(visible.map((f) => f.rule))].sort();
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "composition-ci",
            version: report.toolVersion,
            informationUri: "https://github.com/composition-ci/composition-ci",
            rules: ruleIds.map((id) => sarifRule(id, visible)),
          },
        },
        results: visible.map((f) => result(f, ruleIds.indexOf(f.rule))),
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + "\n";
}

function result(f: Finding, ruleIndex: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ruleId: f.rule, ruleIndex, level: LEVEL[f.severity], message: { text: f.message } };
  if (f.file) {
    out.locations = [
      {
        physicalLocation: {
          artifactLocation: { uri: encodeURI(f.file) },
          region: { startLine: f.line ?? 1, startColumn: f.column ?? 1 },
        },
      },
    ];
  }
  out.partialFingerprints = { "compositionCi/v1": fingerprint(f) };
  return out;
}

/** Stable across line moves: rule, file, object and field, not the line number. */
function fingerprint(f: Finding): string {
  return crypto.createHash("sha256").update([f.rule, f.file, f.kind, f.name, f.path, f.message].join("\u0000")).digest("hex").slice(0, 32);
}

function anchor(id: string): string {
  return id.replace(/[^a-z0-9-]/gi, "").toLowerCase();
}
