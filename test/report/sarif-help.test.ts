/**
 * SARIF rule help comes from docs/rules.md, through src/report/rule-docs.ts: the bundle has no
 * docs/, so the module is generated from the document's rule tables here and committed. This file
 * is the generator. After editing docs/rules.md, regenerate with
 *
 *   npx vitest run test/report/sarif-help.test.ts -u
 *
 * and the "in sync" test below fails until that is done, so the two cannot drift.
 */
import fs from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/core/finding.js";
import { formatSarif } from "../../src/report/formats/sarif.js";
import type { Report } from "../../src/report/report.js";
import { FAMILY_DOCS, RULE_ANCHORS, RULE_DOCS, type RuleDoc } from "../../src/report/rule-docs.js";
import { REPO } from "../helpers.js";

const DOCS_URL = "https://github.com/composition-ci/composition-ci/blob/main/docs/";
const RULES_MD = fs.readFileSync(path.join(REPO, "docs/rules.md"), "utf8");

// ---------------------------------------------------------------------------------------------
// The generator: docs/rules.md's rule tables → src/report/rule-docs.ts.

/** The anchor of a rule id (or a family): lowercase, anything but [a-z0-9-] as `-`. */
function anchorOf(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9-]/g, "-");
}

interface ParsedRules {
  rules: Record<string, RuleDoc>;
  families: Record<string, RuleDoc & { pattern: string }>;
  /** Every `<a id>` of the document, in order, duplicates kept (for the uniqueness test). */
  anchors: string[];
  /** Every rule id a rule table's first cell names, with the anchor of its row (if any). */
  mentioned: { id: string; anchor?: string; line: number }[];
}

const HEADER = /^\|\s*rule\s*\|\s*default\s*\|\s*what it means\s*\|\s*failing example\s*\|\s*$/;
const DELIMITER = /^\|(\s*:?-+:?\s*\|)+\s*$/;
const ANCHOR_TAG = /<a id="([^"]*)"><\/a>/g;
const RULE_ID = /^[a-z0-9-]+\/[a-z0-9-]+$/;

/** A table row's cells, with GFM's `\|` escape undone (it is the table's, not the cell's Markdown). */
function cellsOf(row: string): string[] {
  const inner = row
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function parseRules(md: string): ParsedRules {
  const out: ParsedRules = { rules: {}, families: {}, anchors: [...md.matchAll(ANCHOR_TAG)].map((m) => m[1]!), mentioned: [] };
  const lines = md.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!HEADER.test(lines[i]!)) continue;
    if (!DELIMITER.test(lines[i + 1] ?? "")) throw new Error(`docs/rules.md:${i + 2}: a rule table's header without its delimiter row`);
    const notes: { ids: string[]; note: NonNullable<RuleDoc["also"]>[number] }[] = [];
    for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++) {
      const line = i + 1;
      const cells = cellsOf(lines[i]!);
      if (cells.length !== 4) throw new Error(`docs/rules.md:${line}: ${cells.length} cells, not 4`);
      const [first, severity, what, example] = cells as [string, string, string, string];
      const tag = /^<a id="([^"]*)"><\/a>\s*/.exec(first);
      const anchor = tag?.[1];
      const label = tag ? first.slice(tag[0].length) : first;
      const doc = (a: string): RuleDoc => ({ anchor: a, severity, what, ...(example && example !== "—" ? { example } : {}) });
      const single = /^`([^`]+)`$/.exec(label)?.[1];
      const family = single && /^([a-z0-9-]+)\/<[a-z-]+>$/.exec(single)?.[1];
      if (single && RULE_ID.test(single)) {
        out.mentioned.push({ id: single, ...(anchor ? { anchor } : {}), line });
        if (!anchor) throw new Error(`docs/rules.md:${line}: rule ${single} has no <a id="${anchorOf(single)}"></a>`);
        if (out.rules[single]) throw new Error(`docs/rules.md:${line}: rule ${single} has a second row`);
        out.rules[single] = doc(anchor);
      } else if (family) {
        if (!anchor) throw new Error(`docs/rules.md:${line}: family ${single} has no <a id="${anchorOf(family)}"></a>`);
        out.families[family] = { ...doc(anchor), pattern: single! };
      } else {
        // A row that refines rules documented elsewhere ("`schema/type`, … on a base").
        const ids = [...label.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((id) => RULE_ID.test(id));
        if (ids.length === 0 || !anchor)
          throw new Error(`docs/rules.md:${line}: a row that is neither one rule, a family (\`x/<name>\`) nor an anchored note on rules: ${label}`);
        for (const id of ids) out.mentioned.push({ id, anchor, line });
        notes.push({ ids, note: { anchor, label, what, ...(example && example !== "—" ? { example } : {}) } });
      }
    }
    for (const { ids, note } of notes) {
      for (const id of ids) {
        const rule = out.rules[id];
        if (!rule) throw new Error(`docs/rules.md: the row "${note.label}" names ${id}, which has no row of its own in its table`);
        rule.also = [...(rule.also ?? []), note];
      }
    }
  }
  return out;
}

function generate(parsed: ParsedRules): string {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return `// Generated from docs/rules.md by test/report/sarif-help.test.ts: do not edit. After changing
// docs/rules.md, run \`npx vitest run test/report/sarif-help.test.ts -u\` (that test fails until then).

/** A rule's row in docs/rules.md: the anchor of the row and its cells, as Markdown. */
export interface RuleDoc {
  /** The row's \`<a id>\` in docs/rules.md. */
  anchor: string;
  /** The "default" cell: the default severity, and when it differs. */
  severity: string;
  /** The "what it means" cell. */
  what: string;
  /** The "failing example" cell, when there is one. */
  example?: string;
  /** Rows that refine the rule in one context (\`schema/type\` on a P&T base). */
  also?: { anchor: string; label: string; what: string; example?: string }[];
}

/** composition-ci's rules, by id. */
export const RULE_DOCS: Readonly<Record<string, RuleDoc>> = ${json(parsed.rules)};

/** Families documented by one row (\`policy/<name>\`), by family: their rules are the repository's. */
export const FAMILY_DOCS: Readonly<Record<string, RuleDoc & { pattern: string }>> = ${json(parsed.families)};

/** Every anchor docs/rules.md has for a rule, a family or a note: a link to another would dangle. */
export const RULE_ANCHORS: readonly string[] = ${json([...new Set(parsed.anchors)].sort())};
`;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as `-`. */
function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown file of docs/ has: its `<a id>`s and its headings' (outside code fences). */
function anchorsOf(md: string): string[] {
  const tags = [...md.matchAll(ANCHOR_TAG)].map((m) => m[1]!);
  let fenced = false;
  const headings: string[] = [];
  for (const line of md.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && /^#{1,6}\s/.test(line)) headings.push(headingSlug(line.replace(/^#+\s*/, "")));
  }
  return [...tags, ...headings];
}

const parsed = parseRules(RULES_MD);

// ---------------------------------------------------------------------------------------------

describe("docs/rules.md anchors", () => {
  it("has a rule table row for a good number of rules, and every row parses", () => {
    expect(Object.keys(parsed.rules).length).toBeGreaterThan(90);
    expect(parsed.rules["render/not-rendered"]).toBeDefined();
    expect(parsed.families.policy).toMatchObject({ anchor: "policy", pattern: "policy/<name>" });
  });

  it("gives every rule id it names an anchor: its own row's, the rule id with / as -", () => {
    for (const { id, line } of parsed.mentioned) {
      expect(RULE_ANCHORS, `docs/rules.md:${line} ${id}`).toContain(anchorOf(id));
      expect(parsed.rules[id]?.anchor, `docs/rules.md:${line} ${id}`).toBe(anchorOf(id));
    }
    for (const [family, doc] of Object.entries(parsed.families)) expect(doc.anchor).toBe(anchorOf(family));
  });

  it("has every anchor once, and none that a heading's anchor also is", () => {
    const all = anchorsOf(RULES_MD);
    const dupes = all.filter((a, i) => all.indexOf(a) !== i);
    expect(dupes).toEqual([]);
    for (const a of parsed.anchors) expect(a).toMatch(/^[a-z0-9-]+$/);
  });

  it("puts each anchor where GitHub renders it: at the start of the rule's first cell, the table still four columns", () => {
    const tagged = RULES_MD.split("\n").filter((l) => l.includes("<a id="));
    for (const l of tagged) {
      expect(l).toMatch(/^\| <a id="[a-z0-9-]+"><\/a>`/);
      expect(cellsOf(l)).toHaveLength(4);
    }
    expect(tagged).toHaveLength(parsed.anchors.length);
  });

  it("stays valid GFM: each anchor renders inside the first cell of a four-cell table row", () => {
    const html = marked.parse(RULES_MD, { gfm: true, async: false }) as string;
    const rows = [...html.matchAll(/<tr>\s*<td><a id="([^"]+)"><\/a><code>[\s\S]*?<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(parsed.anchors);
    for (const r of rows) expect(r[0].match(/<td>/g), r[1]).toHaveLength(4);
  });

  it("keeps links in the rule cells absolute: SARIF help is read far from docs/", () => {
    const cells = [...Object.values(parsed.rules), ...Object.values(parsed.families)].flatMap((d) => [d.severity, d.what, d.example ?? ""]);
    for (const c of cells) for (const m of c.matchAll(/\]\(([^)]*)\)/g)) expect(m[1]).toMatch(/^https:\/\//);
  });
});

describe("src/report/rule-docs.ts", () => {
  it("is generated from docs/rules.md and in sync with it (regenerate: npx vitest run test/report/sarif-help.test.ts -u)", async () => {
    await expect(generate(parsed)).toMatchFileSnapshot("../../src/report/rule-docs.ts");
    expect(RULE_DOCS).toEqual(JSON.parse(JSON.stringify(parsed.rules)));
    expect(FAMILY_DOCS).toEqual(JSON.parse(JSON.stringify(parsed.families)));
    expect([...RULE_ANCHORS]).toEqual([...new Set(parsed.anchors)].sort());
  });
});

// ---------------------------------------------------------------------------------------------

interface SarifRule {
  id: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  help?: { text: string; markdown?: string };
  helpUri?: string;
}

function finding(rule: string, message = `a finding of ${rule}`): Finding {
  return { rule, severity: "warning", message, file: "a.yaml", line: 1, column: 1 };
}

function sarifOf(findings: Finding[]): { sarif: { runs: { tool: { driver: { rules: SarifRule[] } } }[] }; rules: Map<string, SarifRule> } {
  const report: Report = { findings, summary: {} as Report["summary"], toolVersion: "0.0.0-test" };
  const sarif = JSON.parse(formatSarif(report));
  return { sarif, rules: new Map((sarif.runs[0].tool.driver.rules as SarifRule[]).map((r) => [r.id, r])) };
}

/** A sample report: every documented rule, policies (one with a validation index), ids docs/rules.md does not know. */
const SAMPLE = [
  ...Object.keys(parsed.rules).map((id) => finding(id)),
  finding("policy/require-team-label", "missing the team label (ValidatingAdmissionPolicyBinding require-team-label)"),
  finding("policy/eu-only/1", "region must be in the EU"),
  finding("render/composition-ambiguous"),
  finding("made-up/rule"),
  finding("policy"),
];

/** Where a helpUri points, as a file of docs/ and an anchor: the file must exist, and the anchor in it. */
function resolve(uri: string): { file: string; anchor?: string } {
  expect(uri.startsWith(DOCS_URL), uri).toBe(true);
  const [file, anchor] = uri.slice(DOCS_URL.length).split("#") as [string, string | undefined];
  return { file: path.join(REPO, "docs", file), ...(anchor !== undefined ? { anchor } : {}) };
}

describe("SARIF rule help", () => {
  const { sarif, rules } = sarifOf(SAMPLE);

  it("is valid SARIF 2.1.0 for what it emits: descriptions and help are multiformat messages with text", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO, "test/fixtures/sarif-2.1.0-subset.json"), "utf8"));
    const ajv = new Ajv({ allErrors: true, strict: false }).addFormat("uri", /^[a-z][a-z0-9+.-]*:\S*$/i);
    expect(ajv.validate(schema, sarif), JSON.stringify(ajv.errors)).toBe(true);
    // The reportingDescriptor properties added here, per SARIF 2.1.0 §3.49 (multiformatMessageString: text required).
    const text = { type: "object", required: ["text"], properties: { text: { type: "string", minLength: 1 }, markdown: { type: "string", minLength: 1 } } };
    const descriptor = {
      type: "object",
      required: ["id", "shortDescription"],
      properties: { fullDescription: text, help: text, helpUri: { type: "string", format: "uri" } },
    };
    for (const rule of rules.values()) expect(ajv.validate(descriptor, rule), `${rule.id}: ${JSON.stringify(ajv.errors)}`).toBe(true);
  });

  it("links every rule only to an anchor docs/rules.md (or a file of docs/) has: never a dangling anchor", () => {
    const anchors = new Map<string, Set<string>>();
    let linked = 0;
    for (const rule of rules.values()) {
      if (!rule.helpUri) continue;
      linked++;
      const { file, anchor } = resolve(rule.helpUri);
      expect(fs.existsSync(file), rule.helpUri).toBe(true);
      if (anchor === undefined) continue;
      if (!anchors.has(file)) anchors.set(file, new Set(anchorsOf(fs.readFileSync(file, "utf8"))));
      expect(anchors.get(file)!.has(anchor), `${rule.id}: ${rule.helpUri}`).toBe(true);
    }
    expect(linked).toBe(Object.keys(parsed.rules).length + 3);
  });

  it("links each documented rule to its own row", () => {
    for (const id of Object.keys(parsed.rules)) expect(rules.get(id)?.helpUri).toBe(`${DOCS_URL}rules.md#${anchorOf(id)}`);
    expect(rules.get("render/not-rendered")?.helpUri).toBe(`${DOCS_URL}rules.md#render-not-rendered`);
    expect(rules.get("policy/changed")?.helpUri).toBe(`${DOCS_URL}rules.md#policy-changed`);
  });

  it("fills fullDescription with the row's 'what it means' as plain text, help with that and the failing example", () => {
    const missing = rules.get("schema/missing")!;
    const row = parsed.rules["schema/missing"]!;
    expect(missing.fullDescription!.text).toBe(row.what.replace(/`/g, ""));
    expect(missing.fullDescription!.text).toMatch(/^no schema for the object's group\/version\/kind \(--missing-schemas\); /);
    expect(missing.help!.text).toContain(row.what.replace(/`/g, ""));
    expect(missing.help!.text).toContain("apiVersion: nop.crossplane.io/v1alpha1, kind: NopResource without its CRD");
    expect(missing.help!.markdown).toContain(row.what);
    expect(missing.help!.markdown).toContain(row.example!);
    expect(missing.help!.markdown).toContain(`${DOCS_URL}rules.md#schema-missing`);

    const notRendered = rules.get("render/not-rendered")!;
    expect(notRendered.fullDescription!.text).toMatch(/^sources were not rendered because a function or image cannot run here/);
    expect(notRendered.help!.text).toMatch(/Default severity: warning \(info for KubeVela Applications\)/);
    expect(notRendered.help!.text).toContain("a function-kcl step without functions.trusted or --allow-exec");
    expect(notRendered.help!.markdown).toContain("`functions.trusted`");

    // A table's `\|` is the table's escape: the help shows the CEL rule as written.
    expect(rules.get("schema/cel")!.help!.markdown).toContain("`self.tier != 'gold' || self.replicas >= 3`");
    // A rule with no example in the docs (—) has none in its help.
    expect(rules.get("internal/error")!.help!.text).not.toMatch(/example/i);
    // A note row on several rules is part of each one's help.
    expect(rules.get("schema/type")!.help!.markdown).toContain("on a base");
    expect(rules.get("schema/type")!.help!.markdown).toContain(`${DOCS_URL}rules.md#schema-on-a-base`);
  });

  it("keeps every fullDescription plain (no Markdown code spans) and within GitHub's 1000 characters", () => {
    for (const id of Object.keys(parsed.rules)) {
      const text = rules.get(id)!.fullDescription!.text;
      expect(text.length, id).toBeLessThanOrEqual(1000);
      expect(text, id).not.toMatch(/`/);
      expect(rules.get(id)!.help!.text, id).not.toMatch(/`/);
    }
    // The help has all of the row, however long.
    expect(rules.get("schema/cel")!.help!.text).toContain("a manifest cannot stall the run");
    // Longer than GitHub shows (a policy's message): cut at a word, the cut said.
    const long = `replicas ${"must stay below the limit ".repeat(60)}(ValidatingAdmissionPolicyBinding b)`;
    const cut = sarifOf([finding("policy/long", long)]).rules.get("policy/long")!.fullDescription!.text;
    expect(cut.length).toBeLessThanOrEqual(1000);
    expect(cut).toMatch(/^replicas must stay below the limit .*[a-z]…$/);
  });

  it("keeps a policy's own description, with the policy family's help", () => {
    const policy = rules.get("policy/require-team-label")!;
    expect(policy.shortDescription.text).toBe("the repository's admission policy require-team-label");
    expect(policy.fullDescription!.text).toBe("missing the team label");
    expect(policy.help!.markdown).toContain(parsed.families.policy!.what);
    expect(policy.help!.markdown).toContain(`${DOCS_URL}rules.md#policy`);
    expect(rules.get("policy/eu-only/1")!.shortDescription.text).toBe("the repository's admission policy eu-only/1");
  });

  it("gives an id docs/rules.md does not know a helpUri only when an anchor exists for it", () => {
    for (const id of ["render/composition-ambiguous", "made-up/rule"]) {
      const rule = rules.get(id)!;
      expect(rule).toEqual({ id, name: id, shortDescription: { text: id } });
    }
    // `policy` alone is the family's anchor.
    expect(rules.get("policy")!.helpUri).toBe(`${DOCS_URL}rules.md#policy`);
  });
});
