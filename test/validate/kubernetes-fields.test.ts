import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kubernetesFieldTable } from "../../scripts/kubernetes-fields.js";
import { ptComposition } from "../fixtures/compositions.js";
import { runCli, tempRepo } from "../helpers.js";

type Finding = { rule: string; severity: string; file?: string; line?: number; column?: number; message: string };

async function validate(files: Record<string, string>): Promise<Finding[]> {
  const { stdout } = await runCli(["validate", ".", "--format", "json", "--no-cache"], tempRepo(files));
  return (JSON.parse(stdout) as { findings: Finding[] }).findings;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, lables: {a: b}}
spec:
  replica: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          resources: {limits: {cpu: 1}, requets: {}}
          env: [{name: A, valu: b}]
      nodeSelector: {any-key: x}
status: {whatever: 1}
`;

/** A version's schema (at its indentation in a CRD or XRD) whose spec misspells `required`, with these properties. */
const misspeltSpecSchema = (...properties: string[]) => [
  "      schema:",
  "        openAPIV3Schema:",
  "          type: object",
  "          properties:",
  "            spec:",
  "              type: object",
  "              requried: [size]",
  "              properties:",
  ...properties.map((p) => `                ${p}`),
];

describe("unknown fields of Kubernetes core kinds", () => {
  it("schemas/kubernetes-fields.json is what scripts/kubernetes-fields.ts writes from the installed kubernetes-models", () => {
    const committed = fs.readFileSync(path.join(import.meta.dirname, "../../schemas/kubernetes-fields.json"), "utf8");
    expect(committed).toBe(`${JSON.stringify(kubernetesFieldTable())}\n`);
  });

  it("are errors at their line with the field meant, in objects, lists and maps of objects; maps' keys and status are free", async () => {
    const findings = await validate({ "d.yaml": DEPLOYMENT });
    expect(findings.map((f) => `${f.rule} ${f.line}:${f.column} ${f.message}`)).toEqual([
      "schema/unknown-field 3:23 unknown field `metadata.lables`; did you mean `metadata.labels`?",
      "schema/unknown-field 5:3 unknown field `spec.replica`; did you mean `spec.replicas`?",
      "schema/unknown-field 13:41 unknown field `spec.template.spec.containers[0].resources.requets`; did you mean `spec.template.spec.containers[0].resources.requests`?",
      "schema/unknown-field 14:27 unknown field `spec.template.spec.containers[0].env[0].valu`; did you mean `spec.template.spec.containers[0].env[0].value`?",
    ]);
  });

  it("a CRD's schema keywords are fields too: a misspelt one, however deep (items, properties, allOf), is an unknown field", async () => {
    const crd = [
      "apiVersion: apiextensions.k8s.io/v1",
      "kind: CustomResourceDefinition",
      "metadata: {name: things.example.org}",
      "spec:",
      "  group: example.org",
      "  names: {kind: Thing, plural: things}",
      "  scope: Cluster",
      "  versions:",
      "    - name: v1",
      "      served: true",
      "      storage: true",
      ...misspeltSpecSchema(
        "size: {type: integer, minimun: 1}",
        "list: {type: array, items: {type: string, enun: [a]}}",
        "free: {type: object, x-kubernetes-preserve-unknown-fields: true, default: {anything: 1}}",
        "both: {allOf: [{type: string, maxLenght: 3}]}",
      ),
      "",
    ].join("\n");
    const findings = (await validate({ "crd.yaml": crd })).filter((f) => f.rule === "schema/unknown-field");
    expect(
      findings.map(
        (f) =>
          `${f.line} ${f.message
            .replace(/.*did you mean `(.*)`\?/, "$1")
            .split(".")
            .pop()}`,
      ),
    ).toEqual(["18 required", "20 minimum", "21 enum", "23 maxLength"]);
  });

  it("an XRD's schema keywords: a misspelt one is a warning (Crossplane drops it when it makes the CRD)", async () => {
    const xrd = [
      "apiVersion: apiextensions.crossplane.io/v2",
      "kind: CompositeResourceDefinition",
      "metadata: {name: xapps.example.org}",
      "spec:",
      "  group: example.org",
      "  names: {kind: XApp, plural: xapps}",
      "  versions:",
      "    - name: v1",
      "      served: true",
      "      referenceable: true",
      ...misspeltSpecSchema("size: {type: integer, minimum: 1, description: fine}"),
      "",
    ].join("\n");
    const findings = await validate({ "xrd.yaml": xrd });
    expect(findings.map((f) => `${f.severity} ${f.rule} ${f.line} ${f.message}`)).toEqual([
      "warning xrd/schema-keyword 17 `requried` is no schema keyword: Crossplane drops it when it makes the XR's CRD, so nothing enforces it; did you mean `required`?",
    ]);
  });

  it("free-form parts (a default, an example, RawExtension) are not walked", async () => {
    const crd =
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.example.org}\nspec:\n  group: example.org\n  names: {kind: Thing, plural: things}\n  scope: Cluster\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, default: {anything: 1}}}}}\n";
    expect((await validate({ "crd.yaml": crd })).filter((f) => f.rule === "schema/unknown-field")).toEqual([]);
  });

  it("a composed Deployment's base is checked at its own line, though no Deployment is in the repository", async () => {
    const resources =
      "          - name: d\n            base:\n              apiVersion: apps/v1\n              kind: Deployment\n              spec:\n                replica: 3\n              status: {replicas: 0}\n";
    const findings = await validate({ "composition.yaml": ptComposition("c", "XApp", resources) });
    expect(findings.filter((f) => f.rule === "schema/unknown-field").map((f) => `${f.line} ${f.message}`)).toEqual([
      "19 composed Deployment base: unknown field `spec.replica`; did you mean `spec.replicas`?",
    ]);
  });
});
