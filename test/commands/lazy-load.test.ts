import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO, tempRepo } from "../helpers.js";

/**
 * Issue 38 (fixed cost): a command loads only what it uses. `validate` never calls a function, so
 * gRPC (loaded when a function is first called over it) stays unloaded; a command that renders does load it.
 */
function grpcModulesLoaded(argv: string[], cwd: string): number {
  const script = path.join(cwd, "probe.mjs");
  fs.writeFileSync(
    script,
    `import { createRequire } from "node:module";
const { main } = await import(${JSON.stringify(pathToFileURL(path.join(REPO, "src/main.ts")).href)});
await main(${JSON.stringify(argv)}, { cwd: ${JSON.stringify(cwd)}, stdout: () => true, stderr: () => true, isTTY: false });
const loaded = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(String(loaded.filter((m) => m.includes("@grpc/grpc-js")).length));
`,
  );
  const loader = pathToFileURL(path.join(REPO, "node_modules/tsx/dist/loader.mjs")).href;
  return Number(execFileSync(process.execPath, ["--import", loader, script], { cwd, encoding: "utf8", env: { ...process.env, COMPOSITION_CI_OFFLINE: "1" } }));
}

describe("commands load what they use", () => {
  it("validate loads no gRPC; function run does", () => {
    const dir = tempRepo({ "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b}\n" });
    expect(grpcModulesLoaded(["validate", ".", "--no-cache"], dir)).toBe(0);
    expect(grpcModulesLoaded(["function", "serve", "--help"], dir)).toBeGreaterThan(0);
  }, 60_000);
});
