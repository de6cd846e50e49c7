import crypto from "node:crypto";
import type { Finding } from "../../core/finding.js";
import type { Report } from "../report.js";
import { FAMILY_DOCS, RULE_ANCHORS, RULE_DOCS, type RuleDoc } from "../rule-docs.js";

const LEVEL = { error: "error", warning: "warning", info: "note" } as const;

const DOCS = "https://github.com/composition-ci/composition-ci/blob/main/docs";

/** The anchors docs/rules.md has (src/report/rule-docs.ts is generated from it). */
const ANCHORS: ReadonlySet<string> = new Set(RULE_ANCHORS);

/** A rule of the run: composition-ci's own (docs/rules.md), or one of the repository's admission policies, one rule each. */
function sarifRule(id: string, findings: Finding[]): Record<string, unknown> {
  const doc = RULE_DOCS[id];
  if (doc)
    return {
      id,
      name: id,
      shortDescription: { text: id },
      fullDescription: { text: fullDescription(doc.what) },
      help: help(doc),
      helpUri: rulesLink(doc.anchor),
    };
  const family = id.includes("/") ? FAMILY_DOCS[id.slice(0, id.indexOf("/"))] : undefined;
  if (id.startsWith("policy/")) {
    const policy = id.slice("policy/".length);
    const example = findings.find((f) => f.rule === id)?.message;
    return {
      id,
      name: id,
      shortDescription: { text: `the repository's admission policy ${policy}` },
      ...(example ? { fullDescription: { text: shorten(example.replace(/ \(.*\)$/, "")) } } : {}),
      ...(family ? { help: help(family) } : {}),
      helpUri: `${DOCS}/policies.md`,
    };
  }
  if (family)
    return {
      id,
      name: id,
      shortDescription: { text: id },
      fullDescription: { text: fullDescription(family.what) },
      help: help(family),
      helpUri: rulesLink(family.anchor),
    };
  // Not in docs/rules.md: a link only where the document has the anchor, never a dangling one.
  return { id, name: id, shortDescription: { text: id }, ...(ANCHORS.has(anchor(id)) ? { helpUri: rulesLink(anchor(id)) } : {}) };
}

/** GitHub code scanning shows at most 1000 characters of a fullDescription; the help has the rest. */
const FULL_DESCRIPTION_MAX = 1000;

function fullDescription(markdown: string): string {
  return shorten(plain(markdown));
}

function shorten(text: string): string {
  if (text.length <= FULL_DESCRIPTION_MAX) return text;
  const cut = text.slice(0, FULL_DESCRIPTION_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > FULL_DESCRIPTION_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:(]+$/, "")}…`;
}

/** What the rule means and what fails it, as docs/rules.md says: its row, the notes on it, the link. */
function help(doc: RuleDoc): { text: string; markdown: string } {
  const parts = [
    { text: plain(doc.what), markdown: doc.what },
    { text: `Default severity: ${plain(doc.severity)}.`, markdown: `**Default severity:** ${doc.severity}` },
    ...(doc.example ? [{ text: `Failing example: ${plain(doc.example)}`, markdown: `**Failing example:** ${doc.example}` }] : []),
    ...(doc.also ?? []).map((note) => ({
      text: `${plain(note.label)}: ${plain(note.what)}${note.example ? ` Failing example: ${plain(note.example)}` : ""}`,
      markdown: `**${note.label}** ([more](${rulesLink(note.anchor)})): ${note.what}${note.example ? ` **Failing example:** ${note.example}` : ""}`,
    })),
    { text: `More: ${rulesLink(doc.anchor)}`, markdown: `[docs/rules.md](${rulesLink(doc.anchor)})` },
  ];
  return { text: parts.map((p) => p.text).join("\n\n"), markdown: parts.map((p) => p.markdown).join("\n\n") };
}

/**
 * A table cell's Markdown as plain text: code spans keep their content, links their text,
 * emphasis its words, escapes their character. The cells of docs/rules.md use no other Markdown.
 */
function plain(markdown: string): string {
  return markdown.replace(
    /(`+)([\s\S]*?)\1|\\([!-/:-@[-`{-~])|\[([^\]]*)\]\([^)]*\)|\*\*(\S(?:[\s\S]*?\S)?)\*\*|(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])/g,
    (_m, _ticks, code: string | undefined, escaped: string | undefined, link: string | undefined, strong: string | undefined, em: string | undefined) =>
      code !== undefined ? code.replace(/^ (.*) $/s, "$1") : (escaped ?? link ?? strong ?? em ?? ""),
  );
}

function rulesLink(anchorId: string): string {
  return `${DOCS}/rules.md#${anchorId}`;
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

/** A rule id's anchor in docs/rules.md: lowercase, anything but [a-z0-9-] as `-` (`render/not-rendered` → `render-not-rendered`). */
function anchor(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9-]/g, "-");
}
