import { describe, expect, it, vi } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

/**
 * An unexpected exception while handling one object is an internal/error finding naming its file
 * and line, with the stack in JSON and in text with --debug; the run goes on and checks the rest.
 * The P&T input decoder is made to throw for one Composition to stand for any bug.
 */
vi.mock("../../src/render/functions/patch-and-transform/input.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/render/functions/patch-and-transform/input.js")>();
  return {
    ...real,
    decodeResources: (raw: unknown) => {
      if (JSON.stringify(raw).includes("explode-here")) throw new Error("injected failure");
      return real.decodeResources(raw);
    },
  };
});

const composition = (name: string, step: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: ${name}}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing}
  mode: Pipeline
  pipeline:
    - step: ${step}
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: ${step}
            base: {apiVersion: v1, kind: ConfigMap}
`;

describe("an unexpected exception is a finding on its object, never the end of the run", () => {
  const files = {
    "fn.yaml":
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.8.2}\n",
    "a/bad.yaml": `# a comment first\n${composition("bad", "explode-here")}`,
    "b/good.yaml": composition("good", "fine"),
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {size: 3}\n",
  };

  it("validate: internal/error at the Composition's file and line, the stack in JSON; the rest is still checked", async () => {
    const { code, stdout } = await runCli(["validate", ".", "--format", "json", "--no-cache"], tempRepo(files));
    expect(code).toBeLessThan(2);
    const findings = (JSON.parse(stdout) as { findings: { rule: string; severity: string; file?: string; line?: number; message: string; detail?: string }[] })
      .findings;
    const internal = findings.filter((f) => f.rule === "internal/error");
    expect(internal).toHaveLength(1);
    expect(internal[0]).toMatchObject({ severity: "warning", file: "a/bad.yaml", line: 2 });
    expect(internal[0]!.message).toContain("injected failure");
    expect(internal[0]!.detail).toContain("Error: injected failure");
    // The ConfigMap after it is still validated (data values must be strings).
    expect(findings.some((f) => f.file === "cm.yaml" && f.rule === "schema/type")).toBe(true);
  });

  it("text: the stack only with --debug", async () => {
    const dir = tempRepo(files);
    const plain = await runCli(["validate", ".", "--no-cache"], dir);
    expect(plain.stdout).toContain("internal/error");
    expect(plain.stdout).not.toContain("at decodeResources");
    const debug = await runCli(["validate", ".", "--no-cache", "--debug"], dir);
    expect(debug.stdout).toMatch(/Error: injected failure\n\s+at /);
  });
});
