import * as jsyaml from "js-yaml";
import * as YAML from "yaml";
import { describe, expect, it } from "vitest";
import { yaml11ScalarsOfDocuments, yaml11ScalarsOfEvents } from "../../src/manifest/yaml11.js";
import { ptComposition } from "../fixtures/compositions.js";
import { xrd } from "../fixtures/nested-xrs.js";
import { runCli, tempRepo } from "../helpers.js";

type Finding = { rule: string; severity: string; file?: string; line?: number; column?: number; message: string };

async function validate(files: Record<string, string>): Promise<Finding[]> {
  const { stdout } = await runCli(["validate", ".", "--format", "json", "--no-cache"], tempRepo(files));
  return (JSON.parse(stdout) as { findings: Finding[] }).findings;
}

describe("plain yes/no/on/off: a string to YAML 1.2, a boolean to YAML 1.1", () => {
  it("notes every such plain scalar with its JSON pointer, keys and flow collections included, and nothing quoted or tagged", () => {
    const text = ["a: yes", "b: 'no'", "c: !!str on", "d: [on, Off, true, x]", "e:", "  - {f: N, g: n0}", "  - NO: 1", "h/i~j: y", "---", "k: OFF"].join("\n");
    const expected = [
      { docIndex: 0, pointer: "/a", text: "yes", key: false },
      { docIndex: 0, pointer: "/d/0", text: "on", key: false },
      { docIndex: 0, pointer: "/d/1", text: "Off", key: false },
      { docIndex: 0, pointer: "/e/0/f", text: "N", key: false },
      { docIndex: 0, pointer: "/e/1/NO", text: "NO", key: true },
      { docIndex: 0, pointer: "/h~1i~0j", text: "y", key: false },
      { docIndex: 1, pointer: "/k", text: "OFF", key: false },
    ];
    expect(yaml11ScalarsOfEvents(jsyaml.parseEvents(text, {}), text)).toEqual(expected);
    expect(yaml11ScalarsOfDocuments(YAML.parseAllDocuments(text) as YAML.Document.Parsed[])).toEqual(expected);
  });

  it("a string field: kubectl would send a boolean the API server refuses (warning at the value)", async () => {
    const findings = await validate({
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  labels: {enabled: on}\ndata:\n  debug: yes\n  quoted: 'yes'\n  real: 'true'\n",
    });
    expect(findings.map((f) => `${f.severity} ${f.rule} ${f.line}:${f.column}`)).toEqual([
      "warning yaml/ambiguous-boolean 5:12",
      "warning yaml/ambiguous-boolean 7:3",
    ]);
    expect(findings[1]!.message).toMatch(/`yes` is the boolean true to kubectl.*which this field refuses.*`data.debug` must be a string.*quote it \("yes"\)/);
  });

  it("a boolean field: one warning that says to write true, instead of a type error kubectl users never see", async () => {
    const deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  paused: yes\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";
    const findings = await validate({ "d.yaml": deployment });
    expect(findings.map((f) => `${f.severity} ${f.rule} ${f.line}`)).toEqual(["warning yaml/ambiguous-boolean 5"]);
    expect(findings[0]!.message).toMatch(/the string "yes" to kustomize and Flux.*refuses.*write true/);
    // Written as true, nothing; written as a word YAML 1.1 does not read as a boolean, still the type error.
    expect(await validate({ "d.yaml": deployment.replace("paused: yes", "paused: true") })).toEqual([]);
    expect((await validate({ "d.yaml": deployment.replace("paused: yes", "paused: sure") })).map((f) => f.rule)).toEqual(["schema/type"]);
  });

  it("where no schema says which is meant: a warning to quote it or write the boolean; a key too", async () => {
    const findings = await validate({
      "x.yaml": "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  flag: on\n  on: 1\nstatus: {ready: no}\n",
    });
    expect(findings.map((f) => `${f.rule} ${f.line}`)).toEqual(["schema/missing 2", "yaml/ambiguous-boolean 5", "yaml/ambiguous-boolean 6"]);
    expect(findings[1]!.message).toMatch(/quote it \("on"\) for the string, or write true/);
    expect(findings[2]!.message).toMatch(/the key `on` is "on" to kustomize and Flux \(YAML 1.2\) and "true" to kubectl/);
  });

  it("files read by the other parser (anchors) and items of a List are placed too", async () => {
    const list = "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n    data: {x: off}\n";
    const anchored = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: &l {team: x}}\ndata:\n  z: n\n";
    const findings = await validate({ "list.yaml": list, "anchored.yaml": anchored });
    expect(findings.map((f) => `${f.file} ${f.rule} ${f.line}:${f.column}`)).toEqual([
      "anchored.yaml yaml/ambiguous-boolean 5:3",
      "list.yaml yaml/ambiguous-boolean 7:12",
    ]);
  });

  const BUCKET_CRD = [
    "apiVersion: apiextensions.k8s.io/v1",
    "kind: CustomResourceDefinition",
    "metadata: {name: buckets.s.example.org}",
    "spec:",
    "  group: s.example.org",
    "  names: {kind: Bucket, plural: buckets}",
    "  scope: Cluster",
    "  versions:",
    "    - name: v1",
    "      served: true",
    "      storage: true",
    "      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {public: {type: boolean}, replicas: {type: integer}, name: {type: string}, tags: {type: object, additionalProperties: {type: string}}}}}}}",
    "",
  ].join("\n");

  it("a composed resource's base: its own schema decides, once, in place of the Composition's undecided warning", async () => {
    const resources =
      "          - name: b\n            base:\n              apiVersion: s.example.org/v1\n              kind: Bucket\n              spec:\n                public: yes\n                replicas: yes\n                name: yes\n                tags: {a: on}\n";
    const findings = await validate({
      "composition.yaml": ptComposition("c", "XThing", resources),
      "xrd.yaml": xrd("XThing", "xthings"),
      "crd.yaml": BUCKET_CRD,
    });
    const mine = findings.filter((f) => f.file === "composition.yaml" && f.rule !== "composition/function-missing");
    expect(mine.map((f) => `${f.rule} ${f.line}`)).toEqual([
      "yaml/ambiguous-boolean 19",
      "schema/type 20",
      "yaml/ambiguous-boolean 21",
      "yaml/ambiguous-boolean 22",
    ]);
    expect(mine[0]!.message).toMatch(/^composed Bucket base: `yes` is the string "yes" to kustomize.*write true$/);
    expect(mine[2]!.message).toMatch(/^composed Bucket base: `yes` is the boolean true to kubectl.*quote it \("yes"\)$/);
    expect(mine[3]!.message).toMatch(/^composed Bucket base: `on` is the boolean true to kubectl.*refuses/);
  });

  it("a base's metadata, which the function input's schema types too, gets one warning: its own kind's", async () => {
    const resources = "          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap, metadata: {labels: {a: on}}}\n";
    const findings = await validate({ "composition.yaml": ptComposition("c", "XThing", resources), "xrd.yaml": xrd("XThing", "xthings") });
    const mine = findings.filter((f) => f.rule === "yaml/ambiguous-boolean");
    expect(mine.map((f) => `${f.line} ${f.message.slice(0, 30)}`)).toEqual(["15 composed ConfigMap base: `on` "]);
  });

  it("a key that is itself yes/no/on/off: its value is judged where the YAML 1.1 reading puts it", async () => {
    const findings = await validate({ "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {on: yes, x: yes}\n" });
    const messages = findings.map((f) => f.message);
    expect(messages).toHaveLength(3);
    expect(messages.filter((m) => /which this field refuses.*quote it \("yes"\)$/.test(m))).toHaveLength(2);
    expect(messages.filter((m) => /^the key `on`/.test(m))).toHaveLength(1);
  });

  it("a secret's value is never written, in any reading (its word, its boolean, the schema's message)", async () => {
    const findings = await validate({
      "s.yaml":
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  password: on\n---\napiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {apiToken: off}\n",
    });
    const mine = findings.filter((f) => f.rule === "yaml/ambiguous-boolean");
    expect(mine.map((f) => f.line)).toEqual([5, 10]);
    for (const f of mine) {
      expect(f.message).toMatch(/^this secret value is a (boolean|string) /);
      expect(f.message).not.toMatch(/`on`|`off`|"on"|"off"|\btrue\b|\bfalse\b|masked/);
    }
  });

  it("a merge key's values are not placed at a pointer that does not exist", async () => {
    const findings = await validate({ "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  <<: {enabled: yes}\n" });
    expect(findings.filter((f) => /Symbol/.test(f.message) || /Symbol/.test(JSON.stringify(f)))).toEqual([]);
  });
});
