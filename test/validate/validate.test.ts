import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { emptyConfig, parseConfig, ConfigError } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { expandTemplate } from "../../src/validate/schemas/locations.js";
import { tempRepo, runCli } from "../helpers.js";

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [size, hashAlgorithm]
              properties:
                size: {type: integer, minimum: 1, maximum: 10}
                hashAlgorithm: {type: string, enum: [sha256, sha512], default: sha256}
                port: {x-kubernetes-int-or-string: true}
                note: {type: string, nullable: true}
                other: {type: string}
                created: {type: string, format: date-time}
                replicas: {type: integer, format: int32}
                name: {type: string, pattern: "^[a-z]+$"}
                template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
                free: {type: object, x-kubernetes-preserve-unknown-fields: true}
                ports:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items: {type: object, properties: {name: {type: string}, port: {type: integer}}}
`;

async function validate(files: Record<string, string>, extra: Partial<Parameters<typeof validateRepo>[0]> = {}) {
  const root = tempRepo(files);
  const result = await validateRepo({ root, paths: ["."], config: emptyConfig(), cacheDir: null, ...extra });
  return result.findings;
}

/** Schema findings only: tests of derived schemas leave out the Compositions the semantic rules want. */
async function validateSchemas(files: Record<string, string>) {
  return (await validate(files)).filter((f) => f.rule.startsWith("schema/"));
}

const widget = (spec: string) => `apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n${spec}`;

describe("schema validation", () => {
  it("accepts a valid object, applying defaults before checking required fields", async () => {
    expect(await validate({ "crd.yaml": CRD, "w.yaml": widget("  size: 3\n  port: http\n  note: null\n  other: null\n") })).toEqual([]);
  });

  it("reports unknown fields with a suggestion, at the field's line", async () => {
    const findings = await validate({ "crd.yaml": CRD, "w.yaml": widget("  size: 3\n  sise: 4\n") });
    expect(findings).toMatchObject([{ rule: "schema/unknown-field", file: "w.yaml", line: 7, column: 3, path: "spec.sise", kind: "Widget", name: "w" }]);
    expect(findings[0].message).toBe("unknown field `spec.sise`; did you mean `spec.size`?");
  });

  it("checks types, enums, limits, formats, RE2 patterns and int-or-string", async () => {
    const withBadPattern = CRD.replace(
      'name: {type: string, pattern: "^[a-z]+$"}',
      'name: {type: string, pattern: "^[a-z]+$"}\n                bad: {type: string, pattern: "(?=lookahead)"}',
    );
    const findings = await validate({
      "crd.yaml": withBadPattern,
      "w.yaml": widget('  size: 11\n  hashAlgorithm: md5\n  port: 1.5\n  created: yesterday\n  replicas: 3000000000\n  name: "ABC"\n  bad: anything\n'),
    });
    const rules = findings.filter((f) => f.file === "w.yaml").map((f) => `${f.rule}@${f.line}`);
    expect(rules).toEqual(["schema/limit@6", "schema/enum@7", "schema/type@8", "schema/format@9", "schema/format@10", "schema/pattern@11"]);
    expect(findings.find((f) => f.rule === "schema/invalid-definition")?.message).toContain("not valid RE2");
  });

  it("checks embedded resources and list-map keys", async () => {
    const findings = await validate({
      "crd.yaml": CRD,
      "w.yaml": widget(
        "  size: 2\n  template: {metadata: {name: x}}\n  ports:\n    - {name: a, port: 1}\n    - {name: a, port: 2}\n  free: {anything: [1, 2]}\n",
      ),
    });
    expect(findings.map((f) => f.rule).sort()).toEqual(["schema/duplicate", "schema/required", "schema/required"]);
  });

  it("never changes the manifest it validates", async () => {
    const root = tempRepo({ "crd.yaml": CRD, "w.yaml": widget("  size: 2\n") });
    const result = await validateRepo({ root, paths: ["."], config: emptyConfig(), cacheDir: null });
    const w = result.manifests.find((m) => m.kind === "Widget")!;
    expect(w.object.spec).toEqual({ size: 2 });
  });

  it("reports kinds with no schema per the missing-schema policy", async () => {
    const files = { "x.yaml": "apiVersion: nope.example.org/v1\nkind: Thing\nmetadata: {name: t}\n" };
    expect(await validate(files)).toMatchObject([{ rule: "schema/missing", severity: "warning", line: 2 }]);
    expect(await validate(files, { missingSchemas: "error" })).toMatchObject([{ severity: "error" }]);
    expect(await validate(files, { missingSchemas: "ignore" })).toEqual([]);
  });

  it("keys schemas by group, version and kind: package metadata is not a pkg.crossplane.io object", async () => {
    const meta =
      "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: c}\nspec:\n  dependsOn:\n    - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n      version: '>=v0.2.1'\n";
    expect(await validate({ "crossplane.yaml": meta })).toEqual([]);
    const pkg = meta.replace("meta.pkg.crossplane.io/v1", "pkg.crossplane.io/v1");
    expect((await validate({ "c.yaml": pkg })).map((f) => f.rule)).toContain("schema/unknown-field");
  });

  it("derives XR and claim schemas from v1 XRDs, with Crossplane's own fields", async () => {
    const xrd = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xdbs.example.org}
spec:
  group: example.org
  names: {kind: XDB, plural: xdbs}
  claimNames: {kind: DB, plural: dbs}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: string}}}
`;
    const ok = await validateSchemas({
      "xrd.yaml": xrd,
      "xr.yaml":
        "apiVersion: example.org/v1\nkind: XDB\nmetadata: {name: a}\nspec:\n  size: s\n  compositionRef: {name: c}\n  writeConnectionSecretToRef: {name: s, namespace: n}\n",
      "claim.yaml": "apiVersion: example.org/v1\nkind: DB\nmetadata: {name: a, namespace: n}\nspec:\n  size: s\n  compositeDeletePolicy: Foreground\n",
    });
    expect(ok).toEqual([]);
    const bad = await validateSchemas({
      "xrd.yaml": xrd,
      "claim.yaml": "apiVersion: example.org/v1\nkind: DB\nmetadata: {name: a}\nspec:\n  compositeDeletePolicy: Sometimes\n  crossplane: {}\n",
    });
    expect(bad.map((f) => f.rule).sort()).toEqual(["schema/enum", "schema/unknown-field"]);
  });

  it("puts Crossplane's fields under spec.crossplane for v2 XRDs", async () => {
    const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: apps.example.org}
spec:
  group: example.org
  names: {kind: App, plural: apps}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {image: {type: string}}}}}
`;
    const findings = await validateSchemas({
      "xrd.yaml": xrd,
      "xr.yaml":
        "apiVersion: example.org/v1\nkind: App\nmetadata: {name: a, namespace: n}\nspec:\n  image: i\n  crossplane:\n    compositionRef: {name: c}\n  compositionRef: {name: c}\n",
    });
    expect(findings).toMatchObject([{ rule: "schema/unknown-field", path: "spec.compositionRef" }]);
  });

  it("validates Kubernetes core kinds", async () => {
    const findings = await validate({
      "d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: two\n  selector: {}\n  template: {}\n",
    });
    expect(findings).toMatchObject([{ rule: "schema/type", path: "spec.replicas", line: 5 }]);
  });

  it("reads --crds from outside the scanned paths", async () => {
    const crds = tempRepo({ "crd.yaml": CRD });
    expect(await validate({ "w.yaml": widget("  size: 0\n") }, { crds: [crds] })).toMatchObject([{ rule: "schema/limit", file: "w.yaml" }]);
  });

  it("applies config rule levels and ignore annotations (suppressed findings are counted, not failing)", async () => {
    const files = { "x.yaml": "apiVersion: nope.example.org/v1\nkind: Thing\nmetadata:\n  name: t\n  annotations: {composition-ci.dev/ignore: 'schema/*'}\n" };
    expect(await validate(files)).toMatchObject([{ rule: "schema/missing", suppressed: true }]);
    const config = { ...emptyConfig(), rules: { "schema/missing": "off" as const } };
    expect(await validate({ "y.yaml": "apiVersion: a.b/v1\nkind: T\n" }, { config })).toEqual([]);
  });
});

describe("secret values in messages", () => {
  it("a finding about a Secret's data or a password-like field shows the mask, never the value", async () => {
    const findings = await validate({
      "s.yaml": 'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  password: "hunter2-not-base64!"\nstringData:\n  token: 987654\n',
      "crd.yaml": CRD.replace("other: {type: string}", "other: {type: string}\n                adminPassword: {type: string}"),
      "w.yaml": widget("  size: 1\n  adminPassword: 4242424\n"),
    });
    const messages = findings.map((f) => f.message).join("\n");
    expect(messages).not.toMatch(/hunter2|987654|4242424/);
    expect(
      findings
        .filter((f) => f.message.includes("<masked sha256:"))
        .map((f) => f.path)
        .sort(),
    ).toEqual(["data.password", "spec.adminPassword", "stringData.token"]);
  });

  it("a message masks only what the report's masker would: not a boolean, nor a template a tool fills in", async () => {
    const findings = await validate({
      "crd.yaml": CRD.replace("other: {type: string}", "other: {type: string}\n                adminPassword: {type: integer}"),
      "a.yaml": widget("  size: 1\n  adminPassword: true\n"),
      "b.yaml": widget("  size: 1\n  adminPassword: '{{ .password }}'\n"),
    });
    const messages = findings.filter((f) => f.path === "spec.adminPassword").map((f) => f.message);
    expect(messages).toHaveLength(2);
    expect(messages.join("\n")).not.toContain("<masked");
    expect(messages.join("\n")).toContain("{{ .password }}");
  });
});

describe("schema locations", () => {
  it("expands kubeconform's template variables", () => {
    const gvk = { group: "apps", version: "v1", kind: "Deployment" };
    expect(expandTemplate("{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json", gvk)).toBe("apps/deployment_v1.json");
    expect(
      expandTemplate("x/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json", gvk, {
        kubernetesVersion: "1.29.0",
        strict: true,
      }),
    ).toBe("x/v1.29.0-standalone-strict/deployment-apps-v1.json");
    expect(expandTemplate("base", { group: "", version: "v1", kind: "Pod" })).toBe("base/master-standalone/pod-v1.json");
  });

  const schema = JSON.stringify({
    type: "object",
    properties: { spec: { type: "object", additionalProperties: false, properties: { size: { type: "integer" } } } },
  });

  it("reads schemas from a local directory in the CRDs-catalog layout", async () => {
    const catalog = tempRepo({ "example.org/gadget_v1.json": schema });
    const findings = await validate(
      { "g.yaml": "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: big}\n" },
      { schemaLocations: [`${catalog}/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`] },
    );
    expect(findings).toMatchObject([{ rule: "schema/type", path: "spec.size" }]);
  });

  it("a manifest's apiVersion cannot walk a template out of its directory", async () => {
    const outside = tempRepo({ "secret.json": JSON.stringify({ type: "object", properties: { spec: { enum: ["hunter2"] } } }) });
    const catalog = path.join(outside, "catalog");
    fs.mkdirSync(path.join(catalog, "x"), { recursive: true });
    // x/../../secret.json from catalog/: group "x", version "../../secret"
    const findings = await validate(
      { "g.yaml": "apiVersion: x/../../secret\nkind: K\nspec: 1\n" },
      { schemaLocations: [`${catalog}/{{.Group}}/{{.ResourceAPIVersion}}.json`] },
    );
    expect(findings.map((f) => f.rule)).toEqual(["schema/missing"]);
    expect(JSON.stringify(findings)).not.toContain("hunter2");
  });

  it("a symbolic link in the repository cannot make a template read outside it, and no finding quotes a file", async () => {
    const outside = tempRepo({ "passwd.json": "root:x:0:0:root:/root:/bin/bash\n", "hostname.json": "secret-host-name\n" });
    const repo = tempRepo({
      ".composition-ci.yaml": "schemaLocations: ['{{.Group}}/{{.ResourceKind}}.json']\n",
      "p.yaml": "apiVersion: evil.io/v1\nkind: Passwd\nspec: {}\n",
      "h.yaml": "apiVersion: evil.io/v1\nkind: Hostname\nspec: {}\n",
    });
    fs.symlinkSync(outside, path.join(repo, "evil.io"));
    const { stdout } = await runCli(["validate", ".", "--format", "json", "--no-cache"], repo);
    expect(stdout).not.toContain("root:x");
    expect(stdout).not.toContain("secret-host");
    const failures = (JSON.parse(stdout) as { findings: { rule: string; message: string }[] }).findings.filter((f) => f.rule === "schema/location-failed");
    expect(failures.map((f) => f.message)).toEqual([
      "schema location for evil.io/v1 Hostname: evil.io/hostname.json: resolves outside ./ (a symbolic link?); not read",
      "schema location for evil.io/v1 Passwd: evil.io/passwd.json: resolves outside ./ (a symbolic link?); not read",
    ]);
  });

  it("a file that is not JSON is said so, never quoted", async () => {
    const catalog = tempRepo({ "example.org/gadget_v1.json": "password=hunter2-and-more\n" });
    const findings = await validate(
      { "g.yaml": "apiVersion: example.org/v1\nkind: Gadget\nspec: {}\n" },
      { schemaLocations: [`${catalog}/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`] },
    );
    expect(JSON.stringify(findings)).not.toContain("hunter2");
    expect(findings.find((f) => f.rule === "schema/location-failed")!.message).toMatch(/: not valid JSON( \(at byte \d+\))?$/);
  });

  it("downloads over HTTP once (disk cache), and a failed download is a finding", async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      if (req.url === "/example.org/gadget_v1.json") res.end(schema);
      else if (req.url?.startsWith("/broken")) res.writeHead(500).end("oops");
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const cacheDir = tempRepo({});
      const files = { "g.yaml": "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: 1}\n" };
      const location = `http://127.0.0.1:${port}/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`;
      expect(await validate(files, { schemaLocations: [location], cacheDir })).toEqual([]);
      expect(await validate(files, { schemaLocations: [location], cacheDir })).toEqual([]);
      expect(requests).toBe(1);
      const failed = await validate(files, { schemaLocations: [`http://127.0.0.1:${port}/broken/{{.ResourceKind}}.json`], cacheDir: null });
      expect(failed.map((f) => f.rule).sort()).toEqual(["schema/location-failed", "schema/missing"]);
    } finally {
      server.close();
    }
  });
});

describe("configuration", () => {
  it("reads known keys and rejects unknown ones with their line", () => {
    const config = parseConfig("ignore: [vendor/**]\nrules:\n  schema/missing: off\n  pt/*: warning\nmissingSchemas: error\n", ".composition-ci.yaml");
    expect(config).toMatchObject({ ignore: ["vendor/**"], rules: { "schema/missing": "off", "pt/*": "warning" }, missingSchemas: "error" });
    expect(() => parseConfig("ignore: []\nschemaLocation: [x]\n", "c.yaml")).toThrow(/c\.yaml:2: unknown key "schemaLocation"/);
    expect(() => parseConfig("rules:\n  a/b: loud\n", "c.yaml")).toThrow(ConfigError);
  });

  it("paths in the repository's config stay inside the repository (a pull request may change the config)", () => {
    const root = tempRepo({ "crds/a.yaml": "", "schemas/p.json": "{}" });
    fs.symlinkSync(os.tmpdir(), path.join(root, "tmp-link"));
    const ok = parseConfig(
      "crds: [crds, ./crds/a.yaml]\nschemaLocations: ['schemas/{{.Group}}.json', 'https://example.org/{{.Group}}.json']\nparameterSchemas: {p: schemas/p.json}\n",
      "c.yaml",
      root,
    );
    expect(ok.crds).toEqual(["crds", "./crds/a.yaml"]);
    expect(() => parseConfig("crds:\n  - ../elsewhere\n", "c.yaml", root)).toThrow(/c\.yaml:2: crds: "\.\.\/elsewhere" leads outside the repository/);
    expect(() => parseConfig("schemaLocations: ['/etc/{{.Group}}.json']\n", "c.yaml", root)).toThrow(/leads outside the repository/);
    expect(() => parseConfig("parameterSchemas: {p: /home/runner/key.json}\n", "c.yaml", root)).toThrow(/leads outside the repository/);
    expect(() => parseConfig("crds: [tmp-link/crds]\n", "c.yaml", root)).toThrow(/leads outside the repository/);
  });
});

describe("a legacy (mode: Resources) Composition is checked like a pipeline's P&T input", () => {
  const BUCKET = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: buckets.s.example.org}
spec:
  group: s.example.org
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [region]
              properties:
                region: {type: string}
                mode: {type: string, enum: [A, B]}
`;
  const LEGACY = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: legacy}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  resources:
    - name: bucket
      base:
        apiVersion: s.example.org/v1
        kind: Bucket
        spec:
          replicaz: 2
          mode: C
      patches:
        - type: PatchSet
          patchSetName: nowhere
`;

  it("without patchSets or environment keys: its bases and patches still meet the rules, at their lines", async () => {
    const findings = await validate(
      { "bucket-crd.yaml": BUCKET, "comp.yaml": LEGACY },
      { config: parseConfig("crossplaneVersion: 1\n", ".composition-ci.yaml") },
    );
    const at = (rule: string) => findings.filter((f) => f.rule === rule && f.file === "comp.yaml").map((f) => `${f.line} ${f.message}`);
    expect(at("schema/unknown-field")).toEqual(["12 composed Bucket base: unknown field `spec.replicaz` (allowed here: mode, region)"]);
    expect(at("schema/enum")).toEqual(['13 composed Bucket base: `spec.mode` is "C"; allowed: "A", "B"']);
    // Bases are partial objects: patches fill what is required later.
    expect(at("schema/required")).toEqual([]);
    expect(at("pt/patchset-missing").length).toBe(1);
  });
});
