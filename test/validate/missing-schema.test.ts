import { describe, expect, it } from "vitest";
import { emptyConfig } from "../../src/config/config.js";
import { validateRepo } from "../../src/run/validate.js";
import { tempRepo } from "../helpers.js";

/** A kind without a schema: the message names what the repository defines nearby, or where a schema would come from. */

const XRD = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: sqls.example.org}
spec:
  group: example.org
  names: {kind: SQL, plural: sqls}
  versions:
    - {name: v1beta1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}
`;

async function missing(files: Record<string, string>): Promise<string[]> {
  const { findings } = await validateRepo({ root: tempRepo(files), paths: ["."], config: emptyConfig(), cacheDir: null });
  return findings.filter((f) => f.rule === "schema/missing").map((f) => f.message);
}

describe("schema/missing says why", () => {
  it("a version the repository's XRD does not serve: the XRD and its versions", async () => {
    expect(await missing({ "xrd.yaml": XRD, "xr.yaml": "apiVersion: example.org/v1alpha1\nkind: SQL\nmetadata: {name: a}\n" })).toEqual([
      "no schema for example.org/v1alpha1 SQL: CompositeResourceDefinition sqls.example.org (xrd.yaml) defines SQL at v1beta1 only, not v1alpha1",
    ]);
  });

  it("a kind of a group the repository defines, which no definition has (a claim of a v2 XRD)", async () => {
    expect(await missing({ "xrd.yaml": XRD, "claim.yaml": "apiVersion: example.org/v1beta1\nkind: SQLClaim\nmetadata: {name: a, namespace: n}\n" })).toEqual([
      "no schema for example.org/v1beta1 SQLClaim: no definition here has the kind SQLClaim in example.org (CompositeResourceDefinition sqls.example.org (xrd.yaml) defines SQL there)",
    ]);
  });

  it("a Kubernetes API group is not told to add a CRD; a project's CRD group under k8s.io is", async () => {
    const [beta, gateway, typo] = await missing({
      "a.yaml": "apiVersion: node.k8s.io/v1beta1\nkind: RuntimeClass\nmetadata: {name: a}\nhandler: x\n",
      "b.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: b}\n",
      "c.yaml": "apiVersion: v1\nkind: Deplyment\nmetadata: {name: c}\n",
    });
    expect(beta).toBe(
      "no schema for node.k8s.io/v1beta1 RuntimeClass: composition-ci has schemas for RuntimeClass at v1 (Kubernetes' GA versions) only; a --schema-location with Kubernetes' JSON schemas checks this version",
    );
    expect(gateway).toContain("add its CRD to the repo or --crds");
    expect(typo).toBe(
      "no schema for v1 Deplyment: not a kind composition-ci knows in Kubernetes' core API group (a typo, a kind Kubernetes removed, or one it has no schema for; a --schema-location with Kubernetes' JSON schemas checks the last)",
    );
  });

  it("the GA kinds of every built-in group have schemas: RuntimeClass, ValidatingAdmissionPolicy, FlowSchema, APIService, CSIDriver", async () => {
    const files = {
      "rc.yaml": "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: nvidia}\nhandler: nvidia\n",
      "vap.yaml":
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec: {matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]}, validations: [{expression: 'true'}]}\n",
      "fs.yaml": "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: f}\nspec: {priorityLevelConfiguration: {name: x}}\n",
      "api.yaml": "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.x}\nspec: {groupPriorityMinimum: 1, versionPriority: 1}\n",
      "csi.yaml": "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: c}\nspec: {}\n",
    };
    const { findings } = await validateRepo({ root: tempRepo(files), paths: ["."], config: emptyConfig(), cacheDir: null });
    expect(findings).toEqual([]);
    const bad = await validateRepo({
      root: tempRepo({ "rc.yaml": "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: nvidia}\n" }),
      paths: ["."],
      config: emptyConfig(),
      cacheDir: null,
    });
    expect(bad.findings.map((f) => `${f.rule} ${f.message}`)).toEqual([expect.stringMatching(/^schema\/required .*handler/)]);
  });
});
