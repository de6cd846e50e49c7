import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO, runCli, tempRepo } from "../helpers.js";

/** What a hostile or broken repository can put in front of validate: findings, never a crash, a stall or a leak. */

type Finding = { rule: string; severity: string; file?: string; message: string };

async function validate(dir: string, ...args: string[]) {
  const r = await runCli(["validate", ".", "--format", "json", "--no-cache", ...args], dir);
  return { ...r, findings: r.code === 2 ? [] : (JSON.parse(r.stdout) as { findings: Finding[] }).findings };
}

const crd = (schema: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Thing, plural: things}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
${schema}`;

describe("hostile schemas", () => {
  for (const ref of ["#/definitions/x", "file:///etc/passwd", "http://127.0.0.1:1/x.json", "../other.json"]) {
    it(`$ref ${ref} is a finding on the CRD, and its kind validates without it`, async () => {
      const dir = tempRepo({
        "crd.yaml": crd(
          `          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                size: {type: integer}\n                other: {$ref: "${ref}"}\n`,
        ),
        "t.yaml": "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: big, other: 1}\n",
      });
      const { code, findings } = await validate(dir);
      expect(code).toBe(1);
      expect(findings.map((f) => `${f.severity} ${f.rule} ${f.file}`)).toEqual(["error schema/invalid-definition crd.yaml", "error schema/type t.yaml"]);
      expect(findings[0]!.message).toContain("$ref: structural schemas may not use $ref");
    });
  }

  it("a 100,000-value enum validates in linear time, and its message stays short", async () => {
    const values = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => `v${i}`));
    const dir = tempRepo({
      "crd.yaml": crd(
        `          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                color: {type: string, enum: ${values}}\n`,
      ),
      "t.yaml": "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {color: nope}\n",
    });
    const started = performance.now();
    const { findings } = await validate(dir);
    expect(performance.now() - started).toBeLessThan(10_000);
    const message = findings.find((f) => f.rule === "schema/enum")!.message;
    expect(message.length).toBeLessThan(500);
    expect(message).toContain("… and 99980 more");
  }, 30_000);

  it("a big kind: List of invalid Pods is linear: one finding per item, found without walking the list again", async () => {
    const pod = (i: number) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p${i}"},"spec":{"containers":[{"name":"c","image":1}]}}`;
    const timeFor = async (n: number) => {
      const dir = tempRepo({ "list.json": `{"apiVersion":"v1","kind":"List","items":[${Array.from({ length: n }, (_, i) => pod(i)).join(",")}]}` });
      const started = performance.now();
      const { findings } = await validate(dir);
      expect(findings.filter((f) => f.rule === "schema/type")).toHaveLength(n);
      return performance.now() - started;
    };
    await timeFor(200); // warm
    const [small, large] = [await timeFor(2000), await timeFor(8000)];
    expect(large / small).toBeLessThan(8); // 4× the items: linear, not 16× and worse
  }, 60_000);
});

describe("hostile files", () => {
  it("NUL bytes anywhere (not only in the first 8 KB) make a file binary", async () => {
    const dir = tempRepo({ "a.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: "${"y".repeat(10_000)}"\n  z: "\u0000"\n` });
    expect((await validate(dir)).findings.map((f) => f.rule)).toEqual(["file/binary"]);
  });

  it("invalid UTF-8 is a finding, not silently replaced", async () => {
    const dir = tempRepo({
      "a.yaml": Buffer.concat([
        Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: "'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('"}\n'),
      ]),
    });
    expect((await validate(dir)).findings.map((f) => `${f.severity} ${f.rule}`)).toEqual(["error file/encoding"]);
  });

  it("a config that is a symbolic link out of the repository is not read", async () => {
    const outside = tempRepo({ "config.yaml": "rules: {schema/*: off}\n" });
    const dir = tempRepo({ "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" });
    fs.symlinkSync(path.join(outside, "config.yaml"), path.join(dir, ".composition-ci.yaml"));
    const { code, stderr } = await validate(dir);
    expect(code).toBe(2);
    expect(stderr).toContain(".composition-ci.yaml: leads outside the repository (a symbolic link?); not read");
  });

  it("a FIFO named on the command line is refused, not read (which would block)", async () => {
    const dir = tempRepo({});
    execFileSync("mkfifo", [path.join(dir, "pipe.yaml")]);
    const { code, stderr } = await runCli(["validate", "pipe.yaml"], dir);
    expect(code).toBe(2);
    expect(stderr).toContain("is not a regular file or a directory");
  });

  it("a file name with a newline stays on one line in text output", async () => {
    const dir = tempRepo({ "bad\nname.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 1}\n" });
    const { stdout } = await runCli(["validate", ".", "--no-cache"], dir);
    expect(stdout).toContain("bad\\nname.yaml");
    expect(stdout.split("\n").some((l) => l === "name.yaml")).toBe(false);
  });

  it("a document nested too deeply says the same alone or beside others", async () => {
    const deep = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  a: ${"[".repeat(20000)}${"]".repeat(20000)}\n`;
    const alone = (await validate(tempRepo({ "deep.yaml": deep }))).findings;
    const beside = (await validate(tempRepo({ "deep.yaml": deep, "ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n" }))).findings;
    expect(alone.map((f) => f.message)).toEqual(beside.map((f) => f.message));
    expect(alone[0]!.message).toBe("the document nests more than 128 levels deep (no manifest does); not read");
  });

  it("the nesting limit is fixed, checked before parsing: the stack size changes nothing", () => {
    const flow = (n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f${n}}\ndata:\n  a: ${"[".repeat(n)}${"]".repeat(n)}\n`;
    const block = (n: number) =>
      [
        "apiVersion: example.org/v1",
        "kind: Thing",
        "metadata: {name: b}",
        "spec:",
        ...Array.from({ length: n }, (_, i) => `${"  ".repeat(i + 1)}k${i}:${i === n - 1 ? " 1" : ""}`),
      ].join("\n") + "\n";
    const dir = tempRepo({
      "flow-120.yaml": flow(120),
      "flow-140.yaml": flow(140),
      "block-120.yaml": block(120),
      "block-140.yaml": block(140),
      "map-140.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}, "data": ${'{"a": '.repeat(140)}1${"}".repeat(140)}}`,
    });
    // Its report, though it exits 1 (the findings are errors).
    const run = (stack: number) => {
      try {
        return execFileSync(
          process.execPath,
          [
            `--stack-size=${stack}`,
            "--import",
            pathToFileURL(path.join(REPO, "node_modules/tsx/dist/loader.mjs")).href,
            path.join(REPO, "src/cli.ts"),
            "validate",
            ".",
            "--format",
            "json",
            "--no-cache",
          ],
          { cwd: dir, encoding: "utf8", env: { ...process.env, COMPOSITION_CI_OFFLINE: "1" } },
        ).toString();
      } catch (err) {
        return (err as { stdout: string }).stdout;
      }
    };
    const small = run(500);
    const large = run(4000);
    expect(small).toBe(large);
    const findings = (JSON.parse(small) as { findings: (Finding & { line?: number })[] }).findings;
    const deep = findings.filter((f) => f.message.includes("nests more than 128 levels")).map((f) => `${f.file}:${f.line}`);
    expect(deep.sort()).toEqual(["block-140.yaml:132", "flow-140.yaml:5", "map-140.json:1"]);
    // Under the limit, files are read and checked: the lists are not strings, the Thing has no schema.
    expect(findings.some((f) => f.file === "flow-120.yaml" && f.rule === "schema/type")).toBe(true);
    expect(findings.some((f) => f.file === "block-120.yaml" && f.rule === "schema/missing")).toBe(true);
  });
});

describe("a reader that stops reading", () => {
  it("render --all | head: the CLI ends quietly, without a stack trace about the closed pipe", () => {
    const files: Record<string, string> = {};
    for (const name of ["xrd.yaml", "composition.yaml", "functions.yaml"]) files[name] = fs.readFileSync(path.join(REPO, "examples/crossplane", name), "utf8");
    const xr = fs.readFileSync(path.join(REPO, "examples/crossplane/xr.yaml"), "utf8");
    for (let i = 0; i < 150; i++) files[`xrs/xr-${i}.yaml`] = xr.replace("name: storefront", `name: storefront-${i}`);
    const dir = tempRepo(files);
    const loader = pathToFileURL(path.join(REPO, "node_modules/tsx/dist/loader.mjs")).href;
    const cli = `"${process.execPath}" --import ${loader} "${path.join(REPO, "src/cli.ts")}" render --all .`;
    const run = spawnSync("bash", ["-c", `set -o pipefail; ${cli} | head -c 100 >/dev/null`], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, COMPOSITION_CI_OFFLINE: "1" },
    });
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled|node:events/);
    expect(run.status).toBe(0);
  });
});
