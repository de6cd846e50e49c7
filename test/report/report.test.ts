import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Manifest, SourceFile } from "../../src/manifest/manifest.js";
import type { JsonObject } from "../../src/core/json.js";
import { renderedObjectKey, type RenderedSource } from "../../src/rendered/source.js";
import { objectCounts, type DiffReport } from "../../src/report/diff.js";
import { diffFindings, diffSources } from "../../src/rendered/diff.js";
import type { FailOn, Finding } from "../../src/core/finding.js";
import { formatDiffMarkdown, formatDriftMarkdown } from "../../src/report/formats/markdown.js";
import { failingText, decideVerdict } from "../../src/report/verdict.js";
import type { DriftReport } from "../../src/drift/report.js";
import { gitRepo, runCli } from "../helpers.js";
import { code, escapeHtmlText, escapeMarkdown, escapeMarkdownKeepingCode } from "../../src/core/markdown.js";
import { SecretMasker } from "../../src/secrets/mask.js";

/** The PR report a reviewer reads: honest states, the verdict of the step, the change first. */

const finding = (rule: string, line: number, extra: Partial<Finding> = {}): Finding => ({
  rule,
  severity: "error",
  message: `${rule} message`,
  file: "a.yaml",
  line,
  kind: "Thing",
  name: "x",
  ...extra,
});

function source(name: string, objects: JsonObject[], options: { ok?: boolean; via?: string; notRendered?: boolean; file?: string } = {}): RenderedSource {
  const m = new Manifest({ apiVersion: "example.org/v1", kind: "XNet", metadata: { name } }, new SourceFile(options.file ?? `${name}.yaml`, ""), 0);
  const s: RenderedSource = {
    source: m,
    via: options.via ?? "Composition xnets",
    documents: objects,
    objects,
    keys: objects.map(renderedObjectKey),
    ok: options.ok ?? !options.notRendered,
    findings: [],
  };
  if (options.notRendered)
    s.notRendered = [
      {
        what: "function-kcl",
        reason: "would run an image, which needs Docker and --allow-exec",
        fix: "run with --allow-exec",
        severity: "warning",
        at: { manifest: m, pointer: "" },
      },
    ];
  return s;
}

const cm = (resource: string, data: JsonObject, name?: string): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { ...(name ? { name } : {}), annotations: { "crossplane.io/composition-resource-name": resource } },
  data,
});

function report(
  base: RenderedSource[],
  head: RenderedSource[],
  findings: { base?: Finding[]; head?: Finding[] } = {},
  failOn: FailOn = "error",
  failOnNew = false,
): DiffReport {
  const changes = diffSources(base, head, new SecretMasker());
  const diffed = diffFindings(findings.base ?? [], findings.head ?? []);
  return {
    version: 1,
    tool: { name: "composition-ci", version: "test" },
    base: { ref: "main", commit: "a".repeat(40) },
    head: { ref: "working tree" },
    sources: {
      total: head.length,
      considered: head.length,
      rendered: head.filter((s) => s.ok).length,
      notRendered: head.filter((s) => s.notRendered).length,
      failed: 0,
      all: true,
    },
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
    // Never "0 sources changed" when an affected source did not render: the headline says the diff is incomplete.
    expect(md).not.toContain("**0 sources changed**");
    expect(md).not.toContain("✅");
    expect(md).toContain("### ⚠️ composition-ci: 1 of 1 affected source could not be rendered: the rendered diff is incomplete (fail-on: error)");
    expect(md).toContain("**no affected source rendered**");
    expect(md).toContain("1 not rendered (diff unknown)");
    expect(md).toContain("**Not rendered: the diff of these is unknown**");
    expect(md).toContain(
      "- `function-kcl` would run an image, which needs Docker and --allow-exec: 1 source not rendered (`a`). To render it: run with --allow-exec",
    );
    expect(md).not.toContain("No rendered object changed");
    expect(JSON.parse(JSON.stringify(r)).changes[0].status).toBe("not-rendered");
  });

  it("a source that fails at base and at head is still-failing, never unchanged, and listed", () => {
    const r = report([source("a", [], { ok: false, via: "no Composition" })], [source("a", [], { ok: false, via: "no Composition" })]);
    expect(r.changes[0]!.status).toBe("still-failing");
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).toContain("1 failing at head, not rendered at base (diff unknown)");
    expect(md).toContain("None of the affected sources rendered");
    expect(md).toContain(
      "**Failing at head, and not rendered at base either: the diff of these is unknown** (the findings say why)\n\n- XNet `a` (`a.yaml`) via no Composition",
    );
  });

  it("a new source that fails is failed and says it is new; one that fails at base and renders at head is fixed", () => {
    const added = report([], [source("a", [], { ok: false })]);
    expect(added.changes[0]).toMatchObject({ status: "failed", isNew: true });
    expect(formatDiffMarkdown(added, { maxChars: 65_000 })).toContain(
      "✖ **XNet `a` (a.yaml)** via Composition xnets: new source, **fails to render** (see the findings)",
    );
    const fixed = report([source("a", [], { ok: false })], [source("a", [cm("one", { k: "v" })])]);
    expect(fixed.changes[0]!.status).toBe("fixed");
    expect(fixed.changes[0]!.objects.map((o) => o.status)).toEqual(["added"]);
  });

  it("a nested XR that fails at head fails its source: its objects are unknown, not removed", () => {
    const nested = (resource: string) => cm(resource, {}, resource);
    const base = source("a", [nested("own"), nested("net-a"), nested("net-b")]);
    base.keys = ["ConfigMap/own", "XNetwork/n > ConfigMap/net-a", "XNetwork/n > ConfigMap/net-b"];
    const head = source("a", [nested("own")]);
    head.partial = ["XNetwork/n"];
    const r = report([base], [head]);
    expect(r.changes[0]).toMatchObject({ status: "failed", failedNested: ["XNetwork/n"] });
    expect(r.changes[0]!.objects.map((o) => `${o.key}:${o.status}`)).toEqual(["ConfigMap/own:unchanged"]);
    expect(r.objects).toEqual({ added: 0, changed: 0, removed: 0 });
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).not.toContain("**removed**");
    expect(md).toContain("renders at base, **fails at head**: nested `XNetwork/n`, whose objects are unknown (see the findings)");
  });

  it("beside a nested XR that fails, the rest is compared: a removal elsewhere is still a removal", () => {
    const object = (resource: string) => cm(resource, {}, resource);
    const base = source("a", [object("a"), object("b")]);
    base.partial = ["XNetwork/n"];
    const head = source("a", [object("a"), object("s")]);
    head.keys = ["ConfigMap/a", "XNetwork/n > ConfigMap/s"];
    const fixed = report([base], [head]).changes[0]!;
    expect(fixed.status).toBe("fixed");
    expect(fixed.objects.map((o) => `${o.key}:${o.status}`)).toEqual(["ConfigMap/a:unchanged", "ConfigMap/b:removed", "XNetwork/n > ConfigMap/s:added"]);
    const failing = source("a", [object("a")]);
    failing.partial = ["XNetwork/n"];
    const failed = report([source("a", [object("a"), object("b")])], [failing]);
    expect(failed.changes[0]!.objects.map((o) => `${o.key}:${o.status}`)).toEqual(["ConfigMap/a:unchanged", "ConfigMap/b:removed"]);
    expect(formatDiffMarkdown(failed, { maxChars: 65_000 })).toContain("`ConfigMap/b` is **removed** in XNet `a`");
  });

  it("a nested XR failing at base and at head: the rest of the source is still compared", () => {
    const object = (resource: string, data: JsonObject = {}) => cm(resource, data, resource);
    const side = (objects: JsonObject[]) => {
      const s = source("a", objects);
      s.partial = ["XNetwork/n"];
      return s;
    };
    const changed = report([side([object("a", { v: "1" }), object("b")])], [side([object("a", { v: "2" })])]).changes[0]!;
    expect(changed.status).toBe("changed");
    expect(changed.objects.map((o) => `${o.key}:${o.status}`)).toEqual(["ConfigMap/a:changed", "ConfigMap/b:removed"]);
    expect(report([side([object("a")])], [side([object("a")])]).changes[0]!.status).toBe("still-failing");
  });

  it("a source that fails at head and could not be rendered at base is still-failing, as the footer counts it failed", () => {
    const r = report([source("a", [], { notRendered: true })], [source("a", [], { ok: false })]);
    expect(r.changes[0]!.status).toBe("still-failing");
  });

  it("a source is named once per function that keeps it from rendering, with its file where names repeat", () => {
    const twoSteps = (file: string) => {
      const s = source("my-db", [], { notRendered: true, file });
      s.notRendered = [...s.notRendered!, { ...s.notRendered![0]!, step: "second" }];
      return s;
    };
    const r = report([twoSteps("x.yaml"), twoSteps("y.yaml")], [twoSteps("x.yaml"), twoSteps("y.yaml")]);
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md).toContain("2 not rendered (diff unknown)");
    expect(md).toContain(": 2 sources not rendered (`my-db` (x.yaml), `my-db` (y.yaml)).");
  });

  it("diff --format sarif carries the render/not-rendered warning of a source that cannot render on either side", async () => {
    const xrd =
      "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xapps.example.org}\nspec:\n  group: example.org\n  names: {kind: XApp, plural: xapps}\n  versions:\n    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}\n";
    const { dir } = gitRepo({
      "xrd.yaml": xrd,
      "functions.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-acme}\nspec: {package: ghcr.io/acme/function-acme:v1}\n",
      "composition.yaml":
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: xapps}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}\n  mode: Pipeline\n  pipeline:\n    - step: acme\n      functionRef: {name: function-acme}\n",
      "xr.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: one, namespace: default}\nspec: {}\n",
    });
    fs.writeFileSync(
      path.join(dir, "xr.yaml"),
      "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: one, namespace: default, labels: {tier: gold}}\nspec: {}\n",
    );
    const json = JSON.parse((await runCli(["diff", "--base", "main", "--format", "json"], dir)).stdout) as DiffReport;
    expect(json.changes.map((c) => `${c.name}:${c.status}`)).toEqual(["one:not-rendered"]);
    // The state names the step, the function and the fix.
    expect(json.changes[0]!.notRendered).toEqual([
      { what: "function-acme", step: "acme", reason: expect.stringContaining("not a trusted package"), fix: expect.stringContaining("functions.trusted") },
    ]);
    const markdown = (await runCli(["diff", "--base", "main", "--format", "markdown"], dir)).stdout;
    expect(markdown).toContain("- `function-acme` (step `acme`) would pull and run");
    const { code, stdout } = await runCli(["diff", "--base", "main", "--format", "sarif"], dir);
    expect(code).toBe(0);
    const sarif = JSON.parse(stdout) as {
      runs: {
        tool: { driver: { rules: { id: string }[] } };
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
        }[];
      }[];
    };
    const results = sarif.runs[0]!.results.filter((r) => r.ruleId === "render/not-rendered");
    expect(results).toHaveLength(1);
    expect(results[0]!.level).toBe("warning");
    expect(results[0]!.message.text).toContain(
      "1 source (XApp one) was not rendered: function function-acme (step acme) would pull and run ghcr.io/acme/function-acme:v1, which is not a trusted package",
    );
    expect(results[0]!.locations![0]!.physicalLocation.artifactLocation.uri).toBe("functions.yaml");
    expect(sarif.runs[0]!.tool.driver.rules.map((r) => r.id)).toContain("render/not-rendered");
  }, 30_000);

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
    ["info", false, true, "### ❌ composition-ci: fails on 1 error and 1 warning (fail-on: info)"],
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

describe("a run that fails on findings already on the base branch shows them", () => {
  const oldError = finding("schema/type", 3);
  const oldWarning = finding("schema/required", 9, { severity: "warning" });
  const details = (failOn: FailOn, failOnNew = false) => {
    const md = formatDiffMarkdown(report([], [], { base: [oldError, oldWarning], head: [oldError, oldWarning] }, failOn, failOnNew), { maxChars: 65_000 });
    return md.slice(md.indexOf("<details><summary>2 findings already on the base branch"));
  };

  it("fail-on error: the old error is listed (what the verdict is about), not the warning", () => {
    const md = details("error");
    expect(md).toContain("The run fails on these:");
    expect(md).toContain("`schema/type`");
    expect(md).not.toContain("`schema/required`");
  });

  it("a run that passes (or counts only new findings) lists none", () => {
    for (const md of [details("never"), details("error", true)]) {
      expect(md).not.toContain("The run fails on these");
      expect(md).not.toContain("`schema/type`");
    }
  });
});

describe("the comment reads a repeated finding once per kind", () => {
  it("three Buckets without a schema are one row with how many more; other rules stay one row each", () => {
    const missing = (line: number) =>
      finding("schema/missing", line, { severity: "warning", message: "no schema for s.example.org/v1 Bucket: add its CRD", file: `b${line}.yaml` });
    const r = report([], [], { head: [missing(1), missing(2), missing(3), finding("schema/type", 4), finding("schema/type", 5)] }, "error", false);
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    const rows = md.split("\n").filter((l) => l.startsWith("- "));
    expect(rows.filter((l) => l.includes("schema/missing"))).toEqual([
      "- ⚠️ **warning** `schema/missing` b1.yaml:1: no schema for s.example.org/v1 Bucket: add its CRD (and 2 more like it)",
    ]);
    expect(rows.filter((l) => l.includes("schema/type"))).toHaveLength(2);
  });
});

describe("the failing counts read as a list", () => {
  it("one, two and three severities", () => {
    const v = (error: number, warning: number, info: number) =>
      failingText({ failed: true, failOn: "info", failOnNew: false, failing: { error, warning, info } });
    expect(v(1, 0, 0)).toBe("1 error");
    expect(v(2, 1, 0)).toBe("2 errors and 1 warning");
    expect(v(1, 2, 3)).toBe("1 error, 2 warnings and 3 info findings");
  });
});

describe("fail-on info counts info findings; without fail-on-new, old ones too", () => {
  const old = finding("vela/trait-not-applicable", 3, { severity: "info" });
  const fresh = finding("render/not-rendered", 9, { severity: "info" });
  it("fail-on info fails on info findings old and new; fail-on warning passes them", () => {
    const r = report([], [], { base: [old], head: [old, fresh] }, "info", false);
    expect(r.verdict).toEqual({ failed: true, failOn: "info", failOnNew: false, failing: { error: 0, warning: 0, info: 2 } });
    expect(formatDiffMarkdown(r, { maxChars: 65_000 }).split("\n")[0]).toBe("### ❌ composition-ci: fails on 2 info findings (fail-on: info)");
    const onlyNew = report([], [], { base: [old], head: [old, fresh] }, "info", true);
    expect(formatDiffMarkdown(onlyNew, { maxChars: 65_000 }).split("\n")[0]).toBe(
      "### ❌ composition-ci: fails on 1 new info finding (fail-on: info, new findings only)",
    );
    const warning = report([], [], { base: [old], head: [old, fresh] }, "warning", false);
    expect(warning.verdict.failed).toBe(false);
    expect(formatDiffMarkdown(warning, { maxChars: 65_000 }).split("\n")[0]).toBe("### ✅ composition-ci: passes (fail-on: warning)");
  });

  it("a suppressed info finding does not fail fail-on info", () => {
    const r = report([], [], { head: [finding("vela/trait-not-applicable", 3, { severity: "info", suppressed: true })] }, "info", false);
    expect(r.verdict.failed).toBe(false);
  });
});

describe("layout for review", () => {
  it("with 100 findings already on main and one change, the change comes before any finding", () => {
    const olds = Array.from({ length: 100 }, (_, i) => finding("schema/type", i + 1, { message: `old ${i}` }));
    const r = report([source("a", [cm("c", { a: "1" })])], [source("a", [cm("c", { a: "2" })])], { base: olds, head: [...olds, finding("pt/transform", 200)] });
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    expect(md.indexOf("± **XNet")).toBeGreaterThan(0);
    expect(md.indexOf("± **XNet")).toBeLessThan(md.indexOf("pt/transform"));
    expect(md).toContain("<details><summary>100 findings already on the base branch (100 errors)</summary>");
    // They fail the run: the first ten are listed, what the verdict is about.
    expect(md).toContain(": old 9\n- …and 90 more.");
    expect(md).not.toContain("old 10");
    // The job summary lists them (within its rows), still collapsed and after the change.
    const summary = formatDiffMarkdown(r, { maxChars: 1024 * 1024, listBaseFindings: true });
    expect(summary).toContain(": old 0");
    expect(summary).toContain(": old 99");
    expect(summary.indexOf("± **XNet")).toBeLessThan(summary.indexOf("old 0"));
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
    expect(md).toContain("- `ConfigMap/gone` is **removed** in XNet `a`");
    expect(md).toContain("- `ConfigMap/keep` is **replaced**: `metadata.name` changes in XNet `a`");
    expect(md.indexOf("Deleted or replaced")).toBeLessThan(md.indexOf("**Changes**"));
  });

  it("the summary: one line per field change and per deleted object, counted once across the XRs that render it (issue 32.3)", () => {
    const r = report(
      ["a", "b"].map((n) => source(n, [cm("vpc", { cidr: "10.0.0.0/16" }), cm("gateway", {})])),
      ["a", "b"].map((n) => source(n, [cm("vpc", { cidr: "10.1.0.0/16" })])),
    );
    const md = formatDiffMarkdown(r, { maxChars: 65_000 });
    const summary = md.slice(md.indexOf("**Summary**"), md.indexOf("**Changes**"));
    expect(summary).toContain("Composition xnets\n\n```diff\n");
    expect(summary).toContain('~ ConfigMap vpc: data.cidr "10.0.0.0/16" → "10.1.0.0/16"   (in 2 XRs)\n');
    expect(summary).toContain("- ConfigMap gateway   (deleted in 2 XRs)");
    expect(summary.match(/ConfigMap gateway/g)).toHaveLength(1);
    // The deletion's warning at the top is said once too, naming both sources.
    expect(md).toContain("- `ConfigMap/gateway` is **removed** in 2 sources (`a`, `b`)");
    expect(md.indexOf("**Summary**")).toBeLessThan(md.indexOf("**Changes**"));
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

  it("a message's own code spans stay code; the text around them is escaped", () => {
    expect(escapeMarkdownKeepingCode("missing `spec.size` in *x* (y)")).toBe("missing `spec.size` in \\*x\\* \\(y\\)");
    expect(escapeMarkdownKeepingCode("odd ` one")).toBe("odd \\` one");
    const r = report([], [], { head: [finding("schema/required", 1, { message: "missing required field `spec.parameters.nodes.count`" })] });
    expect(formatDiffMarkdown(r, { maxChars: 65_000 })).toContain(": missing required field `spec.parameters.nodes.count`");
  });

  it("a lone carriage return is a line break to markdown: it cannot start a paragraph of links anywhere", () => {
    const hostile = "x\r\r@octocat [click](https:evil.test) ![p](//evil.test/p.png)\r\ry";
    for (const out of [escapeMarkdown(hostile), escapeMarkdownKeepingCode(hostile), escapeHtmlText(hostile), code(hostile)]) expect(out).not.toMatch(/[\r\n]/);
    expect(code("a\rb")).toBe("`a b`");
  });

  it("collapsing whitespace is linear: a long run of spaces without a line break", () => {
    const started = performance.now();
    escapeMarkdown(`a${" ".repeat(200_000)}b`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("inside an HTML block (a summary) nothing is backslash-escaped, and mentions and links are still broken", () => {
    const out = escapeHtmlText("WebApp a (a.yaml) @octocat <b> https://evil.test");
    expect(out).toContain("WebApp a (a.yaml) ");
    expect(out).not.toContain("\\");
    expect(out).not.toMatch(/@octocat|<b>|https:\/\//);
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
                {
                  base: { kind: "Bucket" },
                  patches: [
                    { type: "ToCompositeFieldPath", fromFieldPath: "status.atProvider.arn", toFieldPath: "status.arn" },
                    { type: "FromCompositeFieldPath", fromFieldPath: "spec.region" },
                  ],
                },
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
    // Said once per comment, collapsed; the source is marked.
    expect(md).toContain(
      "<details><summary>ⓘ Read from observed state, unknown offline: empty here, set by the cluster</summary>\n\n- Composition xnets: `status.arn ← Bucket status.atProvider.arn`, `status.roleUid ← Role metadata.uid`",
    );
    expect(md.match(/Read from observed state/g)).toHaveLength(1);
    expect(md).toMatch(/via Composition xnets: ~ConfigMap ⓘ/);
  });
});

describe("the drift issue", () => {
  const drift = (items: DriftReport["items"], baselines: DriftReport["baselines"], run?: DriftReport["run"]): DriftReport => ({
    version: 1,
    tool: { name: "composition-ci", version: "test" },
    baselines,
    sources: 2,
    states: { rendered: 2, notRendered: 0, failed: 0 },
    items,
    fingerprint: "f",
    ...(run ? { run } : {}),
  });
  const changed = {
    id: "object-changed|WebApp a (a.yaml)|Service/svc",
    kind: "object-changed" as const,
    source: "WebApp a (a.yaml)",
    object: "Service/svc",
    detail: "--- snapshot/Service/svc\n+++ render/Service/svc\n-  port: 80\n+  port: 81",
    state: "new" as const,
  };

  it("links the workflow run and says how to refresh the snapshot", () => {
    const md = formatDriftMarkdown(
      drift([changed], { snapshot: "rendered", cluster: false, previous: "drift.json" }, { url: "https://github.test/o/r/actions/runs/7" }),
      { maxChars: 65_000 },
    );
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 1 item (1 new)");
    expect(md).toContain(
      "[Workflow run](https://github.test/o/r/actions/runs/7) · if this is what should run now, refresh the snapshot: `composition-ci drift --snapshot rendered --update-snapshot` and commit it",
    );
    expect(md).toContain("<details><summary>WebApp a (a.yaml) · 1 item</summary>");
    expect(md).toContain("+  port: 81");
  });

  it("no refresh command when there is no drift, or when the baseline is the cluster; the run link stays", () => {
    const clean = formatDriftMarkdown(drift([], { snapshot: "rendered", cluster: false }, { url: "https://github.test/o/r/actions/runs/8" }), {
      maxChars: 65_000,
    });
    expect(clean.split("\n")[0]).toBe("### ✅ composition-ci drift: none");
    expect(clean).toContain("[Workflow run](https://github.test/o/r/actions/runs/8)");
    expect(clean).not.toContain("--update-snapshot");
    const cluster = formatDriftMarkdown(drift([{ ...changed, kind: "cluster-changed" }], { cluster: true }), { maxChars: 65_000 });
    expect(cluster).not.toContain("--update-snapshot");
    expect(cluster).not.toContain("Workflow run");
    expect(cluster).toContain("compared with the cluster");
  });
});

describe("which commit the comment describes", () => {
  it("the footer names the head commit, linked, and when it was made; a sha that is not one is left out", () => {
    const r = report([source("a", [])], [source("a", [])]);
    const md = formatDiffMarkdown(r, {
      maxChars: 65_000,
      describes: { sha: "0123456789abcdef0123", url: "https://github.test/o/r/commit/0123456789abcdef0123", at: "2026-11-26 08:55 UTC" },
    });
    expect(md).toContain("Describes [`0123456`](https://github.test/o/r/commit/0123456789abcdef0123) as of 2026-11-26 08:55 UTC.");
    expect(formatDiffMarkdown(r, { maxChars: 65_000, describes: { sha: "not)a-sha", url: "x" } })).not.toContain("Describes");
  });

  it("a second job's comment is told apart by its key in the title", () => {
    const r = report([source("a", [])], [source("a", [])]);
    expect(formatDiffMarkdown(r, { maxChars: 65_000, title: "staging" }).startsWith("### ✅ composition-ci (staging): passes")).toBe(true);
  });
});
