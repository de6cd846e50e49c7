import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { tempRepo } from "../helpers.js";

/** Kyma's buildless serverless Function (issue 37), each rule with a failing and a passing fixture. */

async function kyma(yaml: string) {
  const result = await validateRepo({ root: tempRepo({ "fn.yaml": yaml }), paths: ["."], config: emptyConfig(), cacheDir: null });
  return result.findings.filter((f) => f.rule.startsWith("kyma/")).map((f) => `${f.line} ${f.severity} ${f.rule}: ${f.message}`);
}

const fn = (runtime: string, source: string, extra = "", dependencies = "") => `apiVersion: serverless.kyma-project.io/v1alpha2
kind: Function
metadata: {name: hello}
spec:
  runtime: ${runtime}
${extra}  source:
    inline:
${dependencies}      source: |
${source
  .split("\n")
  .map((l) => `        ${l}`)
  .join("\n")}
`;

const NODE = "module.exports = {\n  main: async function (event, context) {\n    return 'hi';\n  }\n};";
const hasPython = !spawnSync("python3", ["--version"]).error;

describe("Kyma Function", () => {
  it("a syntax error in the inline JavaScript is an error at the source, naming its line; a handler that compiles passes", async () => {
    expect(await kyma(fn("nodejs22", NODE))).toEqual([]);
    const broken = await kyma(fn("nodejs22", "module.exports = {\n  main: async function (event {\n  }\n};"));
    expect(broken).toEqual([
      expect.stringMatching(/^8 error kyma\/source-syntax: the inline JavaScript does not compile \(line 2 of the source\): SyntaxError: /),
    ]);
    // An ES module handler compiles as one.
    expect(await kyma(fn("nodejs24", "export async function main(event, context) {\n  return 'hi';\n}"))).toEqual([]);
  });

  it("a handler without main is an error; package.json dependencies must parse", async () => {
    expect(await kyma(fn("nodejs22", "module.exports = { handle() {} };"))).toEqual([
      "8 error kyma/handler: the inline source exports no main: the Node.js runtime calls module.exports.main (or an exported main)",
    ]);
    const deps = (text: string) => `      dependencies: '${text}'\n`;
    expect(await kyma(fn("nodejs22", NODE, "", deps('{"name": "x", "dependencies": {}}')))).toEqual([]);
    expect((await kyma(fn("nodejs22", NODE, "", deps('{"name": "x",')))).map((f) => f.split(":")[0])).toEqual(["8 error kyma/dependencies"]);
  });

  it.skipIf(!hasPython)("Python: compiled with ast.parse (never run) and defines main", async () => {
    expect(await kyma(fn("python312", "def main(event, context):\n    return 'hi'"))).toEqual([]);
    expect(await kyma(fn("python312", "def main(event, context)\n    return 'hi'"))).toEqual([
      expect.stringMatching(/^8 error kyma\/source-syntax: the inline Python does not compile \(line 1 of the source\): /),
    ]);
    expect(await kyma(fn("python312", "def handler(event, context):\n    return 'hi'"))).toEqual([
      "8 error kyma/handler: the inline source defines no main: the Python runtime calls def main(event, context)",
    ]);
  });

  it("runtimes: nodejs20 deprecated, older ones a warning (an older release may run them); reserved env names; source, mounts and resources", async () => {
    expect(await kyma(fn("nodejs20", NODE))).toEqual([
      "5 warning kyma/runtime: runtime nodejs20 is deprecated in Kyma serverless: move to nodejs22 or nodejs24",
    ]);
    expect(await kyma(fn("nodejs16", NODE))).toEqual([
      "5 warning kyma/runtime: runtime nodejs16 is not one current Kyma serverless runs (nodejs22, nodejs24, python312; nodejs20 deprecated); an older release may",
    ]);
    const extra = `  env:
    - {name: FUNC_PORT, value: "8080"}
    - {name: GREETING, value: hi}
  secretMounts:
    - {secretName: creds, mountPath: /a}
    - {secretName: creds, mountPath: /b}
  resourceConfiguration:
    function:
      resources:
        requests: {cpu: 500m, memory: 256Mi}
        limits: {cpu: 250m, memory: 1Gi}
`;
    expect(await kyma(fn("nodejs22", NODE, extra))).toEqual([
      "7 error kyma/env: FUNC_PORT is reserved by the runtime and cannot be used (reserved: FUNC_RUNTIME, FUNC_HANDLER, FUNC_PORT, FUNC_HANDLER_SOURCE, FUNC_HANDLER_DEPENDENCIES, MOD_NAME, NODE_PATH, PYTHONPATH)",
      '11 error kyma/secret-mounts: secretName "creds" is used by secretMounts[0] too: each secret and each path is mounted once',
      "16 error kyma/resources: the cpu limit 250m is below the request 500m: the Function's Deployment would be refused",
    ]);
    const both =
      "apiVersion: serverless.kyma-project.io/v1alpha2\nkind: Function\nmetadata: {name: h}\nspec:\n  runtime: nodejs22\n  source:\n    gitRepository: {url: https://example.org/r.git, baseDir: /, reference: main}\n    inline: {source: 'module.exports = {main() {}}'}\n";
    expect(await kyma(both)).toEqual([
      "6 error kyma/source: Use GitRepository or Inline source: exactly one of spec.source.inline and spec.source.gitRepository",
    ]);
  });
});

describe("Kyma Function's built-in schema (kyma-project/serverless's CRD)", () => {
  it("is checked against the CRD; a runtime an older release ran is the rule's warning, not the enum's error", async () => {
    const result = async (yaml: string) =>
      (await validateRepo({ root: tempRepo({ "fn.yaml": yaml }), paths: ["."], config: emptyConfig(), cacheDir: null })).findings
        .filter((f) => f.severity !== "info")
        .map((f) => `${f.severity} ${f.rule}`);
    expect(await result(fn("nodejs16", NODE))).toEqual(["warning kyma/runtime"]);
    expect(await result(fn("nodejs22", NODE, "  replicas: -1\n"))).toEqual(["error schema/limit"]);
    expect(await result(fn("nodejs22", NODE))).toEqual([]);
  });
});
