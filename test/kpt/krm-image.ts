import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { layer, type TestRegistry } from "../oci/registry-server.js";

/**
 * A KRM validator function image for the tests: its entrypoint is a node script (a shebang to this
 * Node) that reads a ResourceList on stdin and writes it back on stdout. Every Deployment must
 * carry the label its functionConfig (a ConfigMap) names in `data.label`: one missing is an error
 * result naming the resource, its file and the field, and the function exits 1. It also reports,
 * as an info result, what it was given: the annotation keys of the first item and the
 * functionConfig's kind, so tests see the ResourceList kpt would have given.
 */
const require = createRequire(import.meta.url);
const YAML_MODULE = pathToFileURL(require.resolve("yaml")).href;

export const VALIDATOR_SCRIPT = `#!${process.execPath}
(async () => {
  const YAML = await import(${JSON.stringify(YAML_MODULE)});
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const rl = YAML.parse(Buffer.concat(chunks).toString("utf8"));
  if (rl.kind !== "ResourceList") { console.error("not a ResourceList"); process.exit(2); }
  const label = rl.functionConfig?.data?.label ?? "team";
  const results = [];
  const first = rl.items[0];
  results.push({ severity: "info", message: "given " + rl.items.length + " items; config " + (rl.functionConfig?.kind ?? "none") + "; annotations: " + Object.keys(first?.metadata?.annotations ?? {}).sort().join(",") });
  for (const item of rl.items) {
    if (item.kind !== "Deployment") continue;
    const a = item.metadata.annotations ?? {};
    if (!(item.metadata.labels ?? {})[label]) {
      results.push({ severity: "error", message: "label " + label + " is required", resourceRef: { apiVersion: item.apiVersion, kind: item.kind, name: item.metadata.name }, field: { path: "metadata.labels" }, file: { path: a["internal.config.kubernetes.io/path"], index: Number(a["internal.config.kubernetes.io/index"] ?? 0) } });
    }
  }
  rl.results = results;
  process.stdout.write(YAML.stringify(rl));
  process.exit(results.some((r) => r.severity === "error") ? 1 : 0);
})();
`;

/** Pushes the validator image for both common platforms. */
export async function pushValidator(registry: TestRegistry, repository: string, tag: string) {
  const fn = await layer([
    { name: "usr/", type: "directory" },
    { name: "usr/local/", type: "directory" },
    { name: "usr/local/bin/", type: "directory" },
    { name: "usr/local/bin/validate", content: VALIDATOR_SCRIPT, mode: 0o755 },
  ]);
  const image = { layers: [{ bytes: fn, compression: "gzip" as const }], entrypoint: ["/usr/local/bin/validate"] };
  return registry.push(repository, tag, { "linux/amd64": image, "linux/arm64": image });
}
