import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { glimpseObjects } from "../../src/manifest/glimpse.js";
import { validateRepo } from "../../src/run/validate.js";
import { REPO, tempRepo } from "../helpers.js";

/** A reference into a file composition-ci did not read (a template, a YAML error) is said to be there, not missing. */

const fixture = (rel: string) => fs.readFileSync(path.join(REPO, "test/fixtures/rules", rel), "utf8");
const app = fixture("vela/definition-missing/fail.yaml");

async function findings(files: Record<string, string>) {
  return (await validateRepo({ root: tempRepo(files), paths: ["."], config: emptyConfig(), cacheDir: null })).findings;
}

const HELM_TRAIT = `{{- if .Values.enabled }}
apiVersion: core.oam.dev/v1beta1
kind: TraitDefinition
metadata:
  annotations:
    definition.oam.dev/description: scales
  labels: {a: b}
  name: scaling
  namespace: {{ include "ns" . }}
spec:
  schematic: {cue: {template: "x: 1"}}
{{- end }}
`;

describe("objects seen in files that were not read", () => {
  it("glimpses kind and metadata.name line by line, per document; a templated or nested name is not one", () => {
    const text = `kind: A\nmetadata:\n  labels:\n    name: not-this\n  name: a-one\n---\nkind: B\nmetadata:\n  name: {{ .name }}\n---\nspec:\n  name: x\nkind: C\nmetadata: {name: flow}\n`;
    expect(glimpseObjects(text, "f.yaml", "a template")).toEqual([{ group: "", kind: "A", name: "a-one", file: "f.yaml", line: 1, why: "a template" }]);
    expect(glimpseObjects(HELM_TRAIT, "t.yaml", "a template")).toEqual([
      { group: "core.oam.dev", kind: "TraitDefinition", name: "scaling", file: "t.yaml", line: 3, why: "a template" },
    ]);
  });

  it("a template line or comment at the margin inside metadata does not end it; a document after `...` is seen", () => {
    const text =
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n{{- if .Values.annotations }}\n  annotations: {a: b}\n{{- end }}\n# the name\n  name: fn-one\n...\nkind: Function\nmetadata:\n  name: fn-two\n";
    expect(glimpseObjects(text, "f.yaml", "a template").map((o) => `${o.group} ${o.kind} ${o.name}`)).toEqual([
      "pkg.crossplane.io Function fn-one",
      " Function fn-two",
    ]);
  });

  it("an object of another API group with the same kind and name is not the one referred to", async () => {
    const otherGroup = HELM_TRAIT.replace("core.oam.dev/v1beta1", "example.org/v1");
    const all = await findings({ "ctx.yaml": fixture("_shared/vela.yaml"), "app.yaml": app, "chart/templates/scaling.yaml": otherGroup });
    expect(all.filter((f) => f.rule === "vela/definition-missing").map((f) => f.line)).toEqual([18, 21]);
    expect(all.filter((f) => f.rule === "reference/unread")).toEqual([]);
  });

  it("a trait defined only in a Helm template: an info naming the file, not vela/definition-missing", async () => {
    const all = await findings({ "ctx.yaml": fixture("_shared/vela.yaml"), "app.yaml": app, "chart/templates/scaling.yaml": HELM_TRAIT });
    expect(all.filter((f) => f.rule === "vela/definition-missing").map((f) => f.line)).toEqual([21]);
    const unread = all.filter((f) => f.rule === "reference/unread");
    expect(unread).toMatchObject([{ severity: "info", file: "app.yaml", line: 18 }]);
    expect(unread[0]!.message).toBe(
      'TraitDefinition "scaling" is only in chart/templates/scaling.yaml:3, which composition-ci does not read (a template); nothing here is checked against it',
    );
  });

  it("a definition in a document with a YAML error: the error is reported once, the reference points to it", async () => {
    const broken = "apiVersion: core.oam.dev/v1beta1\nkind: ComponentDefinition\nmetadata:\n  name: nighty\nspec:\n  workload: {type: [a}\n";
    const all = await findings({ "ctx.yaml": fixture("_shared/vela.yaml"), "app.yaml": app, "defs.yaml": broken });
    expect(all.filter((f) => f.rule === "yaml/syntax").map((f) => f.file)).toEqual(["defs.yaml"]);
    expect(all.find((f) => f.rule === "reference/unread" && f.line === 21)?.message).toContain(
      'ComponentDefinition "nighty" is only in defs.yaml:2, which composition-ci does not read (a document with a YAML error)',
    );
  });

  it("a pinned definition revision (type@v2) is looked up by the definition's name; its properties are the revision's, not checked", async () => {
    const pinned = app.replace("type: stateless", "type: stateless@v2").replace("port: 8080", "port: not-a-number");
    const all = await findings({ "ctx.yaml": fixture("_shared/vela.yaml"), "app.yaml": pinned });
    expect(all.filter((f) => f.rule === "vela/definition-missing").map((f) => f.message)).not.toContainEqual(expect.stringContaining("stateless"));
    expect(all.filter((f) => f.rule === "vela/properties")).toEqual([]);
  });
});
