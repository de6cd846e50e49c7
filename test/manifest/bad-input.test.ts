import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadFile } from "../../src/manifest/load.js";
import { readManifests } from "../../src/manifest/read.js";
import { parseConfig } from "../../src/config/config.js";
import { withinDistance } from "../../src/manifest/object-shape.js";
import { runCli, tempRepo } from "../helpers.js";

/**
 * Issue 39.6: bad input is a finding or a usage error that names the file and line; never silence,
 * never an internal error with a stack.
 */

const load = (text: string, file = "f.yaml") => loadFile(file, Buffer.from(text));
const said = (text: string, file?: string) => load(text, file).findings.map((f) => `${f.line}:${f.column} ${f.severity} ${f.rule} ${f.message}`);

describe("documents that mean to be objects but are read as nothing", () => {
  it("metadata with a kind and no apiVersion, or an apiVersion and no kind: schema/required at the document", () => {
    const noApiVersion = said("# a ConfigMap\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    expect(noApiVersion).toHaveLength(1);
    expect(noApiVersion[0]).toMatch(/^2:1 error schema\/required `apiVersion` is missing: a ConfigMap with metadata is a Kubernetes object/);
    const noKind = said("apiVersion: v1\nmetadata: {name: c}\ndata: {a: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n");
    expect(noKind).toEqual([expect.stringMatching(/^1:1 error schema\/required `kind` is missing: an object with `apiVersion: v1` and metadata/)]);
    expect(load("apiVersion: v1\nmetadata: {name: c}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n").manifests.map((m) => m.name)).toEqual([
      "d",
    ]);
  });

  it("files that are no Kubernetes objects stay silent: values.yaml, a workflow, a Helm Chart.yaml, a kustomization without apiVersion", () => {
    for (const [file, text] of [
      ["values.yaml", "image: {repository: nginx}\nkind: web\nreplicas: 2\n"],
      [".github/workflows/ci.yaml", "name: ci\non: [push]\njobs: {build: {runs-on: ubuntu-latest, steps: [{run: make}]}}\n"],
      ["Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\n"],
      ["kustomization.yaml", "kind: Kustomization\nmetadata: {name: k}\nresources: [a.yaml]\n"],
      ["docs.yaml", "metadata: {name: x}\nspec: {}\n"],
      ["ui5.yaml", "specVersion: '2.1'\nkind: extension\ntype: project-shim\nmetadata: {name: thirdparty}\n"],
      ["app.yaml", "apiVersion: 2.0\nmetadata: {name: x}\n"],
    ]) {
      expect(said(text!, file), file).toEqual([]);
    }
  });

  it("a misspelt API group of Kubernetes or Crossplane: schema/unknown-group at apiVersion, with what was meant", () => {
    const composition = said("apiVersion: apiextension.crossplane.io/v1\nkind: Composition\nmetadata: {name: x}\nspec: {}\n");
    expect(composition).toEqual([
      "1:1 error schema/unknown-group API group `apiextension.crossplane.io` is not one Kubernetes or Crossplane serves: did you mean `apiextensions.crossplane.io/v1`? The API server refuses the object, and nothing in it is checked against a schema",
    ]);
    expect(said("apiVersion: app/v1\nkind: Deployment\nmetadata: {name: d}\n")[0]).toContain("did you mean `apps/v1`?");
    expect(said("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: rbac.authorisation.k8s.io/v1\n    kind: Role\n    metadata: {name: r}\n")[0]).toMatch(
      /^4:\d+ .*did you mean `rbac\.authorization\.k8s\.io\/v1`/,
    );
    // Groups that are someone's own, however close to another, are not guesses to make.
    for (const apiVersion of [
      "s3.aws.upbound.io/v1beta1",
      "ec2.aws.crossplane.io/v1alpha1",
      "cluster.x-k8s.io/v1beta1",
      "example.org/v1",
      "apps/v1",
      "v1",
      "nop.crossplane.io/v1alpha1",
      "policy/v1",
      "kustomize.toolkit.fluxcd.io/v1",
    ]) {
      expect(said(`apiVersion: ${apiVersion}\nkind: Thing\nmetadata: {name: t}\n`), apiVersion).toEqual([]);
    }
  });

  it("distance: edits and adjacent swaps, bounded", () => {
    expect(withinDistance("apiextension.crossplane.io", "apiextensions.crossplane.io", 1)).toBe(true);
    expect(withinDistance("pkg.crossplnae.io", "pkg.crossplane.io", 1)).toBe(true);
    expect(withinDistance("ops.crossplane.io", "pkg.crossplane.io", 2)).toBe(false);
  });
});

describe("YAML errors are said at their cause", () => {
  it("an unclosed quote: at the line that opens it, not where the text ends", () => {
    for (const q of ['"', "'"]) {
      const out = said(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${q}hello\n  b: c\n  d: e\n  f: g\n`);
      expect(out).toHaveLength(1);
      expect(out[0]).toMatch(new RegExp(`^6:6 error yaml/syntax Missing closing \\${q}quote: the string quoted here is never closed`));
    }
    // An escaped quote does not close it; a closed string before it is not the one.
    expect(said('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  q: "ok \\" fine"\n  a: "hello \\"\n  b: c\n')[0]).toMatch(/^6:6 /);
  });

  it("an alias without its anchor: at the alias, in its own document", () => {
    expect(said("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n  c: *nope\n")[0]).toMatch(
      /^7:6 error yaml\/syntax Unresolved alias .*: nope/,
    );
    // The anchor of another document does not count, and is not where it points.
    expect(
      said(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: &nope 1, y: *nope}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  c: *nope\n",
      )[0],
    ).toMatch(/^11:6 /);
  });
});

describe("an unreadable directory", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is file/unreadable, not a directory of manifests read as none", () => {
    const dir = tempRepo({
      "ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n",
      "locked/secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n",
    });
    const locked = path.join(dir, "locked");
    // As root, permissions do not stop a read: the directory answers as it would to anyone else.
    const denied = () => Object.assign(new Error(`EACCES: permission denied, scandir '${locked}'`), { code: "EACCES" });
    const { readdirSync, openSync } = fs;
    vi.spyOn(fs, "readdirSync").mockImplementation(((p: fs.PathLike, o?: unknown) => {
      if (String(p) === locked) throw denied();
      return (readdirSync as (p: fs.PathLike, o?: unknown) => unknown)(p, o);
    }) as typeof fs.readdirSync);
    vi.spyOn(fs, "openSync").mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p) === locked) throw denied();
      return (openSync as (p: fs.PathLike, ...r: unknown[]) => number)(p, ...rest);
    }) as typeof fs.openSync);
    const result = readManifests(["."], dir);
    expect(result.manifests.map((m) => m.name)).toEqual(["ok"]);
    expect(result.findings.map((f) => `${f.file} ${f.severity} ${f.rule} ${f.message}`)).toEqual([
      "locked/ error file/unreadable file could not be read (EACCES)",
    ]);
  });

  it.skipIf(process.getuid?.() === 0 || process.platform === "win32")("really unreadable (chmod 000)", () => {
    const dir = tempRepo({ "locked/secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n" });
    fs.chmodSync(path.join(dir, "locked"), 0);
    try {
      expect(readManifests(["."], dir).findings.map((f) => `${f.file} ${f.rule}`)).toEqual(["locked/ file/unreadable"]);
    } finally {
      fs.chmodSync(path.join(dir, "locked"), 0o755);
    }
  });
});

describe(".composition-ci.yaml that is hostile or broken: a usage error at its line", () => {
  const bomb =
    "rules: {}\nsecretFields:\n  - &a [x,x,x,x,x,x,x,x,x,x]\n  - &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  - &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  - &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  - [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";

  it("an alias bomb, an alias without anchor, an unclosed quote, a repeated key", () => {
    const error = (text: string) => {
      try {
        parseConfig(text, ".composition-ci.yaml");
      } catch (err) {
        return `${(err as Error).constructor.name} ${(err as Error).message}`;
      }
      return "no error";
    };
    expect(error(bomb)).toBe("ConfigError .composition-ci.yaml:3: secretFields: expands more than 100 aliases (an anchor/alias bomb?); not read");
    expect(error("rules: {}\nignore:\n  - a\n  - *x\n")).toMatch(/^ConfigError \.composition-ci\.yaml:4: ignore: Unresolved alias .*: x/);
    expect(error("ignore: 'abc\nrules: {}\n")).toMatch(/^ConfigError \.composition-ci\.yaml:1: Missing closing 'quote/);
    expect(error("rules: {a: off}\nignore: []\nrules: {}\n")).toBe('ConfigError .composition-ci.yaml:3: the key "rules" is repeated (map keys must be unique)');
    expect(error("secretFields: [&s x, *s]\n")).toBe("no error");
  });

  it("the CLI: exit 2 with the file and line, no stack, no internal error", async () => {
    const dir = tempRepo({ ".composition-ci.yaml": bomb, "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" });
    const r = await runCli(["check", ".", "--no-cache", "--offline"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(".composition-ci.yaml:3: secretFields: expands more than 100 aliases");
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("64k keys parse in linear time (uniqueness checked with a set, not by the parser)", () => {
    const text = "parameterSchemas:\n" + Array.from({ length: 64_000 }, (_, i) => `  k${i}: a.json`).join("\n") + "\n";
    const started = performance.now();
    expect(Object.keys(parseConfig(text, ".composition-ci.yaml").parameterSchemas)).toHaveLength(64_000);
    expect(performance.now() - started).toBeLessThan(8000);
  });
});
