import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RunFunctionRequest, Severity, type RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { directoryFileSystem, memoryFileSystem, readTemplates } from "../../src/render/functions/go-templating/filesystem.js";
import { Template } from "../../src/gotemplate/index.js";
import { runGoTemplating, type GoTemplatingOptions } from "../../src/render/functions/go-templating/function.js";

/** The renderer-facing options of the built-in function-go-templating: file systems, seed and clock. */

const XR = { apiVersion: "example.org/v1", kind: "XThing", metadata: { name: "thing" }, spec: { size: 3 } };

function request(input: Record<string, unknown>): RunFunctionRequest {
  return RunFunctionRequest.fromJSON({
    meta: { tag: "t" },
    input: { apiVersion: "gotemplating.fn.crossplane.io/v1beta1", kind: "GoTemplate", ...input },
    observed: { composite: { resource: XR } },
  });
}

const inline = (template: string, extra: Record<string, unknown> = {}) => request({ source: "Inline", inline: { template }, ...extra });

const fatalOf = (rsp: RunFunctionResponse) => rsp.results.find((r) => r.severity === 1)?.message;
const desiredNames = (rsp: RunFunctionResponse) => Object.keys(rsp.desired?.resources ?? {}).sort();
const composed = (rsp: RunFunctionResponse, name: string) => rsp.desired?.resources[name]?.resource as Record<string, any>;

const configMap = (name: string, data = "{{ .observed.composite.resource.spec.size }}") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    gotemplating.fn.crossplane.io/composition-resource-name: ${name}\ndata:\n  v: "${data}"\n`;

describe("FileSystem source", () => {
  let tmp: string;
  let repo: string;

  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gotemplating-")));
    repo = path.join(tmp, "repo");
    const templates = path.join(repo, "apis/thing/templates");
    fs.mkdirSync(path.join(templates, "nested"), { recursive: true });
    fs.mkdirSync(path.join(templates, ".hidden"), { recursive: true });
    fs.writeFileSync(path.join(templates, "a.yaml"), configMap("a"));
    fs.writeFileSync(path.join(templates, "nested/b.yaml"), configMap("b"));
    fs.writeFileSync(path.join(templates, ".skipped.yaml"), configMap("skipped"));
    fs.writeFileSync(path.join(templates, ".hidden/c.yaml"), configMap("c"));
    fs.mkdirSync(path.join(repo, "shared"));
    fs.writeFileSync(path.join(repo, "shared/d.yaml"), configMap("d"));
    fs.writeFileSync(path.join(tmp, "secret.yaml"), configMap("secret"));
    fs.symlinkSync(path.join(tmp, "secret.yaml"), path.join(templates, "escape.yaml"));
    fs.symlinkSync(tmp, path.join(repo, "apis/thing/outside"));
  });

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const options = (): GoTemplatingOptions => ({
    fileSystem: directoryFileSystem({ root: repo, base: path.join(repo, "apis/thing"), mounts: { "/templates": path.join(repo, "shared") } }),
  });
  const fromDir = (dirPath: string) => request({ source: "FileSystem", fileSystem: { dirPath } });

  it("reads every file below a directory relative to the composition, skipping hidden ones and links that leave the repository", () => {
    const rsp = runGoTemplating(fromDir("templates"), options());
    expect(fatalOf(rsp)).toBeUndefined();
    expect(desiredNames(rsp)).toEqual(["a", "b"]);
    expect(composed(rsp, "a").data).toEqual({ v: "3" });
  });

  it("maps absolute directories through the configured mounts", () => {
    const rsp = runGoTemplating(fromDir("/templates"), options());
    expect(fatalOf(rsp)).toBeUndefined();
    expect(desiredNames(rsp)).toEqual(["d"]);
  });

  it("refuses directories outside the repository, by path or through a symbolic link", () => {
    for (const dir of ["../../..", "outside", "/etc", "/templates/../../.."]) {
      expect(fatalOf(runGoTemplating(fromDir(dir), options())), dir).toBe(
        `invalid function input: cannot read tmpl from the folder {${dir}}: open ${dir}: no such file or directory`,
      );
    }
  });

  it("says what is missing when the renderer gave no file system", () => {
    expect(fatalOf(runGoTemplating(fromDir("templates"), {}))).toMatch(
      /^invalid function input: cannot read tmpl from the folder \{templates\}: no template files are available/,
    );
  });

  it("uses the default source when the input names none", () => {
    const rsp = runGoTemplating(request({}), { ...options(), defaultSource: "templates" });
    expect(fatalOf(rsp)).toBeUndefined();
    expect(desiredNames(rsp)).toEqual(["a", "b"]);
  });

  it("reads files held in memory (a ConfigMap's data) like Go's embed.FS", () => {
    const fsys = memoryFileSystem({ "tmpl/x.yaml": "x", "tmpl/sub/y.yaml": "y", "tmpl/.z": "z" });
    expect(readTemplates(fsys, "tmpl")).toBe("y\n---\nx\n---\n");
    expect(() => readTemplates(fsys, "none")).toThrow("open none: file does not exist");
  });
});

describe("random and time functions", () => {
  const text = `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: r
data:
  rand: {{ randAlphaNum 12 | quote }}
  uuid: {{ uuidv4 | quote }}
  choice: {{ randomChoice "a" "b" "c" "d" "e" | quote }}
  now: {{ now | date "2006-01-02T15:04:05Z07:00" | quote }}
`;
  const data = (opts: GoTemplatingOptions = {}) => composed(runGoTemplating(inline(text), opts), "r").data as Record<string, string>;

  it("repeat from render to render under the default seed and clock", () => {
    expect(data()).toEqual(data());
    expect(data().now).toBe("2025-01-01T00:00:00Z");
  });

  it("say in a Normal result that their values are fixed, and only when the template used them", () => {
    const notes = (rsp: RunFunctionResponse) => rsp.results.filter((r) => r.severity === Severity.SEVERITY_NORMAL).map((r) => r.message);
    expect(notes(runGoTemplating(inline(text)))).toEqual([
      "the template used random values (seed 1) and the time 2025-01-01T00:00:00Z, fixed so that renders repeat; in a cluster these differ from one reconcile to the next",
    ]);
    expect(notes(runGoTemplating(inline(configMap("plain"))))).toEqual([]);
  });

  it("follow the seed and clock the renderer sets", () => {
    expect(data({ seed: 7 }).rand).not.toBe(data().rand);
    expect(data({ seed: 7 })).toEqual(data({ seed: 7 }));
    expect(data({ now: Date.UTC(2030, 5, 1, 12) }).now).toBe("2030-06-01T12:00:00Z");
  });
});

describe("template options", () => {
  const text = `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: r
data:
  v: "{{ .observed.composite.resource.spec.missing }}"
`;

  it("render a missing key as <no value> by default", () => {
    expect(composed(runGoTemplating(inline(text)), "r").data).toEqual({ v: "<no value>" });
  });

  it("fail on a missing key with missingkey=error, from the input or the default options", () => {
    const want =
      /^cannot execute template: template: manifests:7:18: executing "manifests" at <.observed.composite.resource.spec.missing>: map has no entry for key "missing"$/;
    expect(fatalOf(runGoTemplating(inline(text, { options: ["missingkey=error"] })))).toMatch(want);
    expect(fatalOf(runGoTemplating(inline(text), { defaultOptions: "missingkey=error" }))).toMatch(want);
  });

  it("parse each template text once", () => {
    // a text no other test renders, so the first run cannot find it parsed already
    const once = `${text}{{/* parse each template text once */}}`;
    const parse = vi.spyOn(Template.prototype, "parse");
    try {
      const a = runGoTemplating(inline(once));
      const b = runGoTemplating(inline(once));
      expect(composed(a, "r").data).toEqual({ v: "<no value>" });
      expect(b).toEqual(a);
      expect(parse.mock.calls.filter(([t]) => t === once)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });
});
