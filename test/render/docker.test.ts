import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { REPO, runCli, tempRepo } from "../helpers.js";

/**
 * The Docker runtime (chosen by the runtime annotation: a trusted package otherwise runs without
 * Docker, test/render/package-runtime.test.ts) against a stand-in `docker` CLI on PATH: it records every call, and `start`
 * runs a real gRPC function server (the built-in auto-ready, served by dist/cli.js) on the port
 * the runtime published, so the runtime's whole protocol (version, pull policy, create with the
 * port and --insecure, start, calls over gRPC, stop and rm) is exercised with no Docker engine.
 */

const FAKE_DOCKER = `#!/usr/bin/env node
const fs = require("fs");
const { spawn } = require("child_process");
const dir = __dirname;
const state = fs.existsSync(dir + "/state.json") ? JSON.parse(fs.readFileSync(dir + "/state.json", "utf8")) : { images: [], containers: {} };
const save = () => fs.writeFileSync(dir + "/state.json", JSON.stringify(state));
const args = process.argv.slice(2);
fs.appendFileSync(dir + "/calls.log", args.join(" ") + "\\n");
const [cmd, ...rest] = args;
if (process.env.FAKE_DOCKER_DOWN) { process.stderr.write("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\\n"); process.exit(1); }
if (cmd === "version") { console.log("27.3.1"); process.exit(0); }
if (cmd === "image") { const image = rest.at(-1); if (state.images.includes(image)) { console.log("sha256:1"); process.exit(0); } process.stderr.write("Error: No such image: " + image + "\\n"); process.exit(1); }
if (cmd === "pull") { state.images.push(rest[0]); save(); process.exit(0); }
if (cmd === "create") {
  const image = rest[2];
  if (!state.images.includes(image)) { process.stderr.write("Unable to find image '" + image + "' locally\\n"); process.exit(1); }
  const port = rest[1].split(":")[1];
  const id = "c" + Object.keys(state.containers).length;
  state.containers[id] = { image, port, args: rest.slice(3) }; save(); console.log(id); process.exit(0);
}
if (cmd === "start") {
  const c = state.containers[rest[0]];
  const child = spawn(process.execPath, [${JSON.stringify(path.join(REPO, "dist/cli.js"))}, "function", "serve", "function-auto-ready", "--address", "127.0.0.1:" + c.port, ...c.args], { detached: true, stdio: "ignore" });
  child.unref(); c.pid = child.pid; save(); process.exit(0);
}
if (cmd === "stop") { const c = state.containers[rest[0]]; try { process.kill(c.pid); } catch {} c.stopped = true; save(); process.exit(0); }
if (cmd === "rm") { delete state.containers[rest[0]]; save(); process.exit(0); }
if (cmd === "logs") { console.log("function-auto-ready: serving"); process.exit(0); }
process.stderr.write("fake docker: unknown command " + cmd + "\\n"); process.exit(1);
`;

const IMAGE = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready-fork:v0.1.0";

function fakeDocker(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-docker-"));
  fs.writeFileSync(path.join(dir, "docker"), FAKE_DOCKER, { mode: 0o755 });
  return dir;
}

function repo(annotations: string): string {
  return tempRepo({
    "xr.yaml": "apiVersion: example.org/v1\nkind: XThing\nmetadata: { name: one }\nspec: {}\n",
    "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: { name: things }
spec:
  compositeTypeRef: { apiVersion: example.org/v1, kind: XThing }
  mode: Pipeline
  pipeline:
  - step: ready
    functionRef: { name: function-ready-fork }
`,
    "functions.yaml": `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-ready-fork
  annotations: {render.crossplane.io/runtime: Docker${annotations ? `, ${annotations}` : ""}}
spec: { package: ${IMAGE} }
`,
  });
}

const saved = process.env.PATH;
afterEach(() => {
  process.env.PATH = saved;
  delete process.env.FAKE_DOCKER_DOWN;
});

const render = (dir: string, ...extra: string[]) => runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", ...extra], dir);

describe("the Docker runtime (a stand-in docker CLI)", () => {
  it("pulls when absent, publishes 9443 on 127.0.0.1 with --insecure, calls over gRPC, then stops and removes the container", async () => {
    const bin = fakeDocker();
    process.env.PATH = `${bin}${path.delimiter}${saved}`;
    const { code, stdout, stderr } = await render(repo(""), "--allow-exec");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const [xr] = YAML.parseAllDocuments(stdout).map((d) => d.toJS());
    expect(xr.status.conditions.find((c: { type: string }) => c.type === "Ready")).toMatchObject({ type: "Ready", reason: "Available" });
    const calls = fs.readFileSync(path.join(bin, "calls.log"), "utf8").trim().split("\n");
    expect(calls[0]).toBe("version --format {{.Server.Version}}");
    expect(calls[1]).toBe(`image inspect --format {{.Id}} ${IMAGE}`);
    expect(calls[2]).toBe(`pull ${IMAGE}`);
    expect(calls[3]).toMatch(new RegExp(`^create --publish 127\\.0\\.0\\.1:\\d+:9443/tcp ${IMAGE.replace(/[.]/g, "\\.")} --insecure$`));
    expect(calls.slice(4)).toEqual(["start c0", "stop c0", "rm c0"]);
  }, 30_000);

  it("honours the image, pull-policy and cleanup annotations", async () => {
    const bin = fakeDocker();
    process.env.PATH = `${bin}${path.delimiter}${saved}`;
    const annotations = `render.crossplane.io/runtime-docker-image: "${IMAGE}-local", render.crossplane.io/runtime-docker-pull-policy: Always, render.crossplane.io/runtime-docker-cleanup: Stop`;
    expect((await render(repo(annotations), "--allow-exec")).code).toBe(0);
    const calls = fs.readFileSync(path.join(bin, "calls.log"), "utf8").trim().split("\n");
    expect(calls[1]).toBe(`pull ${IMAGE}-local`);
    expect(calls.at(-1)).toBe("stop c0");
    const state = JSON.parse(fs.readFileSync(path.join(bin, "state.json"), "utf8"));
    expect(Object.keys(state.containers)).toEqual(["c0"]);
    const never = await render(repo("render.crossplane.io/runtime-docker-pull-policy: Never"), "--allow-exec");
    expect(never.code).toBe(1);
    expect(never.stderr).toContain("cannot start a container");
    const bad = await render(repo("render.crossplane.io/runtime-docker-cleanup: Sometimes"), "--allow-exec");
    expect(bad.stderr).toContain('unsupported "render.crossplane.io/runtime-docker-cleanup" annotation value "Sometimes" (unknown cleanup policy)');
  }, 30_000);

  it("is refused without --allow-exec, and an engine that does not answer is a clear finding", async () => {
    const bin = fakeDocker();
    process.env.PATH = `${bin}${path.delimiter}${saved}`;
    const refused = await render(repo(""));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("which needs Docker and --allow-exec. To render it: run with --allow-exec");
    expect(fs.existsSync(path.join(bin, "calls.log"))).toBe(false);
    process.env.FAKE_DOCKER_DOWN = "1";
    const down = await render(repo(""), "--allow-exec");
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(", and no Docker engine answers (Cannot connect to the Docker daemon");
  }, 30_000);
});
