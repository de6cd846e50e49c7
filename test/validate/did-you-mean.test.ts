import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { closest } from "../../src/validate/messages.js";
import { validateRepo } from "../../src/run/validate.js";
import { tempRepo } from "../helpers.js";
import { ptComposition } from "../fixtures/compositions.js";

/** Issue 32 (the CLI): "did you mean" for function names, patch field paths and enum values, as for unknown fields. */

async function findings(files: Record<string, string>) {
  const root = tempRepo(files);
  const result = await validateRepo({ root, paths: ["."], config: emptyConfig(), cacheDir: null });
  return result.findings;
}

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xapps.example.org}
spec:
  group: example.org
  names: {kind: XApp, plural: xapps}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer}, tier: {type: string, enum: [gold, silver, bronze]}}}}}}
`;

const FUNCTIONS =
  "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n";

describe("did you mean", () => {
  it("a patch's misspelt field path names the declared field it is closest to", async () => {
    const resources =
      "          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap}\n            patches:\n              - {fromFieldPath: spec.replica, toFieldPath: data.replicas}\n";
    const f = (await findings({ "xrd.yaml": XRD, "functions.yaml": FUNCTIONS, "composition.yaml": ptComposition("xapps", "XApp", resources) })).find(
      (x) => x.rule === "pt/from-field-path",
    );
    expect(f?.message).toContain('the schema has no field "replica" at spec; did you mean "spec.replicas"?');
  });

  it("an enum value off by a letter names the allowed one; a value far from all does not guess", async () => {
    const xr = (tier: string) => `apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: a, namespace: default}\nspec: {tier: ${tier}}\n`;
    const near = (await findings({ "xrd.yaml": XRD, "xr.yaml": xr("sliver") })).find((x) => x.rule === "schema/enum");
    expect(near?.message).toContain('allowed: "gold", "silver", "bronze"; did you mean "silver"?');
    const far = (await findings({ "xrd.yaml": XRD, "xr.yaml": xr("platinum") })).find((x) => x.rule === "schema/enum");
    expect(far?.message).not.toContain("did you mean");
  });

  it("a step's misspelt function names the Function of the repository it is closest to", async () => {
    const composition = ptComposition("xapps", "XApp", "          - name: cm\n            base: {apiVersion: v1, kind: ConfigMap}\n").replace(
      "functionRef: {name: function-patch-and-transform}",
      "functionRef: {name: function-patch-and-transfrom}",
    );
    const f = (await findings({ "xrd.yaml": XRD, "functions.yaml": FUNCTIONS, "composition.yaml": composition })).find(
      (x) => x.rule === "composition/function-missing",
    );
    expect(f?.message).toContain('; did you mean "function-patch-and-transform"?');
  });

  it("never guesses for names longer than a person types (the distance is quadratic)", () => {
    expect(closest("a".repeat(200), ["a".repeat(199)])).toBeUndefined();
    expect(closest("replica", ["replicas", "tier"])).toBe("replicas");
  });
});
