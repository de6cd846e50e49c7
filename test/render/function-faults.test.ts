import { Worker } from "node:worker_threads";
import { describe, expect, it, vi } from "vitest";
import { ModuleRuntime } from "../../src/render/runner/module.js";
import { runCli, tempRepo } from "../helpers.js";

/** Functions that misbehave are findings that say how, quickly, and the same on every run. */

const repo = (config: string, files: Record<string, string> = {}) => ({
  "xrd.yaml": `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions:
    - {name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}
`,
  "composition.yaml": `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xapps}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
    - step: custom
      functionRef: {name: custom}
`,
  "xr.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a, namespace: default}\nspec: {}\n",
  ".composition-ci.yaml": `functions:\n  custom: ${config}\n`,
  ...files,
});

async function check(files: Record<string, string>, ...flags: string[]) {
  const dir = tempRepo(files);
  const started = performance.now();
  const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache", "--allow-exec", ...flags], dir);
  const findings = (JSON.parse(stdout) as { findings: { rule: string; severity: string; message: string }[] }).findings.filter((f) =>
    f.rule.startsWith("render/"),
  );
  return { findings, ms: performance.now() - started, dir };
}

describe("function faults", () => {
  it("a module function in an endless loop is stopped at the timeout", async () => {
    // timed: each call of the function, from its start until it fails (not the whole run, whose start-up load slows)
    const calls: { ms: number; stopped: number }[] = [];
    const terminate = vi.spyOn(Worker.prototype, "terminate");
    const run = ModuleRuntime.prototype.run;
    const spy = vi.spyOn(ModuleRuntime.prototype, "run").mockImplementation(async function (this: ModuleRuntime, ...args) {
      const call = { ms: 0, stopped: 0 };
      calls.push(call);
      const started = performance.now();
      try {
        return await run.apply(this, args);
      } finally {
        call.ms = performance.now() - started;
        call.stopped = terminate.mock.calls.length;
      }
    });
    try {
      const { findings } = await check(repo("{ module: loop.mjs }", { "loop.mjs": "export default function () { for (;;) {} }\n" }), "--timeout", "1s");
      expect(findings.map((f) => `${f.severity} ${f.rule}`)).toEqual(["error render/function-failed"]);
      expect(findings[0]!.message).toContain("function custom timed out after 1s (the module's worker was stopped)");
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        // near the 1s asked for (the default is 60s), and the worker terminated by then
        expect(call.ms).toBeGreaterThanOrEqual(990);
        expect(call.ms).toBeLessThan(3_000);
        expect(call.stopped).toBeGreaterThan(0);
      }
    } finally {
      spy.mockRestore();
      terminate.mockRestore();
    }
  }, 20_000);

  it("a response of the wrong shape is render/function-failed, not an internal error", async () => {
    const { findings } = await check(
      repo("{ module: nope.mjs }", { "nope.mjs": "export default function (req, rsp) { return { ...rsp, results: 'nope' }; }\n" }),
    );
    expect(findings.map((f) => f.rule)).toEqual(["render/function-failed"]);
    expect(findings[0]!.message).toContain("malformed RunFunctionResponse: results is not a list of results");
  });

  it("a process that exits at once or a missing binary is found at once, not after the start timeout", async () => {
    for (const command of ["[sh, -c, 'echo boom >&2; exit 3']", "[/no/such/binary]"]) {
      const { findings, ms } = await check(repo(`{ command: ${command}, startTimeout: 60 }`));
      expect(ms).toBeLessThan(10_000);
      expect(findings.map((f) => f.rule)).toEqual(["render/function-failed"]);
      expect(findings[0]!.message).toMatch(/exited with code 3 before it was ready|could not start: spawn \/no\/such\/binary ENOENT/);
    }
  }, 30_000);

  it("findings carry no wall-clock time: two runs print the same bytes", async () => {
    const files = repo("{ module: loop.mjs }", { "loop.mjs": "export default function () { for (;;) {} }\n" });
    const dir = tempRepo(files);
    const run = () => runCli(["check", ".", "--format", "json", "--no-cache", "--allow-exec", "--timeout", "500ms"], dir);
    expect((await run()).stdout).toBe((await run()).stdout);
  }, 20_000);
});

describe("a module function that does not load", () => {
  it("a syntax error is render/function-failed naming the module's file and line, with no stack (not a crash, not an internal error)", async () => {
    const { findings } = await check(repo("{ module: bad.mjs }", { "bad.mjs": "export default function (req, rsp) {\n  return { ...rsp };\n}\nconst = 3;\n" }));
    expect(findings.map((f) => `${f.severity} ${f.rule}`)).toEqual(["error render/function-failed"]);
    expect(findings[0]!.message).toMatch(/cannot load module \S*bad\.mjs:4: SyntaxError: Unexpected token '='/);
    expect(findings[0]!.message).not.toMatch(/crashed|\n\s+at /);
  });
});
