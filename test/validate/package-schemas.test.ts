import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";
import { layer, TestRegistry } from "../oci/registry-server.js";

/**
 * Package schemas: a provider package (package.yaml with two CRDs in the layer annotated
 * io.crossplane.xpkg: base) and a configuration package that depends on it with a version
 * constraint, served by a registry on 127.0.0.1; a repository whose crossplane.yaml depends on
 * the configuration gets the provider's schemas.
 */

const crd = (kind: string, plural: string, props: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.storage.example.org}
spec:
  group: storage.example.org
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List}
  scope: Cluster
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              properties:
                forProvider:
                  type: object
                  properties:
${props}
`;

const PROVIDER_YAML = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata: {name: provider-storage}
---
${crd("Bucket", "buckets", "                    region: {type: string}\n                    volumeMode: {type: string, enum: [Block, Filesystem]}")}---
${crd("Disk", "disks", "                    sizeGb: {type: integer}")}`;

const configYaml = (host: string) => `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata: {name: configuration-storage}
spec:
  dependsOn:
    - provider: ${host}/acme/provider-storage
      version: ">=v1.0.0, <v2.0.0"
`;

const composition = (volumeField: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: stores}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XStore}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: bucket
            base:
              apiVersion: storage.example.org/v1beta1
              kind: Bucket
              spec:
                forProvider:
                  region: eu-north-1
                  ${volumeField}: Block
`;

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xstores.example.org}
spec:
  group: example.org
  names: {kind: XStore, plural: xstores}
  versions:
    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}
`;

const BUCKET = "apiVersion: storage.example.org/v1beta1\nkind: Bucket\nmetadata: {name: loose}\nspec: {forProvider: {region: eu-north-1, sizeGb: 5}}\n";

type Finding = { rule: string; severity: string; file?: string; line?: number; message: string };

describe("the schemas of the packages a repository depends on", () => {
  const registry = new TestRegistry();
  let cache = "";
  const saved = { offline: process.env.COMPOSITION_CI_OFFLINE };

  beforeAll(async () => {
    await registry.start();
    const provider = await layer([{ name: "package.yaml", content: PROVIDER_YAML }]);
    const runtime = await layer([{ name: "provider", content: "binary" }]);
    const providerImage = { layers: [{ bytes: runtime, compression: "gzip" as const }, { bytes: provider, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } }] };
    for (const tag of ["v0.9.0", "v1.1.0", "v1.2.0", "v2.0.0"]) registry.push("acme/provider-storage", tag, { "linux/amd64": providerImage, "linux/arm64": providerImage });
    const config = await layer([{ name: "package.yaml", content: configYaml(registry.host) }]);
    registry.push("acme/configuration-storage", "v1.0.0", { "linux/amd64": { layers: [{ bytes: config, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } }] } }, { single: true });
  });
  afterAll(() => registry.stop());
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-pkg-schemas-"));
    process.env.COMPOSITION_CI_OFFLINE = "0";
  });
  afterEach(() => {
    process.env.COMPOSITION_CI_OFFLINE = saved.offline;
  });

  const repo = (volumeField = "volumeMode") =>
    tempRepo({
      ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/acme/*"]\n`,
      "crossplane.yaml": `apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: app}\nspec:\n  dependsOn:\n    - configuration: ${registry.host}/acme/configuration-storage\n      version: v1.0.0\n`,
      "xrd.yaml": XRD,
      "composition.yaml": composition(volumeField),
      "bucket.yaml": BUCKET,
    });

  async function validate(dir: string, ...flags: string[]) {
    const run = await runCli(["validate", ".", "--format", "json", "--cache-dir", cache, ...flags], dir);
    const report = JSON.parse(run.stdout) as { findings: Finding[]; packages?: { reference: string; digest: string; crds: number; via?: string }[] };
    return { ...report, code: run.code };
  }

  it("follows the configuration to the provider (the highest tag its constraint allows) and validates with its CRDs", async () => {
    const dir = repo();
    const { findings, packages } = await validate(dir);
    expect(findings.filter((f) => f.rule === "schema/missing")).toEqual([]);
    expect(packages?.map((p) => [p.reference, p.crds, p.via ?? ""])).toEqual([
      [`${registry.host}/acme/configuration-storage:v1.0.0`, 0, ""],
      [`${registry.host}/acme/provider-storage:v1.2.0`, 2, `${registry.host}/acme/configuration-storage:v1.0.0`],
    ]);
    expect(packages!.every((p) => /^sha256:[a-f0-9]{64}$/.test(p.digest))).toBe(true);
    // The loose Bucket is checked against the provider's schema: sizeGb is not a Bucket field.
    expect(findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}:${f.line}`)).toEqual(["schema/unknown-field bucket.yaml:4"]);
    // Only the base layer was fetched, never the provider's runtime.
    const runtimeDigest = (await import("./../oci/registry-server.js")).digestOf(await layer([{ name: "provider", content: "binary" }]));
    expect(registry.requests.some((q) => q.url.includes(runtimeDigest))).toBe(false);
  });

  it("a typo in a composition's base is an error at the base's own line", async () => {
    const { findings } = await validate(repo("volumeMod"));
    const typo = findings.find((f) => f.rule === "schema/unknown-field" && f.file === "composition.yaml");
    expect(typo).toMatchObject({ severity: "error", line: 21 });
    expect(typo!.message).toContain("composed Bucket base: unknown field `spec.forProvider.volumeMod`");
  });

  it("a second run makes no request; --offline with an empty cache names the missing package", async () => {
    const dir = repo();
    await validate(dir);
    const before = registry.requests.length;
    const again = await validate(dir);
    expect(registry.requests.length).toBe(before);
    expect(again.findings.filter((f) => f.rule === "schema/missing")).toEqual([]);
    const offline = await validate(dir, "--offline", "--cache-dir", fs.mkdtempSync(path.join(os.tmpdir(), "cci-empty-")));
    expect(registry.requests.length).toBe(before);
    const missing = offline.findings.filter((f) => f.rule === "package/unavailable");
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ severity: "warning", file: "crossplane.yaml", line: 6 });
    expect(missing[0]!.message).toContain(`${registry.host}/acme/configuration-storage`);
    expect(offline.findings.some((f) => f.rule === "schema/missing")).toBe(true);
  });

  it("a package on a registry nobody trusts is not fetched: an info, and no request", async () => {
    const dir = repo();
    fs.rmSync(path.join(dir, ".composition-ci.yaml"));
    const before = registry.requests.length;
    const { findings } = await validate(dir);
    expect(registry.requests.length).toBe(before);
    expect(findings.find((f) => f.rule === "package/untrusted")).toMatchObject({ severity: "info", file: "crossplane.yaml" });
  });

  it("a hostile package.yaml (an alias bomb, a duplicate key) is a warning about the package, never a hang or a crash", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n");
    for (const [name, text] of [["bomb", `apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: bomb}\nspec:\n  data:\n${bomb.replace(/^/gm, "    ")}\n`], ["dup", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: dup}\nmetadata: {name: again}\n"]] as const) {
      const l = await layer([{ name: "package.yaml", content: text }]);
      registry.push(`acme/provider-${name}`, "v1.0.0", { "linux/amd64": { layers: [{ bytes: l, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } }] } }, { single: true });
    }
    const dir = tempRepo({
      ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/acme/*"]\n`,
      "providers.yaml": `apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: bomb}\nspec: {package: ${registry.host}/acme/provider-bomb:v1.0.0}\n---\napiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: dup}\nspec: {package: ${registry.host}/acme/provider-dup:v1.0.0}\n`,
    });
    const started = Date.now();
    const { findings, code } = await validate(dir);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(code).toBeLessThan(2);
    const unavailable = findings.filter((f) => f.rule === "package/unavailable").map((f) => f.message);
    expect(unavailable).toHaveLength(2);
    expect(unavailable.every((m) => m.includes("package.yaml cannot be read"))).toBe(true);
  });
});
