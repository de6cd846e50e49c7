import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";
import { layer, TestRegistry } from "../oci/registry-server.js";
import { ptComposition } from "../fixtures/compositions.js";

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

const composition = (volumeField: string) =>
  ptComposition(
    "stores",
    "XStore",
    `          - name: bucket
            base:
              apiVersion: storage.example.org/v1beta1
              kind: Bucket
              spec:
                forProvider:
                  region: eu-north-1
                  ${volumeField}: Block
`,
  );

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

/** A provider whose CRD marks fields required: a composition base may leave them to patches. */
const VOLUME_PROVIDER_YAML = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata: {name: provider-volume}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: volumes.storage.example.org}
spec:
  group: storage.example.org
  names: {kind: Volume, plural: volumes, singular: volume, listKind: VolumeList}
  scope: Cluster
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [forProvider]
              properties:
                forProvider:
                  type: object
                  required: [sizeGb, zone]
                  properties:
                    sizeGb: {type: integer}
                    zone: {type: string}
`;

const volumeComposition = (fields: string) =>
  ptComposition(
    "volumes",
    "XStore",
    `          - name: volume
            base:
              apiVersion: storage.example.org/v1beta1
              kind: Volume
              spec:
                forProvider:
${fields}            patches:
              - {fromFieldPath: spec.size, toFieldPath: spec.forProvider.sizeGb}
`,
  );

const metaConfig = (name: string, deps: string[]) =>
  `apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: ${name}}\nspec:\n  dependsOn:\n${deps.map((d) => `    - ${d}\n`).join("")}`;

type Finding = { rule: string; severity: string; file?: string; line?: number; message: string };

const CHAIN = 8;
const MANY = 102;

describe("the schemas of the packages a repository depends on", () => {
  const registry = new TestRegistry();
  let cache = "";
  const saved = { offline: process.env.COMPOSITION_CI_OFFLINE };

  beforeAll(async () => {
    await registry.start();
    const provider = await layer([{ name: "package.yaml", content: PROVIDER_YAML }]);
    const runtime = await layer([{ name: "provider", content: "binary" }]);
    const providerImage = {
      layers: [
        { bytes: runtime, compression: "gzip" as const },
        { bytes: provider, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } },
      ],
    };
    for (const tag of ["v0.9.0", "v1.1.0", "v1.2.0", "v2.0.0"])
      registry.push("acme/provider-storage", tag, { "linux/amd64": providerImage, "linux/arm64": providerImage });
    // A package of one layer holding its package.yaml, tagged v1.0.0 (single-platform manifest).
    const single = async (repository: string, text: string) => {
      const l = await layer([{ name: "package.yaml", content: text }]);
      registry.push(
        repository,
        "v1.0.0",
        { "linux/amd64": { layers: [{ bytes: l, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } }] } },
        { single: true },
      );
    };
    await single("acme/configuration-storage", configYaml(registry.host));
    await single("acme/provider-volume", VOLUME_PROVIDER_YAML);
    // A chain of configurations longer than the depth limit (5), the last one naming the provider.
    for (let i = 0; i < CHAIN; i++) {
      const next = i + 1 < CHAIN ? `configuration: ${registry.host}/acme/configuration-chain-${i + 1}` : `provider: ${registry.host}/acme/provider-storage`;
      await single(`acme/configuration-chain-${i}`, metaConfig(`chain-${i}`, [`{${next}, version: ${i + 1 < CHAIN ? "v1.0.0" : '">=v1.0.0, <v2.0.0"'}}`]));
    }
    // A configuration that depends on itself (and on the provider).
    await single(
      "acme/configuration-loop",
      metaConfig("loop", [
        `{configuration: ${registry.host}/acme/configuration-loop, version: v1.0.0}`,
        `{provider: ${registry.host}/acme/provider-storage, version: v1.2.0}`,
      ]),
    );
    // A configuration with more dependencies than the count limit (100 packages).
    const empty = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: empty}\n";
    for (let i = 0; i < MANY; i++) await single(`acme/provider-many-${i}`, empty);
    await single(
      "acme/configuration-many",
      metaConfig(
        "many",
        Array.from({ length: MANY }, (_, i) => `{provider: ${registry.host}/acme/provider-many-${i}, version: v1.0.0}`),
      ),
    );
  });
  afterAll(() => registry.stop());
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-pkg-schemas-"));
    process.env.COMPOSITION_CI_OFFLINE = "0";
  });
  afterEach(() => {
    process.env.COMPOSITION_CI_OFFLINE = saved.offline;
  });

  /** The store repository (XRD, Composition, a Bucket) trusting the test registry; `files` add or replace files. */
  const storeRepo = (files: Record<string, string> = {}) =>
    tempRepo({
      ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/acme/*"]\n`,
      "xrd.yaml": XRD,
      "composition.yaml": composition("volumeMod"),
      "bucket.yaml": BUCKET,
      ...files,
    });
  /** It depends on the configuration package, which depends on the provider with the Bucket's CRD. */
  const repo = (volumeField = "volumeMode") =>
    storeRepo({
      "crossplane.yaml": `apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: app}\nspec:\n  dependsOn:\n    - configuration: ${registry.host}/acme/configuration-storage\n      version: v1.0.0\n`,
      "composition.yaml": composition(volumeField),
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
    // The kinds the package would have defined point to it.
    const noSchema = offline.findings.filter((f) => f.rule === "schema/missing");
    expect(noSchema.length).toBeGreaterThan(0);
    for (const f of noSchema)
      expect(f.message).toContain("or it comes from a package the repository depends on, which could not be fetched (package/unavailable)");
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
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join("\n");
    for (const [name, text] of [
      ["bomb", `apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: bomb}\nspec:\n  data:\n${bomb.replace(/^/gm, "    ")}\n`],
      ["dup", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: dup}\nmetadata: {name: again}\n"],
    ] as const) {
      const l = await layer([{ name: "package.yaml", content: text }]);
      registry.push(
        `acme/provider-${name}`,
        "v1.0.0",
        { "linux/amd64": { layers: [{ bytes: l, compression: "gzip" as const, annotations: { "io.crossplane.xpkg": "base" } }] } },
        { single: true },
      );
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

  const dependsOnRepo = (crossplaneYaml: string) => storeRepo({ "crossplane.yaml": crossplaneYaml });
  const errorsOf = (findings: Finding[]) =>
    findings
      .filter((f) => f.severity === "error")
      .map((f) => `${f.rule} ${f.file}:${f.line}`)
      .sort();

  it("an upbound.yaml Project's dependsOn brings the provider's CRDs, as crossplane.yaml does", async () => {
    const project = `apiVersion: meta.dev.upbound.io/v1alpha1\nkind: Project\nmetadata: {name: app}\nspec:\n  repository: xpkg.upbound.io/acme/app\n  dependsOn:\n    - provider: ${registry.host}/acme/provider-storage\n      version: ">=v1.0.0, <v2.0.0"\n`;
    const without = await validate(storeRepo());
    expect(without.findings.filter((f) => f.rule === "schema/missing").map((f) => f.file)).toEqual(["bucket.yaml"]);
    const dir = storeRepo({ "upbound.yaml": project });
    const { findings, packages } = await validate(dir);
    expect(findings.filter((f) => f.rule === "schema/missing")).toEqual([]);
    expect(packages?.map((p) => [p.reference, p.crds])).toEqual([[`${registry.host}/acme/provider-storage:v1.2.0`, 2]]);
    expect(errorsOf(findings)).toEqual(["schema/unknown-field bucket.yaml:4", "schema/unknown-field composition.yaml:21"]);
    expect(findings.find((f) => f.file === "composition.yaml" && f.rule === "schema/unknown-field")!.message).toContain(
      "composed Bucket base: unknown field `spec.forProvider.volumeMod`",
    );
  });

  it("the config's packages: list brings a package's CRDs with no crossplane.yaml, and is trusted by being listed", async () => {
    const dir = storeRepo({ ".composition-ci.yaml": `packages:\n  - ${registry.host}/acme/provider-storage:v1.1.0\n` });
    const { findings, packages } = await validate(dir);
    expect(packages?.map((p) => [p.reference, p.crds, p.via ?? ""])).toEqual([[`${registry.host}/acme/provider-storage:v1.1.0`, 2, ""]]);
    expect(findings.filter((f) => f.rule === "schema/missing" || f.rule.startsWith("package/"))).toEqual([]);
    expect(errorsOf(findings)).toEqual(["schema/unknown-field bucket.yaml:4", "schema/unknown-field composition.yaml:21"]);
  });

  it("a package of packages: that cannot be had is a warning naming the config", async () => {
    const dir = tempRepo({ ".composition-ci.yaml": `packages:\n  - ${registry.host}/acme/provider-absent:v1.0.0\n`, "bucket.yaml": BUCKET });
    const { findings } = await validate(dir);
    const missing = findings.filter((f) => f.rule === "package/unavailable");
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ severity: "warning" });
    expect(missing[0]!.message).toContain(`the schemas of ${registry.host}/acme/provider-absent:v1.0.0 could not be fetched`);
    expect(missing[0]!.message).toContain("(packages: in the config)");
    expect(findings.some((f) => f.rule === "schema/missing" && f.file === "bucket.yaml")).toBe(true);
  });

  it("configurations are followed to a depth of 5: a longer chain stops there, the provider past it is not fetched", async () => {
    const dir = dependsOnRepo(metaConfig("app", [`{configuration: ${registry.host}/acme/configuration-chain-0, version: v1.0.0}`]));
    const started = Date.now();
    const { findings, packages } = await validate(dir);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(packages?.map((p) => p.reference.replace(`${registry.host}/acme/`, ""))).toEqual([0, 1, 2, 3, 4, 5].map((i) => `configuration-chain-${i}:v1.0.0`));
    expect(packages![5]!.via).toBe(`${registry.host}/acme/configuration-chain-4:v1.0.0`);
    expect(registry.requests.some((q) => q.url.includes("configuration-chain-6"))).toBe(false);
    // The provider is past the limit: its kinds are checked without schemas, and a warning says why.
    expect(findings.filter((f) => f.rule === "schema/missing").map((f) => f.file)).toEqual(["bucket.yaml"]);
    const cut = findings.filter((f) => f.rule === "package/unavailable");
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ severity: "warning", file: "crossplane.yaml" });
    expect(cut[0]!.message).toContain(
      `${registry.host}/acme/configuration-chain-5:v1.0.0 is 6 configurations deep; its 1 dependency is not followed (the limit is 5)`,
    );
  });

  it("a configuration that depends on itself is fetched once, its other dependencies followed", async () => {
    const dir = dependsOnRepo(metaConfig("app", [`{configuration: ${registry.host}/acme/configuration-loop, version: v1.0.0}`]));
    const { findings, packages } = await validate(dir);
    expect(packages?.map((p) => [p.reference.replace(`${registry.host}/acme/`, ""), p.crds])).toEqual([
      ["configuration-loop:v1.0.0", 0],
      ["provider-storage:v1.2.0", 2],
    ]);
    expect(findings.filter((f) => f.rule === "schema/missing" || f.rule.startsWith("package/"))).toEqual([]);
    expect(errorsOf(findings)).toEqual(["schema/unknown-field bucket.yaml:4", "schema/unknown-field composition.yaml:21"]);
  });

  it("more than 100 packages: one warning at the dependency that brought them, naming the first not fetched", async () => {
    const dir = dependsOnRepo(metaConfig("app", [`{configuration: ${registry.host}/acme/configuration-many, version: v1.0.0}`]));
    const { findings, packages, code } = await validate(dir);
    expect(code).toBeLessThan(2);
    expect(packages).toHaveLength(100);
    expect(packages![0]!.reference).toBe(`${registry.host}/acme/configuration-many:v1.0.0`);
    const limit = findings.filter((f) => f.rule === "package/unavailable");
    expect(limit).toHaveLength(1);
    expect(limit[0]).toMatchObject({ severity: "warning", file: "crossplane.yaml", line: 6 });
    expect(limit[0]!.message).toBe(
      `more than 100 packages: ${registry.host}/acme/provider-many-99 and the rest are not fetched; their kinds are checked without schemas`,
    );
    expect(registry.requests.some((q) => q.url.includes("provider-many-100/"))).toBe(false);
  });

  it("a composition base may leave out what its CRD requires (patches fill it), but an unknown field in it is an error", async () => {
    const dir = tempRepo({
      ".composition-ci.yaml": `packages:\n  - ${registry.host}/acme/provider-volume:v1.0.0\n`,
      "xrd.yaml": XRD,
      "composition.yaml": volumeComposition("                  zone: eu-north-1\n                  sizeGib: 5\n"),
      "volume.yaml": "apiVersion: storage.example.org/v1beta1\nkind: Volume\nmetadata: {name: loose}\nspec: {forProvider: {zone: eu-north-1}}\n",
    });
    const { findings, packages } = await validate(dir);
    expect(packages?.map((p) => p.crds)).toEqual([1]);
    const onComposition = findings.filter((f) => f.file === "composition.yaml" && f.rule.startsWith("schema/"));
    expect(onComposition.map((f) => `${f.rule}:${f.line}`)).toEqual(["schema/unknown-field:21"]);
    expect(onComposition[0]!.message).toContain("composed Volume base: unknown field `spec.forProvider.sizeGib`");
    // The same CRD's required fields do count for a whole object.
    const loose = findings.filter((f) => f.file === "volume.yaml");
    expect(loose.map((f) => `${f.severity} ${f.rule}`)).toEqual(["error schema/required"]);
    expect(loose[0]!.message).toContain("sizeGb");
    const clean = await validate(
      tempRepo({
        ".composition-ci.yaml": `packages:\n  - ${registry.host}/acme/provider-volume:v1.0.0\n`,
        "xrd.yaml": XRD,
        "composition.yaml": volumeComposition("                  zone: eu-north-1\n"),
      }),
    );
    expect(clean.findings.filter((f) => f.rule.startsWith("schema/"))).toEqual([]);
  });
});
