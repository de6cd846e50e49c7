import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

type Finding = { rule: string; severity: string; file: string; line: number; message: string };

const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions:
    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}
`;

const composition = (steps: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
${steps}`;

const ptStep = (fn: string) => `    - step: pt
      functionRef: {name: ${fn}}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - {name: cm, base: {apiVersion: v1, kind: ConfigMap, data: {a: b}}}
`;

const xr = (name: string) => `apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: ${name}, namespace: default}\nspec: {}\n`;

async function check(files: Record<string, string>): Promise<{ findings: Finding[]; stderr: string; code: number }> {
  const { stdout, stderr, code } = await runCli(["check", ".", "--format", "json", "--no-cache"], tempRepo(files));
  return { findings: (JSON.parse(stdout) as { findings: Finding[] }).findings, stderr, code };
}

describe("functions named like a built-in, with no Function object", () => {
  for (const name of ["function-patch-and-transform", "crossplane-contrib-function-patch-and-transform"]) {
    it(`${name} runs as the built-in, with an info saying so`, async () => {
      const { findings, stderr, code } = await check({ "xrd.yaml": xrd, "composition.yaml": composition(ptStep(name)), "xr.yaml": xr("a") });
      expect(code).toBe(0);
      expect(stderr).toContain("rendered 1 of 1 sources");
      const info = findings.filter((f) => f.rule === "composition/function-missing");
      expect(info.map((f) => f.severity)).toEqual(["info"]);
      expect(info[0]!.message).toContain("composition-ci runs its built-in function-patch-and-transform");
    });
  }
});

describe("sources composition-ci cannot render are not the repository's fault", () => {
  const upbound = {
    "upbound.yaml":
      "apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata: {name: app}\nspec:\n  repository: xpkg.upbound.io/acme/configuration-app\n",
    "apis/xrd.yaml": xrd,
    "apis/composition.yaml": composition(
      `    - step: app\n      functionRef: {name: acme-configuration-appmain}\n    - step: ready\n      functionRef: {name: crossplane-contrib-function-auto-ready}\n`,
    ),
    "examples/one.yaml": xr("one"),
    "examples/two.yaml": xr("two"),
    "functions/main/go.mod": "module example.org/main\n",
    "functions/main/fn.go": "package main\n",
  };

  it("a function embedded in an Upbound project: one warning with the count and the fix, no error", async () => {
    const { findings, stderr, code } = await check(upbound);
    expect(code).toBe(0);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    const notRendered = findings.filter((f) => f.rule === "render/not-rendered");
    expect(notRendered).toHaveLength(1);
    expect(notRendered[0]).toMatchObject({ severity: "warning", file: "apis/composition.yaml", line: 9 });
    expect(notRendered[0]!.message).toBe(
      "2 sources (XApp one, XApp two) were not rendered: function acme-configuration-appmain (step app) is a Go function of the project upbound.yaml, built from functions/main/: composition-ci compiles it with the runner's go only when it may run repository code. " +
        "To render them: run with --allow-exec (Action input allow-exec: true) if you trust the repository and go is on PATH, or build and serve it yourself (`crossplane project build`, `up project build`), annotate a Function object of that name render.crossplane.io/runtime: Development and give its address with --development-target",
    );
    expect(stderr).toContain(
      "rendered 0 of 2 sources (XRs, claims, Operations, ApplicationConfigurations, kpt packages, Applications); not rendered: 2 (acme-configuration-appmain: 2)",
    );
  });

  it("render of one XR says the same of the project's function as check does", async () => {
    const { stderr, code } = await runCli(["render", "examples/one.yaml", "apis/composition.yaml"], tempRepo(upbound));
    expect(code).toBe(1);
    expect(stderr).toContain(
      'step "app": function acme-configuration-appmain is a Go function of the project upbound.yaml, built from functions/main/: composition-ci compiles it',
    );
  });

  it("a project function whose folder is not in the repository says so", async () => {
    const withoutFolder = Object.fromEntries(Object.entries(upbound).filter(([file]) => !file.startsWith("functions/")));
    const { findings } = await check(withoutFolder);
    expect(findings.find((f) => f.rule === "render/not-rendered")?.message).toContain(
      "is a function of the project upbound.yaml, built from functions/main/, which is not in the repository. To render them: add the function's source folder functions/main/",
    );
  });

  it("a trusted package that is not in the cache, offline, is one warning on its Function object", async () => {
    const { findings, code } = await check({
      "xrd.yaml": xrd,
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kcl}\nspec: {package: xpkg.upbound.io/crossplane-contrib/function-status-transformer:v0.4.0}\n",
      "composition.yaml": composition("    - step: kcl\n      functionRef: {name: function-kcl}\n"),
      "a.yaml": xr("a"),
      "b.yaml": xr("b"),
      "c.yaml": xr("c"),
    });
    expect(code).toBe(0);
    const notRendered = findings.filter((f) => f.rule === "render/not-rendered");
    expect(notRendered.map((f) => `${f.severity} ${f.file}:${f.line}`)).toEqual(["warning functions.yaml:4"]);
    expect(notRendered[0]!.message).toMatch(
      /^3 sources \(XApp a, XApp b, XApp c\) were not rendered: function function-kcl \(step [a-z-]+\) is not in the package cache: xpkg.upbound.io\/crossplane-contrib\/function-status-transformer:v0.4.0 is not in the cache \(--offline\)/,
    );
    expect(notRendered[0]!.message).toContain("To render them: run `composition-ci functions pull`");
    expect(notRendered[0]!.message.split("functions pull")).toHaveLength(2);
  });

  it("every step that cannot run is named at once: an untrusted package first, a trusted one not in the cache after it", async () => {
    const { findings } = await check({
      "xrd.yaml": xrd,
      "functions.yaml": [
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: untrusted}\nspec: {package: registry.example.org/acme/function-anything:v1.0.0}\n",
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: status}\nspec: {package: xpkg.upbound.io/crossplane-contrib/function-status-transformer:v0.4.0}\n",
      ].join("---\n"),
      "composition.yaml": composition("    - step: first\n      functionRef: {name: untrusted}\n    - step: second\n      functionRef: {name: status}\n"),
      "a.yaml": xr("a"),
    });
    const notRendered = findings.filter((f) => f.rule === "render/not-rendered");
    expect(notRendered.map((f) => `${f.file}:${f.line}`)).toEqual(["functions.yaml:4", "functions.yaml:9"]);
    expect(notRendered[0]!.message).toContain("not a trusted package");
    expect(notRendered[1]!.message).toContain("is not in the package cache");
  });

  it("an untrusted package without --allow-exec is a warning that says how to trust it", async () => {
    const { findings, code } = await check({
      "xrd.yaml": xrd,
      "functions.yaml": "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-acme}\nspec: {package: ghcr.io/acme/function-acme:v1}\n",
      "composition.yaml": composition("    - step: acme\n      functionRef: {name: function-acme}\n"),
      "a.yaml": xr("a"),
    });
    expect(code).toBe(0);
    const notRendered = findings.filter((f) => f.rule === "render/not-rendered");
    expect(notRendered[0]!.message).toContain(
      "function function-acme (step acme) would pull and run ghcr.io/acme/function-acme:v1, which is not a trusted package. To render it: add its repository to functions.trusted",
    );
  });

  it("a function that runs and fails stays an error", async () => {
    const { findings } = await check({
      "xrd.yaml": xrd,
      "composition.yaml": composition(
        ptStep("function-patch-and-transform").replace(
          "kind: Resources",
          "kind: Resources\n        patchSets: [{name: x, patches: [{type: PatchSet, patchSetName: x}]}]",
        ),
      ),
      "a.yaml": xr("a"),
    });
    expect(findings.filter((f) => f.rule.startsWith("render/")).map((f) => `${f.severity} ${f.rule}`)).toContain("error render/function-fatal");
  });
});

describe("render --all reads the tree as every command does", () => {
  it("honours the config's ignore globs", async () => {
    const dir = tempRepo({
      ".composition-ci.yaml": "ignore: ['legacy/**']\n",
      "xrd.yaml": xrd,
      "composition.yaml": composition(ptStep("function-patch-and-transform")),
      "xr.yaml": xr("kept"),
      "legacy/xr.yaml": xr("ignored"),
    });
    const { stdout, stderr } = await runCli(["render", "--all", "."], dir);
    expect(stderr).toContain("rendered 1 of 1 sources");
    expect(stdout).toContain("name: kept");
    expect(stdout).not.toContain("ignored");
  });
});

describe("the not-rendered warning names its sources", () => {
  it("two sources of one name are told apart by their files", async () => {
    const { notRenderedFindings } = await import("../../src/render/not-rendered.js");
    const { Manifest, SourceFile } = await import("../../src/manifest/manifest.js");
    const fn = new Manifest(
      { apiVersion: "pkg.crossplane.io/v1", kind: "Function", metadata: { name: "function-kcl" } },
      new SourceFile("functions.yaml", "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kcl}\n"),
      0,
    );
    const source = (file: string, name: string) => ({
      source: new Manifest({ apiVersion: "example.org/v1", kind: "SQL", metadata: { name } }, new SourceFile(file, ""), 0),
      via: "Composition sql",
      documents: [],
      objects: [],
      keys: [],
      ok: false,
      findings: [],
      notRendered: [
        { what: "function-kcl", step: "main", reason: "is not trusted", fix: "trust it", severity: "warning" as const, at: { manifest: fn, pointer: "" } },
      ],
    });
    const [finding] = notRenderedFindings([
      source("examples/aws.yaml", "my-db"),
      source("examples/aws-error.yaml", "my-db"),
      source("examples/gcp.yaml", "other"),
    ]);
    expect(finding!.message).toBe(
      "3 sources (SQL my-db (examples/aws.yaml), SQL my-db (examples/aws-error.yaml), SQL other) were not rendered: function function-kcl (step main) is not trusted. To render them: trust it",
    );
  });
});
