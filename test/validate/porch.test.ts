import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { tempRepo } from "../helpers.js";

/** Porch's controllers' validation (issue 37), each rule with a failing and a passing fixture. */

async function porch(yaml: string) {
  const result = await validateRepo({ root: tempRepo({ "pv.yaml": yaml }), paths: ["."], config: emptyConfig(), cacheDir: null });
  return result.findings.filter((f) => f.rule.startsWith("porch/")).map((f) => `${f.line} ${f.rule}: ${f.message}`);
}

const pv = (spec: string) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: v}\nspec:\n${spec}`;

describe("Porch PackageVariant and PackageVariantSet", () => {
  it("a PackageVariant needs upstream and downstream repo and package, valid policies, no reserved context keys, named injectors", async () => {
    expect(await porch(pv("  upstream: {repo: catalog, package: base}\n  downstream: {repo: edge, package: site}\n"))).toEqual([]);
    const bad = pv(`  upstream: {repo: catalog}
  downstream: {package: site}
  adoptionPolicy: adoptAll
  deletionPolicy: keep
  packageContext:
    data: {name: x}
    removeKeys: [package-path]
  injectors:
    - {kind: ConfigMap}
`);
    expect(await porch(bad)).toEqual([
      "5 porch/package-variant: missing required field spec.upstream.package: the Porch controller stalls on the PackageVariant",
      "6 porch/package-variant: missing required field spec.downstream.repo: the Porch controller stalls on the PackageVariant",
      '7 porch/package-variant: spec.adoptionPolicy can only be "adoptNone" or "adoptExisting": the Porch controller stalls on the PackageVariant',
      '8 porch/package-variant: spec.deletionPolicy can only be "orphan" or "delete": the Porch controller stalls on the PackageVariant',
      '10 porch/package-variant: spec.packageContext.data must not contain the key "name" (Porch sets it): the Porch controller stalls on the PackageVariant',
      '11 porch/package-variant: spec.packageContext.removeKeys must not contain the key "package-path": the Porch controller stalls on the PackageVariant',
      "13 porch/package-variant: spec.injectors[0].name must not be empty: the Porch controller stalls on the PackageVariant",
    ]);
  });

  it("a PackageVariantSet needs an upstream revision or workspace, targets of one kind each, and templates without both a field and its expression", async () => {
    const pvs = (spec: string) => `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: s}\nspec:\n${spec}`;
    expect(await porch(pvs("  upstream: {repo: catalog, package: base, revision: 1}\n  targets:\n    - repositories: [{name: edge}]\n"))).toEqual([]);
    const bad = pvs(`  upstream: {repo: catalog, package: base}
  targets:
    - repositories: [{name: edge}]
      objectSelector: {apiVersion: v1}
      template:
        downstream: {repo: a, repoExpr: "x"}
        pipeline:
          mutators: [{name: set.ns}]
`);
    expect(await porch(bad)).toEqual([
      "5 porch/package-variant-set: either spec.upstream.revision or spec.upstream.workspaceName must be specified: the Porch controller stalls on the PackageVariantSet",
      "7 porch/package-variant-set: spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`: the Porch controller stalls on the PackageVariantSet",
      "8 porch/package-variant-set: spec.targets[0].objectselector.kind cannot be empty: the Porch controller stalls on the PackageVariantSet",
      "10 porch/package-variant-set: spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`: the Porch controller stalls on the PackageVariantSet",
      "12 porch/package-variant-set: spec.targets[0].template.pipeline.mutators[0].image must not be empty: the Porch controller stalls on the PackageVariantSet",
      "12 porch/package-variant-set: spec.targets[0].template.pipeline.mutators[0].name must not contain '.': the Porch controller stalls on the PackageVariantSet",
    ]);
  });
});
