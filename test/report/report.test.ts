import { describe, expect, it } from "vitest";
import { Manifest, SourceFile } from "../../src/manifest/manifest.js";
import type { JsonObject } from "../../src/render/functions/response.js";
import { renderedObjectKey, type RenderedSource } from "../../src/render/source.js";
import { diffFindings, diffSources, objectCounts, type DiffReport } from "../../src/report/diff.js";
import type { FailOn, Finding } from "../../src/report/finding.js";
import { formatDiffMarkdown } from "../../src/report/formats/markdown.js";
import { escapeMarkdown } from "../../src/report/formats/md.js";
import { SecretMasker } from "../../src/report/mask.js";
import { decideVerdict } from "../../src/report/verdict.js";

/** The PR report a reviewer reads: honest states, the verdict of the step, the change first. */

const finding = (rule: string, line: number, extra: Partial<Finding> = {}): Finding => ({ rule, severity: "error", message: `${rule} message`, file: "a.yaml", line, kind: "Thing", name: "x", ...extra });

function source(name: string, objects: JsonObject[], options: { ok?: boolean; via?: string; notRendered?: boolean; file?: string } = {}): RenderedSource {
  const m = new Manifest({ apiVersion: "example.org/v1", kind: "XNet", metadata: { name } }, new SourceFile(options.file ?? `${name}.yaml`, ""), 0);
  const s: RenderedSource = { source: m, via: options.via ?? "Composition xnets", documents: objects, objects, keys: objects.map(renderedObjectKey), ok: options.ok ?? !options.notRendered, findings: [] };
  if (options.notRendered) s.notRendered = [{ what: "function-kcl", reason: "would run an image, which needs Docker and --allow-exec", fix: "run with --allow-exec", severity: "warning", at: { manifest: m, pointer: "" } }];
  return s;
}

const cm = (resource: string, data: JsonObject, name?: string): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { ...(name ? { name } : {}), annotations: { "crossplane.io/composition-resource-name": resource } },
  data,
});

function report(base: RenderedSource[], head: RenderedSource[], findings: { base?: Finding[]; head?: Finding[] } = {}, failOn: FailOn = "error", failOnNew = false): DiffReport {
  const changes = diffSources(base, head, new SecretMasker());
  const diffed = diffFindings(findings.base ?? [], findings.head ?? []);
  return {
    version: 1,
    tool: { name: "composition-ci", version: "test" },
    base: { ref: "main", commit: "a".repeat(40) },
    head: { ref: "working tree" },
    sources: { total: head.length, considered: head.length, rendered: head.filter((s) => s.ok).length, notRendered: head.filter((s) => s.notRendered).length, failed: 0, all: true },
    changes,
    objects: objectCounts(changes),
    findings: diffed,
    verdict: decideVerdict(findings.head ?? [], diffed.new, { failOn, failOnNew }),
  };
}

describe("every source has one honest state", () => {
  it("a source whose function cannot run on either side is not-rendered, never unchanged, and counted apart", () => {
    const r = report([source("a", [], { notRendered: true })], [source("a", [], { notRendered: true })]);
    expect(r.changes[0]!.status).toBe("not-rendered");
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).toContain("**0 sources changed**");
    expect(md).toContain("1 not rendered (diff unknown)");
    expect(md).toContain("**Not rendered: the diff of these is unknown**");
    expect(md).toContain("- `function-kcl` would run an image, which needs Docker and --allow-exec: 1 source not rendered (`a`). To render it: run with --allow-exec");
    expect(md).not.toContain("No rendered object changed");
    expect(JSON.parse(JSON.stringify(r)).changes[0].status).toBe("not-rendered");
  });

  it("renders at base and fails at head is failed; failed at base and renders at head is fixed", () => {
    const ok = source("a", [cm("c", { a: "1" })]);
    const broken = source("a", [], { ok: false });
    expect(report([ok], [broken]).changes[0]!.status).toBe("failed");
    expect(report([broken], [ok]).changes[0]!.status).toBe("fixed");
  });
});

describe("the headline is the step's verdict", () => {
  const old = finding("schema/type", 3);
  const fresh = finding("schema/required", 9, { severity: "warning" });
  const cases: [FailOn, boolean, boolean, string][] = [
    ["error", false, true, "### ❌ composition-ci: fails on 1 error (fail-on: error)"],
    ["error", true, false, "### ✅ composition-ci: passes (fail-on: error, new findings only; 1 error already on the base branch)"],
    ["warning", false, true, "### ❌ composition-ci: fails on 1 error and 1 warning (fail-on: warning)"],
    ["warning", true, true, "### ❌ composition-ci: fails on 1 new warning (fail-on: warning, new findings only)"],
    ["info", true, true, "### ❌ composition-ci: fails on 1 new warning (fail-on: info, new findings only)"],
    ["never", false, false, "### ✅ composition-ci: passes (fail-on: never)"],
    ["never", true, false, "### ✅ composition-ci: passes (fail-on: never, new findings only; 1 error already on the base branch)"],
  ];
  for (const [failOn, failOnNew, fails, headline] of cases) {
    it(`fail-on ${failOn}${failOnNew ? ", fail-on-new" : ""}: ${fails ? "fails" : "passes"}`, () => {
      const r = report([], [], { base: [old], head: [old, fresh] }, failOn, failOnNew);
      expect(r.verdict.failed).toBe(fails);
      expect(formatDiffMarkdown(r, { maxChars: 65_000 }).split("\n")[0]).toBe(headline);
    });
  }
});

describe("layout for review", () => {
  it("with 100 findings already on main and one change, the change comes before any finding", () => {
    const olds = Array.from({ length: 100 }, (_, i) => finding("schema/type", i + 1, { message: `old ${i}` }));
    const r = report([source("a", [cm("c", { a: "1" })])], [source("a", [cm("c", { a: "2" })])], { base: olds, head: [...olds, finding("pt/transform", 200)] });
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md.indexOf("± **XNet")).toBeGreaterThan(0);
    expect(md.indexOf("± **XNet")).toBeLessThan(md.indexOf("pt/transform"));
    expect(md).toContain("<details><summary>100 findings already on the base branch (100 errors)</summary>");
    expect(md).not.toContain("old 1");
  });

  it("identical diffs of several sources appear once, with the sources they apply to", () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    const r = report(
      names.map((n) => source(n, [cm("vpc", { cidr: "10.0.0.0/16" })])),
      names.map((n) => source(n, [cm("vpc", { cidr: "10.1.0.0/16" }), cm("igw", {})])),
    );
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).toContain("± **XNet ×6 (`a`, `b`, `c`, `d`, `e` and 1 more)** via Composition xnets: +ConfigMap, ~ConfigMap");
    expect(md.match(/cidr: 10\.1\.0\.0\/16/g)).toHaveLength(1);
    expect(md).toContain("diff (the same for all 6)");
  });

  it("removals and replacements are flagged at the top", () => {
    const r = report([source("a", [cm("keep", { a: "1" }, "old-name"), cm("gone", {})])], [source("a", [cm("keep", { a: "1" }, "new-name")])]);
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).toContain("⚠️ **Deleted or replaced when this merges**");
    expect(md).toContain("- `ConfigMap/gone` of XNet `a` is **removed**");
    expect(md).toContain("- `ConfigMap/keep` of XNet `a` is **replaced**: `metadata.name` changes");
    expect(md.indexOf("Deleted or replaced")).toBeLessThan(md.indexOf("**Changes**"));
  });

  it("a link to the workflow run", () => {
    const r = { ...report([], []), run: { url: "https://github.test/o/r/actions/runs/42" } };
    expect(formatDiffMarkdown(r, { maxChars: 65_000 })).toContain("[workflow run](https://github.test/o/r/actions/runs/42)");
  });
});

describe("text from the repository is shown, never acted on", () => {
  it("mentions, images, links, HTML and table pipes are escaped", () => {
    const hostile = "@octocat ![p](http://evil.test/x.png) [click](https://evil.test) <img src=x> | www.evil.test";
    const out = escapeMarkdown(hostile);
    expect(out).not.toMatch(/@octocat/);
    expect(out).not.toContain("![");
    expect(out).not.toContain("](");
    expect(out).not.toContain("<img");
    expect(out).not.toMatch(/https?:\/\//);
    expect(out).not.toContain("www.evil");
    const r = report([], [], { head: [finding("schema/cel", 1, { message: hostile })] });
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).not.toContain("@octocat");
    expect(md).not.toContain("![p]");
  });
});

describe("values the render cannot know offline", () => {
  it("fields a patch fills from observed state are said to be unknown offline, where they show", async () => {
    const { observedReads } = await import("../../src/render/crossplane/offline.js");
    const composition = {
      spec: {
        mode: "Pipeline",
        pipeline: [
          {
            step: "pt",
            input: {
              kind: "Resources",
              resources: [
                { base: { kind: "Bucket" }, patches: [{ type: "ToCompositeFieldPath", fromFieldPath: "status.atProvider.arn", toFieldPath: "status.arn" }, { type: "FromCompositeFieldPath", fromFieldPath: "spec.region" }] },
                { base: { kind: "Role" }, patches: [{ type: "ToCompositeFieldPath", fromFieldPath: "metadata.uid", toFieldPath: "status.roleUid" }] },
              ],
            },
          },
        ],
      },
    };
    const reads = observedReads(composition);
    expect(reads).toEqual(["status.arn ← Bucket status.atProvider.arn", "status.roleUid ← Role metadata.uid"]);
    const head = source("a", [cm("c", { a: "2" })]);
    head.observedReads = reads;
    const md = formatDiffMarkdown(report([source("a", [cm("c", { a: "1" })])], [head]), { maxChars: 65_000 });
    expect(md).toContain("ⓘ read from observed state, unknown offline (empty here, set by the cluster): `status.arn ← Bucket status.atProvider.arn`");
  });
});
