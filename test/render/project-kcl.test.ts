import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as TOML from "smol-toml";
import * as YAML from "yaml";
import { breakEntrypoints, REPO, runCli, tempRepo } from "../helpers.js";
import { XAPP_EXAMPLE, XAPP_XRD, projectComposition } from "../fixtures/project.js";
import { layer, TestRegistry } from "../oci/registry-server.js";

/**
 * Issue 36: a project's KCL function renders without a build, as the CLI's KCL builder makes it
 * (crossplane/cli internal/project/functions/kcl.go: the function-kcl base image with the folder
 * at /src, FUNCTION_KCL_DEFAULT_SOURCE and KCL_PKG_PATH naming it). The base here is an image on a
 * registry on 127.0.0.1 (the project's imageConfigs rewrite the CLI's base to it), whose
 * entrypoint is a RunFunction server written for the test: it reports the source it was pointed
 * at, whether it could write there, and which of the runner's variables it saw.
 */

const require = createRequire(import.meta.url);
const GRPC = pathToFileURL(require.resolve("@grpc/grpc-js")).href;
const SDK = pathToFileURL(path.join(REPO, "node_modules/@crossplane-org/function-sdk-typescript/dist/index.js")).href;

const FAKE_KCL = `#!${process.execPath}
(async () => {
  const fs = await import("node:fs");
  const grpcModule = await import(${JSON.stringify(GRPC)});
  const grpc = grpcModule.default ?? grpcModule;
  const sdk = await import(${JSON.stringify(SDK)});
  const address = process.argv.find((a) => a.startsWith("--address=")).slice("--address=".length);
  const server = new grpc.Server();
  const v1 = sdk.FunctionRunnerServiceService.runFunction;
  const handler = (call, callback) => {
    const src = process.env.FUNCTION_KCL_DEFAULT_SOURCE;
    // The modes, not a write: a runner as root writes through them (into the copy, never the repository).
    const writable = (fs.statSync(src).mode & 0o222) || (fs.statSync(src + "/main.k").mode & 0o222) ? "yes" : "no";
    try { fs.writeFileSync(src + "/written.k", "x = 1\\n"); } catch {}
    const modules = fs.readdirSync(src).filter((n) => n.includes("_") && fs.statSync(src + "/" + n).isDirectory()).sort().join(",");
    const lock = fs.existsSync(src + "/kcl.mod.lock") ? fs.readFileSync(src + "/kcl.mod.lock", "utf8") : "";
    const rsp = sdk.to(call.request);
    rsp.desired.resources["from-kcl"] = {
      resource: { apiVersion: "v1", kind: "ConfigMap", data: {
        main: fs.readFileSync(src + "/main.k", "utf8"),
        pkgPathIsSource: String(process.env.KCL_PKG_PATH === src),
        writable,
        token: process.env.GITHUB_TOKEN ?? "absent",
        size: String(call.request.observed?.composite?.resource?.spec?.size ?? ""),
        modules,
        lock,
      } },
      connectionDetails: {},
      ready: 1,
    };
    callback(null, rsp);
  };
  server.addService({ runFunction: v1 }, { runFunction: handler });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => { if (err) { console.error(err.message); process.exit(1); } });
})();
`;

const COMPOSITION = projectComposition("acme-platformcompose");

const MAIN_K = 'oxr = option("params").oxr\nitems = [{apiVersion: "v1", kind: "ConfigMap"}]\n';
type Finding = { rule: string; severity: string; message: string };

describe("a project's KCL function on the function-kcl base package", () => {
  const registry = new TestRegistry();
  let cache = "";
  const saved = { offline: process.env.COMPOSITION_CI_OFFLINE, cache: process.env.COMPOSITION_CI_CACHE, token: process.env.GITHUB_TOKEN };

  beforeAll(async () => {
    await registry.start();
    const fn = await layer([{ name: "function", content: FAKE_KCL, mode: 0o755 }]);
    const image = { layers: [{ bytes: fn, compression: "gzip" as const }], entrypoint: ["/function"] };
    registry.push("crossplane-contrib/function-kcl", "v0.12.1", { "linux/amd64": image, "linux/arm64": image });
  });
  afterAll(() => registry.stop());
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-kcl-cache-"));
    process.env.COMPOSITION_CI_OFFLINE = "0";
    process.env.COMPOSITION_CI_CACHE = cache;
    process.env.GITHUB_TOKEN = "ghs_runner-secret";
  });
  afterEach(() => {
    for (const [key, value] of Object.entries({ COMPOSITION_CI_OFFLINE: saved.offline, COMPOSITION_CI_CACHE: saved.cache, GITHUB_TOKEN: saved.token })) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  /** A Crossplane CLI project whose imageConfigs send the CLI's base images to the test registry. */
  function project(trusted: boolean, kclMod = '[package]\nname = "compose"\n') {
    const projectFile = `apiVersion: dev.crossplane.io/v1alpha1
kind: Project
metadata: {name: platform}
spec:
  repository: xpkg.example.org/acme/platform
  imageConfigs:
    - apiVersion: pkg.crossplane.io/v1beta1
      kind: ImageConfig
      metadata: {name: mirror}
      spec:
        matchImages: [{type: Prefix, prefix: xpkg.crossplane.io/crossplane-contrib}]
        rewriteImage: {prefix: ${registry.host}/crossplane-contrib}
`;
    return tempRepo({
      ...(trusted ? { ".composition-ci.yaml": `functions:\n  trusted: ["${registry.host}/crossplane-contrib/function-kcl"]\n` } : {}),
      "crossplane-project.yaml": projectFile,
      "apis/xrd.yaml": XAPP_XRD,
      "apis/composition.yaml": COMPOSITION,
      "functions/compose/kcl.mod": kclMod,
      "functions/compose/main.k": MAIN_K,
      "examples/xr.yaml": XAPP_EXAMPLE,
    });
  }

  it("runs the trusted base with a private copy of the folder as its source (kpm writes there), and none of the runner's secrets", async () => {
    const dir = project(true);
    const { stdout, stderr, code } = await runCli(["render", "--all", "."], dir);
    expect(stderr).not.toContain("not rendered");
    expect(code).toBe(0);
    const made = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d?.kind === "ConfigMap");
    expect(made?.data).toEqual({ main: MAIN_K, pkgPathIsSource: "true", writable: "yes", token: "absent", size: "large", modules: "", lock: "" });
    expect(fs.readdirSync(path.join(dir, "functions/compose")).sort()).toEqual(["kcl.mod", "main.k"]);
  });

  it("a second run answers from the kept response; a change in the folder is a new request (issue 38)", async () => {
    const dir = project(true);
    const made = (stdout: string) =>
      YAML.parseAllDocuments(stdout)
        .map((d) => d.toJS())
        .find((d) => d?.kind === "ConfigMap");
    const first = await runCli(["render", "--all", "."], dir);
    expect(made(first.stdout)?.data.main).toBe(MAIN_K);
    breakEntrypoints(cache);
    const second = await runCli(["render", "--all", "."], dir);
    expect(second.stderr).not.toContain("not rendered");
    expect(second.stdout).toBe(first.stdout);
    fs.writeFileSync(path.join(dir, "functions/compose/main.k"), `${MAIN_K}# changed\n`);
    const third = await runCli(["render", "--all", "."], dir);
    expect(made(third.stdout)).toBeUndefined();
    expect(third.stderr).toMatch(/failed|exit/);
  });

  it("a function with a dependency kpm fetches itself (git) is run each time: what it fetches may change unseen", async () => {
    const dir = project(true, `[package]\nname = "compose"\n\n[dependencies]\nhelpers = { git = "https://github.com/acme/helpers", tag = "v1" }\n`);
    const first = await runCli(["render", "--all", "."], dir);
    expect(first.stderr).toContain("rendered 1 of 1 sources");
    breakEntrypoints(cache);
    const second = await runCli(["render", "--all", "."], dir);
    expect(second.stderr).not.toContain("rendered 1 of 1 sources");
  });

  it("functions pull fills the cache with the base, and an --offline run needs nothing else", async () => {
    const dir = project(true);
    const pull = await runCli(["functions", "pull", "."], dir);
    expect(pull.stderr).toContain(`acme-platformcompose (project function, base): ${registry.host}/crossplane-contrib/function-kcl:v0.12.1`);
    const before = registry.requests.length;
    const { stderr } = await runCli(["render", "--all", ".", "--offline"], dir);
    expect(stderr).toContain("rendered 1 of 1 sources");
    expect(registry.requests.length).toBe(before);
  });

  it("kcl.mod's modules: functions pull caches them (and theirs); offline they are where kpm looks, their checksums in kcl.mod.lock", async () => {
    const oci = (name: string, tag: string) => `{ oci = "oci://${registry.host}/kcl-lang/${name}", tag = "${tag}" }`;
    const dir = project(true, `[package]\nname = "compose"\n\n[dependencies]\nbase = ${oci("base", "0.1.0")}\n`);
    const notRendered = async (...flags: string[]) => {
      const { stdout } = await runCli(["check", ".", "--format", "json", ...flags], dir);
      return (JSON.parse(stdout) as { findings: Finding[] }).findings.find((f) => f.rule === "render/not-rendered")?.message ?? "";
    };
    // Not in the registry yet: the module is named, with the registry's answer.
    expect(await notRendered()).toMatch(
      new RegExp(`needs the KCL module ${registry.host}/kcl-lang/base:0.1.0 \\(kcl.mod\\), which could not be pulled: .*404`),
    );

    const baseMod = `[package]\nname = "base"\nversion = "0.1.0"\n\n[dependencies]\nleaf = ${oci("leaf", "1.0.0")}\n`;
    const leafFiles = { "kcl.mod": '[package]\nname = "leaf"\nversion = "1.0.0"\n', "main.k": "leaf = 1\n" };
    const tar = (files: Record<string, string>) =>
      layer(
        Object.entries(files).map(([name, content]) => ({ name, content })),
        "none",
      );
    registry.pushArtifact("kcl-lang/base", "0.1.0", await tar({ "kcl.mod": baseMod, "main.k": "base = 1\n" }), "none", {
      "org.kcllang.package.sum": "sum-from-the-registry=",
    });
    registry.pushArtifact("kcl-lang/leaf", "1.0.0", await tar(leafFiles), "none", {});
    const pull = await runCli(["functions", "pull", "."], dir);
    expect(pull.stderr).toContain(`acme-platformcompose (project function, kcl.mod): ${registry.host}/kcl-lang/base:0.1.0@sha256:`);
    expect(pull.stderr).toContain(`${registry.host}/kcl-lang/leaf:1.0.0@sha256:`);
    expect(pull.stderr).toMatch(/1 function package, 2 KCL modules and 0 package schemas in /);

    const before = registry.requests.length;
    const { stdout, stderr } = await runCli(["render", "--all", ".", "--offline"], dir);
    expect(stderr).toContain("rendered 1 of 1 sources");
    expect(registry.requests.length).toBe(before);
    const data = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d?.kind === "ConfigMap")?.data;
    expect(data.modules).toBe("base_0.1.0,leaf_1.0.0");
    const lock = TOML.parse(data.lock) as { dependencies: Record<string, Record<string, string>> };
    // kpm's checksum of a directory: its files' contents in lexical order, SHA-256, base64 (the registry's annotation when it has one).
    const leafSum = createHash("sha256").update(leafFiles["kcl.mod"]).update(leafFiles["main.k"]).digest("base64");
    expect(lock.dependencies).toEqual({
      base: {
        name: "base",
        full_name: "base_0.1.0",
        version: "0.1.0",
        sum: "sum-from-the-registry=",
        reg: registry.host,
        repo: "kcl-lang/base",
        oci_tag: "0.1.0",
      },
      leaf: { name: "leaf", full_name: "leaf_1.0.0", version: "1.0.0", sum: leafSum, reg: registry.host, repo: "kcl-lang/leaf", oci_tag: "1.0.0" },
    });
    expect(fs.readdirSync(path.join(dir, "functions/compose")).sort()).toEqual(["kcl.mod", "main.k"]);
  });

  it("offline, a module the cache lacks and a git dependency are not rendered, each named with the fix", async () => {
    const missing = project(true, `[package]\nname = "compose"\n\n[dependencies]\nk8s = "1.31"\n`);
    await runCli(["functions", "pull", "."], missing); // the base; ghcr.io is not asked for in an --offline run
    const offline = await runCli(["check", ".", "--format", "json", "--offline"], missing);
    const message = (JSON.parse(offline.stdout) as { findings: Finding[] }).findings.find((f) => f.rule === "render/not-rendered")?.message;
    expect(message).toContain("needs the KCL module ghcr.io/kcl-lang/k8s:1.31 (kcl.mod), which is not in the package cache");
    expect(message).toContain("run `composition-ci functions pull` where the registry can be reached");
    const git = project(true, `[package]\nname = "compose"\n\n[dependencies]\nhelpers = { git = "https://github.com/acme/helpers", tag = "v1" }\n`);
    await runCli(["functions", "pull", "."], git);
    const fromGit = await runCli(["check", ".", "--format", "json", "--offline"], git);
    expect((JSON.parse(fromGit.stdout) as { findings: Finding[] }).findings.find((f) => f.rule === "render/not-rendered")?.message).toContain(
      "depends on helpers (https://github.com/acme/helpers) in kcl.mod, which function-kcl fetches from the network itself: an --offline run cannot have it",
    );
  });

  it("untrusted, nothing is pulled and the warning names the base and the one line that trusts it", async () => {
    const before = registry.requests.length;
    const { stdout } = await runCli(["check", ".", "--format", "json"], project(false));
    const finding = (JSON.parse(stdout) as { findings: Finding[] }).findings.find((f) => f.rule === "render/not-rendered");
    expect(finding?.severity).toBe("warning");
    expect(finding?.message).toContain(
      `is a KCL function of the project crossplane-project.yaml, built from functions/compose/: it runs on ${registry.host}/crossplane-contrib/function-kcl:v0.12.1`,
    );
    expect(finding?.message).toContain(`functions: {trusted: ["${registry.host}/crossplane-contrib/function-kcl"]}`);
    expect(registry.requests.length).toBe(before);
  });
});
