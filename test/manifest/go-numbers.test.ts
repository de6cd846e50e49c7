import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { loadFile } from "../../src/manifest/load.js";
import { ptComposition } from "../fixtures/compositions.js";
import { runCli, tempRepo } from "../helpers.js";

/** Each value as go-yaml (kubectl, Helm, Argo CD, kustomize, crossplane render) reads it. */
const CASES: [string, unknown][] = [
  ["0644", 420],
  ["0o644", 420],
  ["0755", 493],
  ["08", 8],
  ["007", 7],
  ["1_000", 1000],
  ["1_0.5", 10.5],
  ["0x1F", 31],
  ["0X1f", 31],
  ["-0x1F", -31],
  ["0b11", 3],
  ["+12", 12],
  ["1.5", 1.5],
  ["1e3", 1000],
  [".5", 0.5],
  ["-.inf", -Infinity],
  ["2001-12-14", "2001-12-14"],
  ["1-2", "1-2"],
  ["'0644'", "0644"],
  ["yes", "yes"],
];

const valuesOf = (text: string) => {
  const loaded = loadFile("x.yaml", Buffer.from(text));
  expect(loaded.findings).toEqual([]);
  return (loaded.manifests[0]!.object as unknown as { v: unknown[] }).v;
};

describe("numbers are read as go-yaml reads them", () => {
  it("by both parsers (a file with an anchor takes the other one)", () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nv:\n${CASES.map(([t]) => `  - ${t}`).join("\n")}\n`;
    const expected = CASES.map(([, v]) => v);
    expect(valuesOf(text)).toEqual(expected);
    expect(valuesOf(text.replace("metadata: {name: c}", "metadata: {name: c, labels: &l {a: b}}"))).toEqual(expected);
  });

  it("a key that is a number is named and placed as the object names it (both parsers)", async () => {
    const text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: x\n  1_000: 5\n  0644: 6\n";
    for (const file of [text, text.replace("{name: c}", "{name: c, labels: &l {a: b}}")]) {
      const { stdout } = await runCli(["validate", ".", "--format", "json", "--no-cache"], tempRepo({ "cm.yaml": file }));
      const findings = (JSON.parse(stdout) as { findings: { rule: string; line: number; path: string }[] }).findings;
      expect(findings.map((f) => `${f.rule} ${f.line} ${f.path}`)).toEqual(["schema/type 6 data[1000]", "schema/type 7 data[420]"]);
    }
  });

  it("a composed Secret volume's defaultMode: 0644 renders as 420, as crossplane render prints it", async () => {
    const resources = [
      "          - name: pod",
      "            base:",
      "              apiVersion: v1",
      "              kind: Pod",
      "              spec:",
      "                containers: [{name: app, image: nginx}]",
      "                volumes: [{name: certs, secret: {secretName: certs, defaultMode: 0644}}]",
      "",
    ].join("\n");
    const dir = tempRepo({
      "composition.yaml": ptComposition("apps", "XApp", resources),
      "functions.yaml":
        "apiVersion: pkg.crossplane.io/v1beta1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n",
      "xr.yaml": "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a}\nspec: {}\n",
    });
    const { code, stdout } = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(code).toBe(0);
    const pod = YAML.parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((d) => d.kind === "Pod");
    expect(pod.spec.volumes[0].secret.defaultMode).toBe(420);
  });
});
