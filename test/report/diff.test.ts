import type { GitHubClient } from "../../src/report/github/client.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Manifest, SourceFile } from "../../src/manifest/manifest.js";
import type { JsonObject } from "../../src/core/json.js";
import { renderedObjectKey, type RenderedSource } from "../../src/rendered/source.js";
import { objectCounts, type DiffReport } from "../../src/report/diff.js";
import { diffFindings, diffSources, sourceKeys, unifiedDiff } from "../../src/rendered/diff.js";
import type { Finding } from "../../src/core/finding.js";
import { formatDiffMarkdown } from "../../src/report/formats/markdown.js";
import { pickAnnotations } from "../../src/report/github/annotations.js";
import { upsertStickyComment } from "../../src/report/github/comment.js";
import { maskValue, SecretMasker } from "../../src/secrets/mask.js";
import { FakeGitHub, quietOctokit, NAME, OWNER, PR } from "../fake-github.js";

describe("secret masking", () => {
  it("masks Secret data and stringData, and fields whose name says they hold a secret; key names stay visible", () => {
    const masker = new SecretMasker();
    const secret = masker.maskObject({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db" },
      data: { password: "aHVudGVyMi1zZWNyZXQ=" },
      stringData: { user: "admin-user" },
    });
    expect(secret.data).toEqual({ password: maskValue("aHVudGVyMi1zZWNyZXQ=") });
    expect(secret.stringData).toEqual({ user: maskValue("admin-user") });
    expect(secret.metadata).toEqual({ name: "db" });
    const app = masker.maskObject({
      kind: "App",
      spec: {
        dbPassword: "pa55word!",
        apiToken: "tok-123456",
        clientSecret: "shh-123456",
        apiKey: "AKIA123456",
        fromSecret: { name: "db", key: "username" },
        replicas: 3,
      },
    });
    expect(app.spec).toEqual({
      dbPassword: maskValue("pa55word!"),
      apiToken: maskValue("tok-123456"),
      clientSecret: maskValue("shh-123456"),
      apiKey: maskValue("AKIA123456"),
      fromSecret: { name: "db", key: "username" },
      replicas: 3,
    });
  });

  it("a change stays visible: equal values, equal masks; different values, different masks", () => {
    expect(maskValue("a-secret")).toBe(maskValue("a-secret"));
    expect(maskValue("a-secret")).not.toBe(maskValue("b-secret"));
    expect(maskValue("x")).toMatch(/^<masked sha256:[0-9a-f]{8}>$/);
  });

  it("redacts every remembered value, and the text a base64 value encodes, from any text; a Secret key name is not remembered", () => {
    const masker = new SecretMasker();
    masker.learn({ apiVersion: "v1", kind: "Secret", data: { token: Buffer.from("decoded-secret").toString("base64") } });
    masker.learn({ spec: { password: "plain-password", ref: { key: "username" } } });
    const text = masker.redact(`got decoded-secret and plain-password for username`);
    expect(text).not.toContain("decoded-secret");
    expect(text).not.toContain("plain-password");
    expect(text).toContain(maskValue("plain-password"));
    expect(text).toContain("for username");
  });
});

function finding(rule: string, line: number, extra: Partial<Finding> = {}): Finding {
  return { rule, severity: "error", message: `${rule} message`, file: "a.yaml", line, kind: "Thing", name: "x", ...extra };
}

describe("unified diffs", () => {
  it("hunk ranges as diff and git write them: an empty side starts at the line before (a new object is -0,0)", () => {
    expect(unifiedDiff("ConfigMap/x", "", "a: 1\nb: 2\n").split("\n")[2]).toBe("@@ -0,0 +1,2 @@");
    expect(unifiedDiff("ConfigMap/x", "a: 1\nb: 2\n", "").split("\n")[2]).toBe("@@ -1,2 +0,0 @@");
    const lines = "a\nb\nc\nd\ne\nf\ng\nh\n";
    expect(unifiedDiff("k", lines, lines.replace("d\n", "d\nX\n"), undefined, 0).split("\n")[2]).toBe("@@ -4,0 +5,1 @@");
  });
});

describe("findings diff", () => {
  it("is keyed by rule, file, object and message, not by line; repeats match one for one", () => {
    const base = [finding("schema/type", 3), finding("schema/type", 9), finding("pt/transform", 4)];
    const head = [finding("schema/type", 5), finding("oam/component-missing", 1)];
    const d = diffFindings(base, head);
    expect(d.unchanged.map((f) => f.line)).toEqual([5]);
    expect(d.new.map((f) => f.rule)).toEqual(["oam/component-missing"]);
    expect(d.fixed.map((f) => `${f.rule}:${f.line}`)).toEqual(["schema/type:3", "pt/transform:4"]);
  });

  it("a different problem at the same place (another message) is new, and the old one fixed: --fail-on-new counts it", () => {
    const at = (message: string) => finding("schema/required", 3, { message, path: "spec" });
    const d = diffFindings([at("missing required field `spec.selector`")], [at("missing required field `spec.template`")]);
    expect([d.new.length, d.fixed.length, d.unchanged.length]).toEqual([1, 1, 0]);
  });
});

function source(name: string, objects: JsonObject[], ok = true): RenderedSource {
  const m = new Manifest({ apiVersion: "example.org/v1", kind: "XThing", metadata: { name } }, new SourceFile(`${name}.yaml`, ""), 0);
  return { source: m, via: "Composition c", documents: objects, objects, keys: objects.map(renderedObjectKey), ok, findings: [] };
}

const composed = (resource: string, name: string, spec: JsonObject): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, annotations: { "crossplane.io/composition-resource-name": resource } },
  data: spec,
});

/** The same XR (one name) in several files: copies of one example. */
function copy(file: string, objects: JsonObject[]): RenderedSource {
  const m = new Manifest({ apiVersion: "example.org/v1", kind: "XThing", metadata: { name: "example" } }, new SourceFile(file, ""), 0);
  return { source: m, via: "Composition c", documents: objects, objects, keys: objects.map(renderedObjectKey), ok: true, findings: [] };
}

describe("sources that share a name", () => {
  const status = (changes: ReturnType<typeof diffSources>) => changes.map((c) => `${c.file}:${c.status}`).sort();

  it("removing one copy reports that copy removed and pairs no other with it", () => {
    const base = [
      copy("a/xr.yaml", [composed("r", "a", { v: "a" })]),
      copy("b/xr.yaml", [composed("r", "b", { v: "b" })]),
      copy("c/xr.yaml", [composed("r", "c", { v: "c" })]),
    ];
    const head = [copy("b/xr.yaml", [composed("r", "b", { v: "b" })]), copy("c/xr.yaml", [composed("r", "c", { v: "c" })])];
    expect(status(diffSources(base, head, new SecretMasker()))).toEqual(["a/xr.yaml:removed", "b/xr.yaml:unchanged", "c/xr.yaml:unchanged"]);
  });

  it("the copy left alone at head is the same source as at base (paired by its file), known by its head key", () => {
    const base = [copy("a/xr.yaml", [composed("r", "a", { v: "a" })]), copy("b/xr.yaml", [composed("r", "b", { v: "b" })])];
    const head = [copy("b/xr.yaml", [composed("r", "b", { v: "changed" })])];
    const changes = diffSources(base, head, new SecretMasker());
    expect(status(changes)).toEqual(["a/xr.yaml:removed", "b/xr.yaml:changed"]);
    expect(changes.find((c) => c.file === "b/xr.yaml")!.key).toBe(sourceKeys(head.map((s) => s.source))[0]);
  });
});

describe("rendered changes", () => {
  it("added, removed, changed and unchanged objects and sources; generated names matched by composition resource name", () => {
    const base = [
      source("a", [composed("one", "a-x1", { k: "1" }), composed("gone", "a-x2", {}), composed("same", "a-x3", { s: "s" })]),
      source("removed", [composed("r", "r", {})]),
    ];
    const head = [
      source("a", [composed("one", "a-y9", { k: "2" }), composed("same", "a-x3", { s: "s" }), composed("new", "a-x4", {})]),
      source("added", [composed("n", "n", {})]),
    ];
    const changes = diffSources(base, head, new SecretMasker());
    const byName = Object.fromEntries(changes.map((c) => [c.name, c]));
    expect(byName.a!.status).toBe("changed");
    expect(byName.added!.status).toBe("added");
    expect(byName.removed!.status).toBe("removed");
    expect(byName.a!.objects.map((o) => `${o.key}:${o.status}`)).toEqual([
      "ConfigMap/gone:removed",
      "ConfigMap/new:added",
      "ConfigMap/one:changed",
      "ConfigMap/same:unchanged",
    ]);
    const diff = byName.a!.objects.find((o) => o.key === "ConfigMap/one")!.diff!;
    expect(diff).toContain("-  name: a-x1\n+  name: a-y9");
    expect(diff).toContain('-  k: "1"\n+  k: "2"');
    expect(objectCounts(changes)).toEqual({ added: 2, changed: 1, removed: 2 });
  });

  it("a source that stops rendering is failed, not a removal of everything", () => {
    const changes = diffSources([source("a", [composed("one", "x", {})])], [source("a", [], false)], new SecretMasker());
    expect(changes[0]!.status).toBe("failed");
    expect(changes[0]!.objects).toEqual([]);
  });

  it("masks secrets in diffs", () => {
    const secret = (v: string): JsonObject => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", annotations: { "crossplane.io/composition-resource-name": "s" } },
      stringData: { password: v },
    });
    const [c] = diffSources([source("a", [secret("old-value-1")])], [source("a", [secret("new-value-2")])], new SecretMasker());
    const diff = c!.objects[0]!.diff!;
    expect(diff).not.toContain("old-value-1");
    expect(diff).not.toContain("new-value-2");
    expect(diff).toContain(`-  password: ${maskValue("old-value-1")}`);
    expect(diff).toContain(`+  password: ${maskValue("new-value-2")}`);
  });
});

function bigReport(objects: number, lines: number): DiffReport {
  const data = (v: string) => Object.fromEntries(Array.from({ length: lines }, (_, i) => [`key-${i}`, `${v}-${i}`]));
  const base = [
    source(
      "big",
      Array.from({ length: objects }, (_, i) => composed(`r${i}`, `n${i}`, data("old"))),
    ),
  ];
  const head = [
    source(
      "big",
      Array.from({ length: objects }, (_, i) => composed(`r${i}`, `n${i}`, data("new"))),
    ),
  ];
  const changes = diffSources(base, head, new SecretMasker());
  return {
    version: 1,
    tool: { name: "composition-ci", version: "test" },
    base: { ref: "main", commit: "a".repeat(40) },
    head: { ref: "working tree" },
    sources: { total: 10, considered: 1, rendered: 1, notRendered: 0, failed: 0, all: false },
    changes,
    objects: objectCounts(changes),
    findings: {
      new: [finding("schema/type", 2, { message: "a | b <c>" })],
      fixed: [finding("pt/transform", 1)],
      unchanged: [finding("schema/limit", 7, { severity: "warning" })],
    },
    verdict: { failed: true, failOn: "error", failOnNew: false, failing: { error: 1, warning: 0, info: 0 } },
  };
}

describe("markdown report", () => {
  it("verdict, numbers, the changes, then new and fixed findings with links; old ones counted", () => {
    const md = formatDiffMarkdown(bigReport(2, 3), { maxChars: 65_000, linkBase: "https://github.com/o/r/blob/abc/" });
    const lines = md.split("\n");
    expect(lines[0]).toBe("### ❌ composition-ci: fails on 1 error (fail-on: error)");
    expect(lines[2]).toBe("**1 source changed** · objects +0 ~2 −0 · findings: 1 new, 1 fixed");
    expect(md).toContain("± **XThing `big` (big.yaml)** via Composition c: ~ConfigMap ×2");
    const fresh = lines.find((l) => l.includes("schema/type"))!;
    expect(fresh).toContain("[a.yaml:2](https://github.com/o/r/blob/abc/a.yaml#L2)");
    expect(fresh).toContain("a \\| b &lt;c&gt;");
    expect(md).toContain("<details><summary>1 finding already on the base branch (1 warning)</summary>");
    expect(md).not.toContain("schema/limit");
    expect(md).toContain("```diff\n--- base/ConfigMap/r0");
    expect(md.indexOf("± **XThing")).toBeLessThan(md.indexOf("schema/type"));
    expect(md).not.toContain("✂️");
  });

  it("a truncation ladder keeps it under the limit, and says so at every cut", () => {
    const report = bigReport(20, 200);
    const full = formatDiffMarkdown(report, { maxChars: 10_000_000 });
    const trimmed = formatDiffMarkdown(report, { maxChars: 60_000, fullReportHint: "See the job summary." });
    const listed = formatDiffMarkdown(report, { maxChars: 5_000 });
    const summary = formatDiffMarkdown(report, { maxChars: 900 });
    expect(full.length).toBeGreaterThan(60_000);
    expect(trimmed.length).toBeLessThanOrEqual(60_000);
    expect(trimmed).toContain("Diffs are trimmed to fit");
    expect(trimmed).toContain("See the job summary.");
    expect(trimmed).toContain("more lines (trimmed)");
    expect(listed.length).toBeLessThanOrEqual(5_000);
    expect(listed).toContain("  - changed `ConfigMap/r0`");
    expect(listed).not.toContain("```diff");
    expect(summary.length).toBeLessThanOrEqual(900);
    expect(summary).toContain("Only the summary fits");
    expect(summary).not.toContain("<details>");
  });
});

describe("annotations", () => {
  it("the 10 most severe errors and warnings, new first; the rest counted", () => {
    const findings = [
      ...Array.from({ length: 15 }, (_, i) => finding("schema/type", i + 1)),
      ...Array.from({ length: 12 }, (_, i) => finding("schema/limit", i + 100, { severity: "warning" })),
      finding("render/x", 500, { severity: "info" }),
    ];
    const isNew = (f: Finding) => f.line === 15;
    const { annotations, left } = pickAnnotations(findings, isNew);
    expect(annotations.filter((a) => a.level === "error")).toHaveLength(10);
    expect(annotations.filter((a) => a.level === "warning")).toHaveLength(10);
    expect(annotations[0]!.finding.line).toBe(15);
    expect(left).toBe(7);
  });
});

describe("sticky comment", () => {
  const github = new FakeGitHub();
  let octokit: GitHubClient;
  beforeAll(async () => {
    octokit = quietOctokit(await github.start());
  });
  afterAll(() => github.stop());
  const upsert = (mode: "always" | "on-change" | "never", hasChanges: boolean, key = "k") =>
    upsertStickyComment({ octokit, owner: OWNER, repo: NAME, issueNumber: PR, key, body: "the report", cleanBody: "all clean", mode, hasChanges });

  it("on-change: a clean PR gets no new comment; an existing one is updated to say it is clean; never writes nothing", async () => {
    expect((await upsert("on-change", false)).action).toBe("skipped");
    // (a POST to /graphql only asks who the token is)
    expect(github.requests.filter((r) => r.method === "POST" && r.url !== "/graphql")).toHaveLength(0);
    expect((await upsert("on-change", true)).action).toBe("created");
    const res = await upsert("on-change", false);
    expect(res.action).toBe("updated");
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]!.body).toBe("<!-- composition-ci:k -->\nall clean");
    const before = github.requests.length;
    expect((await upsert("never", true)).action).toBe("skipped");
    expect(github.requests.length).toBe(before);
  });

  it("keys keep comments apart", async () => {
    await upsert("always", true, "other");
    expect(github.comments.map((c) => c.body.split("\n")[0])).toEqual(["<!-- composition-ci:k -->", "<!-- composition-ci:other -->"]);
  });
});
