/**
 * Package schemas benchmark, one run: a provider package of 900 CRDs (about the size of a large
 * AWS provider: managed-resource schemas with forProvider/initProvider/atProvider, enums, CEL
 * rules) served by a registry on 127.0.0.1, and a repository of 100 managed resources of 100 of
 * its kinds whose crossplane.yaml depends on it. Prints the validation time cold (pull, parse,
 * compile), warm (everything cached), and without the package, and the size of package.yaml.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as YAML from "yaml";
import { loadConfig } from "../src/config/config.js";
import { packageSettings } from "../src/runtimes/package.js";
import { validateRepo } from "../src/run/validate.js";
import { layer, TestRegistry } from "../test/oci/registry-server.js";

const KINDS = 900;
const USED = 100;

function fields(n: number, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const name = `${prefix}Field${i}`;
    if (i % 5 === 0)
      out[name] = { type: "array", items: { type: "object", properties: { key: { type: "string" }, value: { type: "string" }, weight: { type: "number" } } } };
    else if (i % 5 === 1) out[name] = { type: "object", additionalProperties: { type: "string" } };
    else if (i % 5 === 2) out[name] = { type: "string", enum: ["Enabled", "Disabled", "Suspended"] };
    else if (i % 5 === 3) out[name] = { type: "number" };
    else out[name] = { type: "string", description: "A field of the managed resource, as the provider's documentation describes it at some length." };
  }
  return out;
}

function crd(i: number): unknown {
  const kind = `Resource${i}`;
  const parameters = { type: "object", properties: { region: { type: "string" }, ...fields(40, "param") } };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `resource${i}s.bench.upbound.io` },
    spec: {
      group: "bench.upbound.io",
      names: { kind, plural: `resource${i}s`, singular: `resource${i}`, listKind: `${kind}List` },
      scope: "Cluster",
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: {
                  type: "object",
                  required: ["forProvider"],
                  properties: {
                    deletionPolicy: { type: "string", enum: ["Orphan", "Delete"], default: "Delete" },
                    managementPolicies: {
                      type: "array",
                      items: { type: "string", enum: ["Observe", "Create", "Update", "Delete", "LateInitialize", "*"] },
                      default: ["*"],
                    },
                    providerConfigRef: { type: "object", required: ["name"], properties: { name: { type: "string" } }, default: { name: "default" } },
                    forProvider: parameters,
                    initProvider: parameters,
                  },
                  "x-kubernetes-validations": [
                    {
                      rule: "!('*' in self.managementPolicies || 'Create' in self.managementPolicies || 'Update' in self.managementPolicies) || has(self.forProvider.region) || (has(self.initProvider) && has(self.initProvider.region))",
                      message: "spec.forProvider.region is a required parameter",
                    },
                  ],
                },
                status: { type: "object", properties: { atProvider: { type: "object", properties: fields(30, "at") } } },
              },
            },
          },
        },
      ],
    },
  };
}

const registry = new TestRegistry();
await registry.start();
const packageYaml = [
  { apiVersion: "meta.pkg.crossplane.io/v1", kind: "Provider", metadata: { name: "provider-bench" } },
  ...Array.from({ length: KINDS }, (_, i) => crd(i)),
]
  .map((d) => `---\n${YAML.stringify(d)}`)
  .join("");
const meta = await layer([{ name: "package.yaml", content: packageYaml }]);
registry.push("upbound/provider-bench", "v1.0.0", {
  "linux/amd64": { layers: [{ bytes: meta, compression: "gzip", annotations: { "io.crossplane.xpkg": "base" } }] },
  "linux/arm64": { layers: [{ bytes: meta, compression: "gzip", annotations: { "io.crossplane.xpkg": "base" } }] },
});

const repo = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-schemas-"));
fs.writeFileSync(path.join(repo, ".composition-ci.yaml"), `functions:\n  trusted: ["${registry.host}/upbound/*"]\n`);
fs.writeFileSync(
  path.join(repo, "crossplane.yaml"),
  `apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: bench}\nspec:\n  dependsOn:\n    - provider: ${registry.host}/upbound/provider-bench\n      version: v1.0.0\n`,
);
for (let i = 0; i < USED; i++) {
  fs.writeFileSync(
    path.join(repo, `mr-${i}.yaml`),
    YAML.stringify({
      apiVersion: "bench.upbound.io/v1beta1",
      kind: `Resource${i * 9}`,
      metadata: { name: `mr-${i}` },
      spec: { forProvider: { region: "eu-north-1", paramField2: "Enabled", paramField3: 3 } },
    }),
  );
}

async function run(cacheDir: string, withPackages: boolean) {
  const start = performance.now();
  const result = await validateRepo({
    root: repo,
    paths: ["."],
    config: loadConfig(repo),
    cacheDir,
    packages: withPackages ? { settings: packageSettings({ cacheDir, offline: false }), allowExec: false } : undefined,
  });
  return {
    ms: performance.now() - start,
    missing: result.findings.filter((f) => f.rule === "schema/missing").length,
    errors: result.findings.filter((f) => f.severity === "error").length,
  };
}

const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-schemas-cache-"));
const cold = await run(cache, true);
const requests = registry.requests.length;
const warm = await run(cache, true);
const warmRequests = registry.requests.length - requests;
const none = await run(fs.mkdtempSync(path.join(os.tmpdir(), "cci-bench-none-")), false);
await registry.stop();

console.log(
  `package schemas benchmark (one run; a provider package of ${KINDS} CRDs, package.yaml ${(packageYaml.length / 1024 / 1024).toFixed(1)} MiB; ${USED} managed resources)`,
);
console.log(`  cold (pull, parse, compile): ${cold.ms.toFixed(0)} ms, ${cold.missing} kinds without schema, ${cold.errors} errors`);
console.log(`  warm (cached package, cached validators): ${warm.ms.toFixed(0)} ms, ${warmRequests} registry requests`);
console.log(`  without the package: ${none.ms.toFixed(0)} ms, ${none.missing} kinds without schema`);
console.log(`  ratios: cold / warm ${(cold.ms / warm.ms).toFixed(2)}x, warm / without ${(warm.ms / none.ms).toFixed(2)}x`);
