import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { runDiff } from "../../src/run/diff.js";
import { packageSettings } from "../../src/runtimes/package.js";
import { breakEntrypoints, gitRepo, runCli, tempRepo } from "../helpers.js";
import { layer, TestRegistry } from "../oci/registry-server.js";
import { pushGreetFunction } from "../oci/function-image.js";
import { ptComposition } from "../fixtures/compositions.js";

/**
 * The package runtime end to end: a function image assembled by the test (its entrypoint a node
 * script that serves RunFunction), pushed to a registry on 127.0.0.1, pulled, unpacked and run as
 * a process in a pipeline between the built-in function-patch-and-transform and auto-ready.
 */

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xgreetings.example.org}
spec:
  group: example.org
  names: {kind: XGreeting, plural: xgreetings}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {greeting: {type: string}}}}}}
`;

const COMPOSITION = ptComposition(
  "xgreetings",
  "XGreeting",
  `          - name: bucket
            base: {apiVersion: v1, kind: ConfigMap, data: {from: pt}}
    - step: greet
      functionRef: {name: function-greet}
    - step: ready
      functionRef: {name: function-auto-ready}
`,
);

const functions = (greet: string) => `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-patch-and-transform}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.8.2}
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-auto-ready}
spec: {package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0}
---
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata: {name: function-greet}
spec: {package: ${greet}}
`;

const XR = `apiVersion: example.org/v1
kind: XGreeting
metadata: {name: hello, namespace: default}
spec: {greeting: hej}
`;

type Finding = { rule: string; severity: string; message: string };

describe("the package runtime: function images pulled from a registry and run as processes", () => {
  const registry = new TestRegistry();
  let reference = "";
  let cache = "";
  const saved = { offline: process.env.COMPOSITION_CI_OFFLINE, cache: process.env.COMPOSITION_CI_CACHE };

  beforeAll(async () => {
    await registry.start();
    await pushGreetFunction(registry, "crossplane-contrib/function-greet", "v1.0.0");
    reference = `${registry.host}/crossplane-contrib/function-greet:v1.0.0`;
  });
  afterAll(() => registry.stop());
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-pkg-cache-"));
    process.env.COMPOSITION_CI_OFFLINE = "0";
    process.env.COMPOSITION_CI_CACHE = cache;
    registry.failures.length = 0;
  });
  afterEach(() => {
    process.env.COMPOSITION_CI_OFFLINE = saved.offline;
    process.env.COMPOSITION_CI_CACHE = saved.cache;
  });

  function repo(trusted: boolean, extra: Record<string, string> = {}) {
    return tempRepo({
      ...(trusted ? { ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/crossplane-contrib/*"]\n` } : {}),
      "xrd.yaml": XRD,
      "composition.yaml": COMPOSITION,
      "functions.yaml": functions(reference),
      "xr.yaml": XR,
      ...extra,
    });
  }

  async function check(dir: string, ...flags: string[]) {
    const run = await runCli(["check", ".", "--format", "json", "--output-dir", "out", ...flags], dir);
    return { ...run, findings: (JSON.parse(run.stdout) as { findings: Finding[] }).findings };
  }

  it("renders a pipeline that mixes the built-in P&T, the package function and auto-ready; a second run asks the registry nothing", async () => {
    const dir = repo(true);
    const first = await check(dir);
    expect(first.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(first.stderr).toContain("rendered 1 of 1 sources");
    const docs = YAML.parseAllDocuments(fs.readFileSync(path.join(dir, "out/rendered/xgreeting-default-hello.yaml"), "utf8")).map((d) => d.toJS());
    expect(docs.map((d) => `${d.kind}/${d.metadata?.annotations?.["crossplane.io/composition-resource-name"] ?? ""}`)).toEqual([
      "XGreeting/",
      "ConfigMap/bucket",
      "ConfigMap/from-package",
    ]);
    expect(docs[2].data).toEqual({ greeting: "hej", home: "private" });
    expect(fs.readdirSync(path.join(cache, "oci", "rootfs"))).toHaveLength(1);

    const before = registry.requests.length;
    const second = await check(dir);
    expect(second.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(registry.requests.length).toBe(before);
  });

  it("a package's answer is never taken from an earlier run: it may read the network or the clock, which no key sees; its process runs each time (issue 38)", async () => {
    const dir = repo(true);
    await check(dir);
    breakEntrypoints(cache);
    const { findings } = await check(dir);
    expect(findings.some((f) => f.rule.startsWith("render/") && f.severity !== "info" && /function-greet/.test(f.message))).toBe(true);
  });

  it("offline, the cache filled by functions pull is enough", async () => {
    const dir = repo(true);
    const pull = await runCli(["functions", "pull", "."], dir);
    expect(pull.code).toBe(0);
    expect(pull.stderr).toContain(`function-greet: ${reference} linux/`);
    expect(pull.stderr).toMatch(
      /1 function package and 1 package schema in .*; not pulled: function-patch-and-transform \(built in\), function-auto-ready \(built in\)/,
    );
    const before = registry.requests.length;
    const offline = await check(dir, "--offline");
    expect(offline.findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(registry.requests.length).toBe(before);
  });

  it("an untrusted package is a warning, and nothing is pulled", async () => {
    const before = registry.requests.length;
    const { findings, code } = await check(repo(false));
    expect(code).toBe(0);
    const warning = findings.find((f) => f.rule === "render/not-rendered");
    expect(warning?.message).toContain(`would pull and run ${reference}, which is not a trusted package`);
    expect(registry.requests.length).toBe(before);
  });

  it("a registry that fails is a warning naming the registry's answer; sources that need no package still render", async () => {
    registry.failures.push({ pattern: /function-greet\/manifests/, status: 500 });
    const builtinOnly = COMPOSITION.replace("xgreetings}", "xgreetings-plain}").replace(/ {4}- step: greet\n {6}functionRef: \{name: function-greet\}\n/, "");
    const dir = repo(true, {
      "plain/xrd.yaml": XRD.replace(/xgreetings/g, "xplains").replace("XGreeting", "XPlain"),
      "plain/composition.yaml": builtinOnly.replace("XGreeting", "XPlain").replace("xgreetings-plain", "xplains"),
      "plain/xr.yaml": XR.replace("XGreeting", "XPlain"),
    });
    const { findings, stderr } = await check(dir);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.find((f) => f.rule === "render/not-rendered")?.message).toMatch(/function-greet \(step [a-z-]+\) could not be pulled: .*HTTP 500/);
    expect(stderr).toContain("rendered 1 of 2 sources");
  });

  it("a registry that refuses the credentials (401) or has no such package (404) is a warning naming the answer, never an error", async () => {
    for (const status of [401, 404]) {
      registry.failures.length = 0;
      registry.failures.push({ pattern: /function-greet\/manifests/, status });
      const { findings, code } = await check(repo(true));
      expect(code, `HTTP ${status}`).toBe(0);
      expect(
        findings.filter((f) => f.severity === "error"),
        `HTTP ${status}`,
      ).toEqual([]);
      const warning = findings.find((f) => f.rule === "render/not-rendered");
      expect(warning?.severity).toBe("warning");
      expect(warning?.message).toMatch(new RegExp(`function-greet \\(step [a-z-]+\\) could not be pulled: .*${status}`));
      expect(warning?.message).toContain("check the package reference and the registry's credentials");
    }
  });

  it("an image built for another architecture is not run: a warning that says why; with --allow-exec and no Docker, the same", async () => {
    const foreign = process.arch === "arm64" ? 0x3e : 0xb7; // x86-64 on an arm64 runner, aarch64 elsewhere
    const elf = Buffer.alloc(64);
    elf.write("\x7fELF", 0, "latin1");
    elf[4] = 2; // 64-bit
    elf[5] = 1; // little-endian
    elf[6] = 1;
    elf.writeUInt16LE(2, 16); // an executable
    elf.writeUInt16LE(foreign, 18);
    elf.writeUInt32LE(1, 20);
    const image = {
      layers: [{ bytes: await layer([{ name: "function", content: elf, mode: 0o755 }]), compression: "gzip" as const }],
      entrypoint: ["/function"],
    };
    registry.push("crossplane-contrib/function-foreign", "v1.0.0", { [`linux/${process.arch === "arm64" ? "arm64" : "amd64"}`]: image });
    const dir = repo(true, { "functions.yaml": functions(`${registry.host}/crossplane-contrib/function-foreign:v1.0.0`) });
    const noDocker = fs.mkdtempSync(path.join(os.tmpdir(), "cci-no-docker-"));
    fs.writeFileSync(path.join(noDocker, "docker"), "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n", { mode: 0o755 });
    const savedPath = process.env.PATH;
    process.env.PATH = `${noDocker}${path.delimiter}${savedPath}`;
    try {
      for (const flags of [[], ["--allow-exec"]]) {
        const { findings, code } = await check(dir, ...flags);
        expect(code, flags.join(" ")).toBe(0);
        expect(findings.filter((f) => f.severity === "error")).toEqual([]);
        const warning = findings.find((f) => f.rule === "render/not-rendered");
        expect(warning?.message).toMatch(
          /cannot run .*function-foreign:v1\.0\.0 here: it is a (linux\/(arm64|amd64) binary and this runner is linux\/|Linux binary and this runner is darwin)/,
        );
        expect(warning?.message).toContain("run where Docker is there with --allow-exec, or on a linux runner of the image's architecture");
      }
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it("in a pull request, the trust list is the base ref's: a head that trusts a new registry renders nothing from it", async () => {
    const { dir } = gitRepo(repo(false));
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), `functions:\n  trusted: ["${registry.host}/crossplane-contrib/*"]\n`);
    fs.writeFileSync(path.join(dir, "xr.yaml"), XR.replace("hej", "hallo"));
    const before = registry.requests.length;
    const packages = packageSettings({ cacheDir: cache, offline: false });
    const result = await runDiff({ root: dir, paths: ["."], base: "HEAD", trustBaseConfig: true, packages });
    expect(registry.requests.length).toBe(before);
    const change = result.report.changes.find((c) => c.kind === "XGreeting");
    expect(change?.status).toBe("not-rendered");
    expect(change?.notRenderedAt).toBe("head");
    // Without the base's trust, the head's own config trusts the registry: the head renders (and the base, which trusts nothing, does not).
    const headTrusted = await runDiff({ root: dir, paths: ["."], base: "HEAD", packages });
    expect(registry.requests.length).toBeGreaterThan(before);
    expect(headTrusted.report.changes.find((c) => c.kind === "XGreeting")?.notRenderedAt).toBe("base");
  });

  it("a change moving a built-in function to another version renders both versions' real packages where trusted; untrusted, the built-in, said (issue 33.5)", async () => {
    // The registry serves "function-auto-ready" (a function with a built-in) at two versions: the test's own function image.
    await pushGreetFunction(registry, "crossplane-contrib/function-auto-ready", "v0.5.0");
    await pushGreetFunction(registry, "crossplane-contrib/function-auto-ready", "v0.6.0");
    const readyAt = (tag: string) =>
      functions(reference).replace(
        "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0",
        `${registry.host}/crossplane-contrib/function-auto-ready:${tag}`,
      );
    const packages = packageSettings({ cacheDir: cache, offline: false });
    for (const trusted of [true, false]) {
      const { dir } = gitRepo({
        ...(trusted ? { ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/crossplane-contrib/*"]\n` } : {}),
        "xrd.yaml": XRD,
        "composition.yaml": COMPOSITION.replace(/    - step: greet\n      functionRef: \{name: function-greet\}\n/, ""),
        "functions.yaml": readyAt("v0.5.0"),
        "xr.yaml": XR,
      });
      fs.writeFileSync(path.join(dir, "functions.yaml"), readyAt("v0.6.0"));
      const { report } = await runDiff({ root: dir, paths: ["."], base: "HEAD", packages });
      const said = [...report.findings.new, ...report.findings.unchanged].filter((f) => f.rule === "render/builtin-version");
      expect(said).toHaveLength(1);
      if (trusted) {
        expect(said[0]).toMatchObject({
          severity: "info",
          message: expect.stringContaining(
            "moves from v0.5.0 to v0.6.0: the rendered diff for the source that uses it (XGreeting hello) comes from the real packages of both versions",
          ),
        });
        // The package ran, not the built-in: its own object is there, on both sides (so unchanged).
        expect(report.changes.find((c) => c.kind === "XGreeting")!.objects.map((o) => `${o.key}:${o.status}`)).toContain("ConfigMap/from-package:unchanged");
      } else {
        expect(said[0]!.severity).toBe("warning");
        expect(said[0]!.message).toContain("(its package was not run: it would pull and run");
      }
    }
  });
});
