import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { appRepo, XR } from "./fixture.js";

/** `composition-ci test` on golden files: crossplane render output streams compared as objects. */

const RENDER = ["render", "examples/app.yaml", "apis/composition.yaml", "apis/functions.yaml", "--xrd", "apis/xrd.yaml"];

/** What `render` prints for the example (the stream crossplane render prints), with more flags. */
async function rendered(dir: string, ...flags: string[]): Promise<string> {
  const r = await runCli([...RENDER, ...flags], dir);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

async function runJson(dir: string, ...args: string[]) {
  const r = await runCli(["test", "--format", "json", "--no-cache", ...args], dir);
  return { code: r.code, json: JSON.parse(r.stdout) };
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};

describe("golden files", () => {
  it("a crossplane render stream next to its example XR is found and passes; -x is read off the file", async () => {
    const dir = appRepo();
    write(dir, "examples/app.golden.yaml", await rendered(dir));
    write(dir, "examples/app-full.golden.yaml", await rendered(dir, "-x", "-c"));
    const { code, json } = await runJson(dir);
    expect(json.tests.map((t: { name: string; status: string; note: string }) => [t.name, t.status, t.note])).toEqual([
      ["examples/app-full.golden.yaml", "passed", "found; rendered as render --all does with -x -c"],
      ["examples/app.golden.yaml", "passed", "found; rendered as render --all does"],
    ]);
    expect(json.tests[0].source).toBe("App shop (examples/app.yaml) via Composition apps.example.org (apis/composition.yaml)");
    expect(code).toBe(0);
  });

  it("of two example XRs with one name in one directory, a golden file is the one whose file name it carries", async () => {
    const dir = appRepo({ "examples/app-copy.yaml": XR.replace("shop:1.0", "shop:9.9") });
    write(dir, "examples/app.golden.yaml", await rendered(dir));
    const { code, json } = await runJson(dir);
    expect(json.tests.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([["examples/app.golden.yaml", "passed"]]);
    expect(json.tests[0].source).toContain("(examples/app.yaml)");
    expect(code).toBe(0);
    fs.renameSync(path.join(dir, "examples/app.golden.yaml"), path.join(dir, "examples/app-expected.yaml"));
    const renamed = await runJson(dir);
    expect(renamed.json.tests[0].source).toContain("(examples/app.yaml)");
  });

  it("fails with a readable difference: every field that differs, objects on one side only, at the golden file's line", async () => {
    const dir = appRepo();
    write(dir, "examples/app.golden.yaml", await rendered(dir));
    write(dir, "examples/app.yaml", XR.replace("replicas: 3", "replicas: 4").replace("size: large", "size: small"));
    const composition = read(dir, "apis/composition.yaml");
    write(
      dir,
      "apis/composition.yaml",
      composition.replace("      - name: config\n", "      - name: account\n        base: {apiVersion: v1, kind: ServiceAccount}\n      - name: config\n"),
    );
    const r = await runCli(["test", "--no-cache"], dir);
    expect(r.code).toBe(1);
    const golden = read(dir, "examples/app.golden.yaml").split("\n");
    const line = (text: string, from = 0) => golden.findIndex((l, i) => i >= from && l.includes(text)) + 1;
    const deployment = line("kind: Deployment");
    const composedName = (resource: string) => {
      const doc = read(dir, "examples/app.golden.yaml")
        .split("---\n")
        .find((d) => d.includes(`composition-resource-name: ${resource}\n`))!;
      return /\n  name: (\S+)\n/.exec(doc)![1];
    };
    const configName = composedName("config");
    const deploymentName = composedName("deployment");
    expect(r.stdout).toContain(
      [
        "FAIL  golden examples/app.golden.yaml  examples/app.golden.yaml:1",
        "      rendering App shop (examples/app.yaml) via Composition apps.example.org (apis/composition.yaml)",
        `      example.org/v1 App shop (examples/app.golden.yaml:${line("resourceRefs:")})`,
      ].join("\n"),
    );
    expect(r.stdout).toMatch(
      / {8}spec\.crossplane\.resourceRefs\[2\]: rendered \{"apiVersion":"v1","kind":"ServiceAccount","name":"shop-[0-9a-f]{12}"\}, not expected\n/,
    );
    expect(r.stdout).toContain(
      [
        '        status.conditions[2].message: want "Unready resources: config, deployment", got "Unready resources: account, config, and deployment"',
        `      v1 ConfigMap ${configName} (composition resource config) (examples/app.golden.yaml:${line("size: large")})`,
        '        data.size: want "large", got "small"',
        `      apps/v1 Deployment ${deploymentName} (composition resource deployment) (examples/app.golden.yaml:${line("replicas: 3", deployment)})`,
        "        spec.replicas: want 3, got 4",
      ].join("\n"),
    );
    expect(r.stdout).toMatch(
      / {6}v1 ServiceAccount shop-[0-9a-f]{12} \(composition resource account\): rendered, not in the golden file \(examples\/app\.golden\.yaml\)\n/,
    );
    expect(r.stdout).toContain(
      [
        "      rendered as Crossplane v2.5.0's crossplane render prints it (the file has the reconciler's resourceRefs, conditions or composed names: written by v2.3 or later); if the change is meant, `composition-ci test --update` rewrites the file",
        "",
        "1 test: 0 passed, 1 failed",
      ].join("\n"),
    );
  });

  it("--update rewrites a golden file that differs, byte for byte as crossplane render prints it, and leaves one that passes alone", async () => {
    const dir = appRepo();
    const original = await rendered(dir, "-x");
    // A stale golden file: a value changed (the XR's spec, which -x prints), a document gone (the Deployment).
    const stale = original.replace("replicas: 3", "replicas: 9").split("---\n").slice(0, -1).join("---\n");
    write(dir, "examples/app.golden.yaml", stale);
    const before = await runJson(dir);
    expect(before.code).toBe(1);
    expect(before.json.tests[0].failures.map((f: { message?: string; object: string }) => f.message ?? f.object)).toEqual([
      "example.org/v1 App shop",
      "rendered, not in the golden file",
      expect.stringMatching(/^rendered as Crossplane v2\.5\.0's crossplane render prints it/),
    ]);
    const update = await runJson(dir, "--update");
    expect(update.code).toBe(0);
    expect(update.json.tests[0]).toMatchObject({ status: "passed", updated: true });
    expect(read(dir, "examples/app.golden.yaml")).toBe(original);
    // Passing now, and --update again writes nothing.
    const mtime = fs.statSync(path.join(dir, "examples/app.golden.yaml")).mtimeMs;
    const again = await runJson(dir, "--update");
    expect(again.json.tests[0]).toMatchObject({ status: "passed" });
    expect(again.json.tests[0].updated).toBeUndefined();
    expect(fs.statSync(path.join(dir, "examples/app.golden.yaml")).mtimeMs).toBe(mtime);
    expect(read(dir, "examples/app.golden.yaml")).toBe(original);
  });

  it("v2.2's files: ignores what a render cannot fix offline, the random part of generated names, UIDs", async () => {
    const dir = appRepo();
    const stream = (await rendered(dir, "--crossplane-version", "v2.2"))
      .replace("  generateName: shop-\n", "  generateName: shop-\n  name: shop-x7k2p\n")
      .replaceAll('    uid: ""\n', "    uid: 3f1c9a52-2b7e-4c1d-9f0e-8a6b5c4d3e2f\n")
      .replace("  name: shop\n  namespace: default\n", "  name: shop\n  namespace: default\n  uid: 3f1c9a52-2b7e-4c1d-9f0e-8a6b5c4d3e2f\n");
    expect(stream).toContain("name: shop-x7k2p");
    write(dir, "examples/app.golden.yaml", stream);
    const { code, json } = await runJson(dir);
    expect(json.tests[0].failures).toEqual([]);
    expect(code).toBe(0);
  });

  it("tests.golden maps example XRs to golden files with crossplane render's flags; --update writes a missing one", async () => {
    const observed = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-7xk2p
  namespace: default
  annotations: {crossplane.io/composition-resource-name: deployment}
status: {readyReplicas: 3}
`;
    const config = `tests:
  golden:
  - xr: "examples/*.yaml"
    output: "tests/golden/{kind}-{name}.yaml"
    flags: [-r, -x, --xrd=apis/xrd.yaml, -o, tests/observed.yaml]
`;
    const dir = appRepo({ ".composition-ci.yaml": config, "tests/observed.yaml": observed });
    const missing = await runJson(dir);
    expect(missing.code).toBe(1);
    expect(missing.json.tests[0]).toMatchObject({
      kind: "golden",
      file: "tests/golden/app-shop.yaml",
      status: "failed",
      failures: [{ message: "the golden file tests/golden/app-shop.yaml does not exist; `composition-ci test --update` writes it" }],
    });
    expect((await runJson(dir, "--update")).json.tests[0]).toMatchObject({ status: "passed", updated: true, note: "tests.golden[0]" });
    const golden = read(dir, "tests/golden/app-shop.yaml");
    expect(golden).toBe(await rendered(dir, "-r", "-x", "-o", "tests/observed.yaml"));
    expect(golden).toContain("name: shop-7xk2p");
    expect(golden).toContain("readyReplicas: 3");
    expect((await runJson(dir)).code).toBe(0);
  });

  it("a bad tests.golden entry is a configuration error (exit 2, with its line)", async () => {
    const dir = appRepo({ ".composition-ci.yaml": "tests:\n  golden:\n  - xr: examples/*.yaml\n    output: out/{file}.yaml\n" });
    const r = await runCli(["test"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(".composition-ci.yaml:2: tests: golden[0].output: unknown placeholder {file}");
    const flags = appRepo({ ".composition-ci.yaml": "tests:\n  golden:\n  - {xr: examples/*.yaml, output: 'out/{name}.yaml', flags: [--bogus]}\n" });
    expect((await runCli(["test"], flags)).stderr).toContain("golden[0].flags: Unknown option '--bogus'");
  });

  it("a render output whose XR is not an example of the repository is skipped, saying why", async () => {
    const dir = appRepo();
    write(dir, "elsewhere/other.golden.yaml", (await rendered(dir)).replaceAll("name: shop", "name: gone").replaceAll("composite: shop", "composite: gone"));
    const { code, json } = await runJson(dir);
    expect(json.tests[0]).toMatchObject({
      status: "skipped",
      note: "no example XR App gone below the paths renders to it; map it with tests.golden in .composition-ci.yaml",
    });
    expect(code).toBe(0);
  });
});
