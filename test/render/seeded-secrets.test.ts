import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, runCli, tempRepo } from "../helpers.js";

/** Issue 35.4: sprig's keys come from a fixed seed, so render says so on stderr, and diffs mask them. */

const composition = (template: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xkeys}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XKeys}
  mode: Pipeline
  pipeline:
    - step: templates
      functionRef: {name: function-go-templating}
      input:
        apiVersion: gotemplating.fn.crossplane.io/v1beta1
        kind: GoTemplate
        source: Inline
        inline:
          template: |
            apiVersion: v1
            kind: ConfigMap
            metadata:
              annotations:
                gotemplating.fn.crossplane.io/composition-resource-name: keys
            data:
${template}
`;

const FILES = {
  "functions.yaml":
    "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-go-templating}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.10.0}\n",
  "xr.yaml": "apiVersion: example.org/v1\nkind: XKeys\nmetadata: {name: k, namespace: default}\nspec: {}\n",
};

const KEY = '              tls: {{ genPrivateKey "ecdsa" | toJson }}\n';

describe("seeded secrets", () => {
  it("render warns on stderr when it prints a private key made from the fixed seed; a plain random value is only noted", async () => {
    const dir = tempRepo({ ...FILES, "composition.yaml": composition(KEY) });
    const keyed = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(keyed.code).toBe(0);
    expect(keyed.stdout).toContain("-----BEGIN EC PRIVATE KEY-----");
    expect(keyed.stderr).toContain(
      'warning: render/function-result: step "templates": the template generated private keys from a fixed seed: the same on every machine and every run, so never use them',
    );
    fs.writeFileSync(path.join(dir, "composition.yaml"), composition("              id: {{ randAlphaNum 8 | quote }}\n"));
    const random = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(random.stderr).not.toContain("warning");
  });

  it("a private key is masked in the diff under any field name", async () => {
    const { dir } = gitRepo({ ...FILES, "composition.yaml": composition("              other: a\n") });
    fs.writeFileSync(path.join(dir, "composition.yaml"), composition(KEY));
    const { stdout } = await runCli(["diff", "--base", "HEAD", "--format", "json", "--fail-on", "never"], dir);
    expect(stdout).not.toContain("PRIVATE KEY-----");
    expect(stdout).toMatch(/tls: <masked sha256:[0-9a-f]{8}>/);
  });
});
