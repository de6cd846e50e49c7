import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discover } from "../../src/manifest/discover.js";
import { loadFile, loadPath } from "../../src/manifest/load.js";
import { loadFiles } from "../../src/manifest/read.js";
import { HAS_SHARED, SHARED, tempRepo } from "../helpers.js";

const load = (text: string, limits?: { maxFileBytes: number; maxAliasCount: number }) => loadFile("f.yaml", Buffer.from(text), limits);

describe("loading manifests", () => {
  it("reads multi-document YAML and skips non-manifests and empty documents", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\nfoo: bar\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n");
    expect(r.manifests.map((m) => `${m.kind}/${m.name}/${m.docIndex}`)).toEqual(["ConfigMap/a/0", "Secret/b/3"]);
    expect(r.findings).toEqual([]);
  });

  it("splits kind: List into items that keep their own positions", () => {
    const r = load("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: x\n");
    expect(r.manifests).toHaveLength(1);
    expect(r.manifests[0].locate("/metadata/name")).toEqual({ line: 7, column: 7 });
  });

  it("locates a JSON pointer at the exact key", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  key.with.dots: v\n");
    expect(r.manifests[0].locate("/data/key.with.dots")).toEqual({ line: 6, column: 3 });
    expect(r.manifests[0].locate("/data/absent")).toEqual({ line: 5, column: 1 });
  });

  it("reports syntax errors with their line, never throwing", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n");
    expect(r.findings[0]).toMatchObject({ rule: "yaml/syntax", file: "f.yaml", severity: "error" });
    expect(r.findings[0].line).toBeGreaterThan(1);
  });

  it("reports duplicate keys with the duplicate's line, and reads the object as kubectl does (the last value wins)", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n");
    expect(r.findings).toMatchObject([{ rule: "yaml/duplicate-key", severity: "warning", line: 5, column: 3 }]);
    expect(r.findings[0]!.message).toBe(
      "duplicate mapping key `name` (first at line 4): kubectl, Helm, Argo CD and crossplane render keep the last value, kustomize and Flux refuse the file",
    );
    const flow = load('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {"k": 1, "x": 2, "k": 1}\n');
    expect(flow.findings[0]).toMatchObject({
      severity: "info",
      message: expect.stringContaining("duplicate mapping key `k` (first at line 4, with the same value)"),
    });
    expect(r.manifests.map((m) => m.name)).toEqual(["b"]);
  });

  it("a repeated key in a file that is no Kubernetes object is nobody's concern (a test's data file)", () => {
    expect(load("cases:\n  a: 1\n  a: 2\n").findings).toEqual([]);
  });

  it("finding duplicate keys is linear: 20,000 keys, each twice", () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i}: v`).join("\n");
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n${keys}\n${keys}\n`;
    const started = performance.now();
    const r = load(text);
    expect(r.findings.filter((f) => f.rule === "yaml/duplicate-key")).toHaveLength(20_000);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it.skipIf(!HAS_SHARED)("reports the duplicate metadata.name in the Crossplane e2e corpus at line 7", () => {
    const file = path.join(SHARED, "corpus/crossplane-e2e/apiextensions/composition/legacy-propagate-field-removals/setup/functions.yaml");
    const r = loadPath(file, "functions.yaml");
    expect(r.findings).toMatchObject([{ rule: "yaml/duplicate-key", line: 7 }]);
  });

  it("skips Helm/Go templates with an info finding", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n{{- if .Values.x }}\ndata: {}\n{{- end }}\n");
    expect(r.findings).toMatchObject([{ rule: "file/templated", severity: "info" }]);
  });

  it("keeps files whose {{ }} sit inside strings (go-templating inputs)", () => {
    const r = load("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  template: |\n    name: {{ .observed.composite.resource.metadata.name }}\n");
    expect(r.findings).toEqual([]);
    expect(r.manifests).toHaveLength(1);
  });

  it("merges `<<` keys as go-yaml does, from an alias or an inline mapping", () => {
    const viaAlias = load('base: &d {x: "1", y: "2"}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  <<: *d\n  y: "3"\n');
    expect(viaAlias.findings).toEqual([]);
    expect(viaAlias.manifests[0]!.object.data).toEqual({ x: "1", y: "3" });
    const inline = load('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  <<: {a: "1"}\n  c: "2"\n');
    expect(inline.manifests[0]!.object.data).toEqual({ a: "1", c: "2" });
  });

  it("an alias to an anchor of another document is a syntax error that says anchors stay in their document", () => {
    const r = load('defaults: &d\n  x: "1"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  <<: *d\n');
    expect(r.findings).toMatchObject([{ rule: "yaml/syntax", severity: "error", line: 3 }]);
    expect(r.findings[0]!.message).toContain("anchors do not reach across `---`");
  });

  it("stops alias bombs", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill("*" + String.fromCharCode(96 + i))
          .join(", ")}]`,
      );
    const started = Date.now();
    const r = load(`apiVersion: v1\nkind: ConfigMap\n${lines.join("\n")}\n`);
    expect(r.findings).toMatchObject([{ rule: "yaml/alias-limit" }]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("reads asterisks in prose on the fast path, and only real anchors on the bounded one", () => {
    // CRD descriptions and cron schedules are full of `*`; they must not cost the slow parser.
    const prose = load('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  schedule: "* * * * *"\n  note: matches *all* names, **bold**\n');
    expect(prose.source?.events).toBeDefined();
    expect(prose.manifests[0].locate("/data/note")).toEqual({ line: 6, column: 3 });
    const anchored = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: &x one\n  b: *x\n");
    expect(anchored.source?.events).toBeUndefined();
    expect(anchored.manifests[0].object.data).toEqual({ a: "one", b: "one" });
    expect(anchored.manifests[0].locate("/data/b")).toEqual({ line: 6, column: 3 });
  });

  it("turns a file that cannot be read into a finding", () => {
    const dir = tempRepo({ "ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n" });
    const loaded = loadFiles([
      { abs: path.join(dir, "ok.yaml"), rel: "ok.yaml" },
      { abs: path.join(dir, "gone.yaml"), rel: "gone.yaml" },
    ]);
    expect(loaded[0].manifests).toHaveLength(1);
    expect(loaded[1].findings).toMatchObject([{ rule: "file/unreadable", severity: "error", file: "gone.yaml", line: 1 }]);
    expect(loaded[1].findings[0].message).toContain("ENOENT");
  });

  it("a document nested thousands of levels deep is a finding, not a crash", () => {
    const r = load(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  a: ${"[".repeat(20000)}${"]".repeat(20000)}\n`);
    expect(r.manifests).toEqual([]);
    expect(r.findings[0]).toMatchObject({ rule: "yaml/syntax", line: 5, message: "the document nests more than 128 levels deep (no manifest does); not read" });
  });

  it("reads UTF-16 with a byte-order mark, as go-yaml does; a broken one is an encoding error", () => {
    const text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: u16}\ndata: {a: b}\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le);
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1]!, be[i]!];
    for (const bytes of [le, be]) {
      const r = loadFile("u.yaml", bytes);
      expect(r.findings).toEqual([]);
      expect(r.manifests[0]!.object.metadata).toEqual({ name: "u16" });
    }
    expect(loadFile("u.yaml", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([0x00, 0xd8, 0x41])])).findings).toMatchObject([{ rule: "file/encoding" }]);
  });

  it("apiVersion or kind that is not a name, and a List item that is not an object, are errors at their lines", () => {
    const r = load(
      "apiVersion: 5\nkind: [a]\nmetadata: {name: x}\n---\napiVersion: v1\nkind: List\nitems:\n  - null\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: ok}\n",
    );
    expect(r.findings.map((f) => `${f.line} ${f.rule} ${f.message.split(":")[0]}`)).toEqual([
      "1 schema/type `apiVersion` must be a non-empty string, not a number (5)",
      "2 schema/type `kind` must be a non-empty string, not a list",
      "8 schema/type `items[0]` of a List must be an object with apiVersion and kind, not null",
    ]);
    expect(r.manifests.map((m) => m.name)).toEqual(["ok"]);
  });

  it("refuses files over the size limit and binary files", () => {
    expect(load("apiVersion: v1\nkind: ConfigMap\n", { maxFileBytes: 10, maxAliasCount: 100 }).findings).toMatchObject([
      { rule: "file/too-large", severity: "warning" },
    ]);
    expect(loadFile("b.yaml", Buffer.from([0x61, 0x00, 0x62])).findings).toMatchObject([{ rule: "file/binary" }]);
  });
});

describe("discovering files", () => {
  it("honours .gitignore files and config ignore globs", () => {
    const dir = tempRepo({
      ".gitignore": "build/\n*.generated.yaml\n",
      "a.yaml": "",
      "b.yml": "",
      "c.json": "",
      "d.txt": "",
      "x.generated.yaml": "",
      "build/e.yaml": "",
      "sub/.gitignore": "secret.yaml\n",
      "sub/secret.yaml": "",
      "sub/ok.yaml": "",
      "vendor/v.yaml": "",
      "node_modules/m.yaml": "",
    });
    fs.mkdirSync(path.join(dir, ".git"));
    const files = discover(["."], { root: dir, ignore: ["vendor/**"] }).map((f) => f.rel);
    expect(files).toEqual(["a.yaml", "b.yml", "c.json", "sub/ok.yaml"]);
  });

  it("applies the .gitignore files above a starting directory, up to its repository root only", () => {
    const outer = tempRepo({
      ".gitignore": "*.outer.yaml\n",
      "repo/.gitignore": "*.skip.yaml\n",
      "repo/team/.gitignore": "local.yaml\n",
      "repo/team/apps/a.yaml": "",
      "repo/team/apps/b.skip.yaml": "",
      "repo/team/apps/c.outer.yaml": "",
      "repo/team/apps/local.yaml": "",
      "repo/team/nested/.gitignore": "n.yaml\n",
      "repo/team/nested/n.yaml": "",
      "repo/team/nested/m.skip.yaml": "",
      "repo/team/nested/local.yaml": "",
    });
    fs.mkdirSync(path.join(outer, "repo/.git"));
    fs.mkdirSync(path.join(outer, "repo/team/nested/.git")); // a repository of its own: the parents' files stop there
    const files = discover(["team"], { root: path.join(outer, "repo") }).map((f) => f.rel);
    expect(files).toEqual(["team/apps/a.yaml", "team/apps/c.outer.yaml", "team/nested/local.yaml", "team/nested/m.skip.yaml"]);
  });

  it("a .gitignore that cannot be read ignores nothing", () => {
    const dir = tempRepo({ "a.yaml": "", "sub/b.yaml": "" });
    fs.mkdirSync(path.join(dir, "sub/.gitignore"));
    expect(discover(["."], { root: dir }).map((f) => f.rel)).toEqual(["a.yaml", "sub/b.yaml"]);
  });

  it("follows symbolic links that stay inside the root, and no others", () => {
    const outside = tempRepo({ "secret.yaml": "token: hunter2\n" });
    const dir = tempRepo({ "shared/base.yaml": "", "apps/app.yaml": "" });
    fs.symlinkSync(path.join(dir, "shared/base.yaml"), path.join(dir, "apps/base.yaml")); // a file inside
    fs.symlinkSync(path.join(dir, "shared"), path.join(dir, "apps/common")); // a directory inside
    fs.symlinkSync(path.join(outside, "secret.yaml"), path.join(dir, "apps/leak.yaml")); // outside the root
    fs.symlinkSync(outside, path.join(dir, "apps/elsewhere")); // a directory outside
    fs.symlinkSync(dir, path.join(dir, "apps/loop")); // a parent of the link: never followed
    fs.symlinkSync(path.join(dir, "missing.yaml"), path.join(dir, "apps/dangling.yaml"));
    const notes: string[] = [];
    const files = discover(["."], { root: dir, notes }).map((f) => f.rel);
    expect(files).toEqual(["apps/app.yaml", "apps/base.yaml", "apps/common/base.yaml", "shared/base.yaml"]);
    expect(notes).toEqual([
      "apps/elsewhere is a symbolic link (or below one) that leads outside the repository; not read",
      "apps/leak.yaml is a symbolic link (or below one) that leads outside the repository; not read",
    ]);
  });

  it("a path named on the command line that is, or is below, a link out of the root is not read", () => {
    const outside = tempRepo({ "secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata: {token: hunter2}\n" });
    const dir = tempRepo({ "apps/app.yaml": "" });
    fs.symlinkSync(outside, path.join(dir, "linked"));
    fs.symlinkSync(path.join(outside, "secret.yaml"), path.join(dir, "secret.yaml"));
    for (const named of ["linked", "linked/secret.yaml", "secret.yaml"]) {
      const notes: string[] = [];
      expect(discover([named], { root: dir, notes })).toEqual([]);
      expect(notes).toEqual([`${named} is a symbolic link (or below one) that leads outside the repository; not read`]);
    }
  });
});
