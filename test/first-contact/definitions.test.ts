import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { crd } from "../fixtures/definitions.js";
import { runCli, tempRepo } from "../helpers.js";

/** Issue 31, principles 1 and 3: which of several definitions applies is a guess; a guess is never an error. */

const CRD = (extra: string) => crd({ kind: "Widget", plural: "widgets", spec: `{type: object, properties: {size: {type: integer}${extra}}}` });
const WIDGET = "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, namespace: n}\nspec: {size: 1, colour: red}\n";

async function check(files: Record<string, string>) {
  const dir = tempRepo(files);
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-definitions-"));
  const { stdout } = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
  // The second run takes every object's findings (alternatives, older CRDs) from the work store: the same output (issue 38).
  expect((await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir)).stdout).toBe(stdout);
  return JSON.parse(stdout).findings as { rule: string; severity: string; file?: string; message: string }[];
}

describe("alternative definitions", () => {
  it("two copies of a CRD equally near an object: it is fine when either accepts it", async () => {
    const findings = await check({
      "a/crds/widget.yaml": CRD(""),
      "b/crds/widget.yaml": CRD(", colour: {type: string}"),
      "examples/widget.yaml": WIDGET,
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("when every copy refuses it, it is an error", async () => {
    const findings = await check({
      "a/crds/widget.yaml": CRD(""),
      "b/crds/widget.yaml": CRD(", shape: {type: string}"),
      "examples/widget.yaml": WIDGET,
    });
    expect(findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}`)).toEqual(["schema/unknown-field examples/widget.yaml"]);
  });

  it("a copy nearer the object decides alone", async () => {
    const findings = await check({
      "a/crds/widget.yaml": CRD(""),
      "b/crds/widget.yaml": CRD(", colour: {type: string}"),
      "a/examples/widget.yaml": WIDGET,
    });
    expect(findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}`)).toEqual(["schema/unknown-field a/examples/widget.yaml"]);
  });

  it("a repository's older copy of a CRD composition-ci knows newer: one warning on the CRD, not an error per object", async () => {
    // porch's PackageVariant upstream gained workspaceName; composition-ci ships the newer schema.
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: packagevariants.config.porch.kpt.dev}
spec:
  group: config.porch.kpt.dev
  names: {kind: PackageVariant, plural: packagevariants}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                upstream: {type: object, properties: {repo: {type: string}, package: {type: string}, revision: {type: string}}}
                downstream: {type: object, properties: {repo: {type: string}, package: {type: string}}}
`;
    const pv = (n: number) =>
      `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: pv${n}, namespace: default}\nspec:\n  upstream: {repo: catalog, package: base, workspaceName: v${n}}\n  downstream: {repo: deployments, package: app${n}}\n`;
    const findings = await check({ "crds/pv.yaml": crd, "pv1.yaml": pv(1), "pv2.yaml": pv(2) });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "schema/stale-definition").map((f) => `${f.severity} ${f.file}`)).toEqual(["warning crds/pv.yaml"]);
  });
});

describe("CRDs and XRDs are chosen among by proximity alike", () => {
  it("a test's mock CRD of an XR type elsewhere never shadows the XRD beside the XR", async () => {
    const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: widgets.example.org}
spec:
  group: example.org
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}, colour: {type: string}}}}}}}]
`;
    const findings = await check({ "apis/widget/xrd.yaml": xrd, "apis/widget/example.yaml": WIDGET, "cmd/testdata/crds/widget.yaml": CRD("") });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    // ... while the mock CRD still decides for its own test data.
    const mocked = await check({ "apis/widget/xrd.yaml": xrd, "cmd/testdata/crds/widget.yaml": CRD(""), "cmd/testdata/widget.yaml": WIDGET });
    expect(mocked.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.file}`)).toEqual(["schema/unknown-field cmd/testdata/widget.yaml"]);
  });
});

describe("Compositions", () => {
  const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]
`;
  const composition = (name: string, data: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: ${name}}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources: [{name: cm, base: {apiVersion: v1, kind: ConfigMap, data: {from: ${data}}}}]
`;
  const xr = "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a, namespace: default}\nspec: {}\n";

  it("two copies of one Composition name are one candidate: the XR renders", async () => {
    const { stdout, stderr } = await runCli(
      ["check", ".", "--format", "json"],
      tempRepo({ "xrd.yaml": xrd, "k8s/app.yaml": composition("app", "k8s"), "uxp/app.yaml": composition("app", "uxp"), "examples/xr.yaml": xr }),
    );
    expect(JSON.parse(stdout).sources).toMatchObject({ rendered: 1, failed: 0, notRendered: 0 });
    expect(stderr).not.toContain("pick one at random");
  });

  it("a v2 XR's selection is read from spec.crossplane only: a legacy spec.compositionRef is an unknown field, not a choice", async () => {
    const legacyRef = "apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a, namespace: default}\nspec: {compositionRef: {name: not-here}}\n";
    const { stdout } = await runCli(
      ["check", ".", "--format", "json"],
      tempRepo({ "xrd.yaml": xrd, "app.yaml": composition("app", "k8s"), "examples/xr.yaml": legacyRef }),
    );
    const report = JSON.parse(stdout);
    expect(report.findings.filter((f: { severity: string }) => f.severity === "error").map((f: { rule: string }) => f.rule)).toEqual(["schema/unknown-field"]);
    expect(report.sources).toMatchObject({ rendered: 1 });
  });

  it("an XR no XRD of the repository defines renders with the Composition for its type, as crossplane render does", async () => {
    const { stdout } = await runCli(["check", ".", "--format", "json"], tempRepo({ "app.yaml": composition("app", "k8s"), "examples/xr.yaml": xr }));
    const report = JSON.parse(stdout);
    expect(report.sources).toMatchObject({ total: 1, rendered: 1 });
    expect(report.findings.filter((f: { severity: string }) => f.severity === "error")).toEqual([]);
  });

  it("no Composition of the type in the repository: not rendered, a warning naming the type, never an error", async () => {
    const { stdout } = await runCli(["check", ".", "--format", "json"], tempRepo({ "xrd.yaml": xrd, "examples/xr.yaml": xr }));
    const report = JSON.parse(stdout);
    expect(report.findings.filter((f: { severity: string }) => f.severity === "error")).toEqual([]);
    expect(report.sources).toMatchObject({ total: 1, notRendered: 1, failed: 0 });
  });
});

describe("what rests on a sibling's definition is a guess", () => {
  const xrd = (kind: string, version: string) => `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: x${kind.toLowerCase()}s.example.org}
spec:
  group: example.org
  names: {kind: X${kind}, plural: x${kind.toLowerCase()}s}
  versions: [{name: ${version}, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]
`;
  const composition = (kind: string, version: string) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/${version}, kind: X${kind}}
  mode: Pipeline
  pipeline: [{step: ready, functionRef: {name: function-auto-ready}}]
`;

  it("a Composition and a sibling example's XRD of another version: a warning; the same in one directory chain: an error", async () => {
    const cousin = await check({ "examples/a/xrd.yaml": xrd("App", "v1"), "examples/b/composition.yaml": composition("App", "v1beta1") });
    expect(cousin.filter((f) => f.rule === "composition/xrd-version").map((f) => f.severity)).toEqual(["warning"]);
    const own = await check({ "examples/a/xrd.yaml": xrd("App", "v1"), "examples/a/composition.yaml": composition("App", "v1beta1") });
    expect(own.filter((f) => f.rule === "composition/xrd-version").map((f) => f.severity)).toEqual(["error"]);
  });

  it("a Composition whose type no XRD here defines is a warning, whatever other XRDs the repository has", async () => {
    const findings = await check({ "a/xrd.yaml": xrd("Other", "v1"), "b/composition.yaml": composition("App", "v1") });
    expect(findings.filter((f) => f.rule === "composition/xrd-missing").map((f) => f.severity)).toEqual(["warning"]);
  });

  it("two differing XRDs of one type in one directory are alternatives (a warning); in one package, a conflict (an error)", async () => {
    const other = xrd("App", "v1").replace("type: object}}}]", "type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}}]");
    const dir = await check({ "fixtures/one.yaml": xrd("App", "v1"), "fixtures/two.yaml": other });
    expect(dir.filter((f) => f.rule === "schema/duplicate-definition").map((f) => f.severity)).toEqual(["warning"]);
    const pkg = await check({
      "pkg/crossplane.yaml": "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: p}\n",
      "pkg/apis/one.yaml": xrd("App", "v1"),
      "pkg/apis/two/two.yaml": other,
    });
    expect(pkg.filter((f) => f.rule === "schema/duplicate-definition").map((f) => f.severity)).toEqual(["error"]);
  });
});

describe("a mock CRD elsewhere while the source's own tree installs the real provider", () => {
  it("what a rendered object breaks in the mock's schema is a warning naming it, not an error", async () => {
    const nopCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nopresources.nop.example.org}
spec:
  group: nop.example.org
  names: {kind: NopResource, plural: nopresources}
  scope: Cluster
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {forProvider: {type: object, properties: {conditionAfter: {type: array}}}}}}}}
`;
    const xrd = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xnops.example.org}
spec:
  group: example.org
  names: {kind: XNop, plural: xnops}
  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]
`;
    const composition = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xnops}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XNop}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: nop
            base: {apiVersion: nop.example.org/v1alpha1, kind: NopResource, spec: {forProvider: {fields: {a: b}}}}
`;
    const findings = await check({
      "cmd/testdata/crds/nop.yaml": nopCrd,
      "e2e/_setup/provider.yaml":
        "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: provider-nop}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.5.0}\n",
      "e2e/case/xrd.yaml": xrd,
      "e2e/case/composition.yaml": composition,
      "e2e/case/xr.yaml": "apiVersion: example.org/v1\nkind: XNop\nmetadata: {name: n, namespace: default}\nspec: {}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(
      findings.filter((f) => f.rule === "render/schema" || f.rule === "pt/base-schema" || f.rule.startsWith("schema/")).map((f) => `${f.severity} ${f.rule}`),
    ).toEqual(["warning schema/unknown-field"]); // at the base, once
  });
});

describe("kpt setters", () => {
  it("a value marked `# kpt-set:` is a placeholder apply-setters replaces: info, not an error", async () => {
    const findings = await check({
      "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: pkg}\n",
      "pkg/deploy.yaml":
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: REPLICAS # kpt-set: ${replicas}\n  selector: {matchLabels: {a: b}}\n  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.filter((f) => f.rule === "schema/type").map((f) => f.severity)).toEqual(["info"]);
  });
});

describe("KubeVela's core.oam.dev/v1alpha2 definitions", () => {
  it("a WorkloadDefinition with a CUE schematic and a TraitDefinition without definitionRef are KubeVela's, not faults", async () => {
    const findings = await check({
      "workload.yaml":
        "apiVersion: core.oam.dev/v1alpha2\nkind: WorkloadDefinition\nmetadata: {name: worker}\nspec:\n  definitionRef: {name: deployments.apps}\n  schematic: {cue: {template: 'output: {}'}}\n",
      "trait.yaml":
        "apiVersion: core.oam.dev/v1alpha2\nkind: TraitDefinition\nmetadata: {name: scaler}\nspec:\n  appliesToWorkloads: [deployments.apps]\n  podDisruptive: true\n  schematic: {cue: {template: 'patch: {}'}}\n",
    });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
  });
});
