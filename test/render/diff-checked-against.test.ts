import { describe, expect, it } from "vitest";
import { crd } from "../fixtures/definitions.js";
import { XAPP_EXAMPLE, XAPP_XRD, xappComposition } from "../fixtures/project.js";
import { diffAfterChange } from "../helpers.js";

/**
 * diff: a CRD or an admission policy checks every rendered object. A change to one finds problems
 * in sources whose own files did not change; the diff must render them to say so.
 */

const COMPOSITION = xappComposition(`    - step: p
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: bucket
            base: {apiVersion: storage.example.org/v1, kind: Bucket, spec: {size: small}}
`);

const bucketCrd = (required: string[]) =>
  crd({
    kind: "Bucket",
    plural: "buckets",
    group: "storage.example.org",
    scope: "Cluster",
    spec: `{type: object, required: ${JSON.stringify(required)}, properties: {size: {type: string}, region: {type: string}}}`,
  });

const policy = (allowed: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bucket-size}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [storage.example.org], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [buckets]}]
  validations:
    - expression: "object.spec.size == '${allowed}'"
      message: size must be ${allowed}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: bucket-size}
spec: {policyName: bucket-size, validationActions: [Deny]}
`;

interface Report {
  sources: { all: boolean };
  unrenderedFiles?: string[];
  findings: { new: { rule: string }[] };
  verdict: { failed: boolean };
}

async function diffAfter(files: Record<string, string>, change: [string, string]): Promise<Report> {
  return diffAfterChange<Report>(
    { "apis/xrd.yaml": XAPP_XRD, "apis/composition.yaml": COMPOSITION, "examples/xr.yaml": XAPP_EXAMPLE, ...files },
    { [change[0]]: change[1] },
  );
}

describe("a change to what rendered objects are checked against", () => {
  it("a CRD that now requires a field the rendered object lacks is a new finding", async () => {
    const report = await diffAfter({ "crds/bucket.yaml": bucketCrd(["size"]) }, ["crds/bucket.yaml", bucketCrd(["size", "region"])]);
    expect(report.sources.all).toBe(true);
    expect(report.unrenderedFiles ?? []).toEqual([]);
    expect(report.findings.new.map((f) => f.rule)).toContain("render/schema");
    expect(report.verdict.failed).toBe(true);
  });

  it("an admission policy that now denies what a source renders is a new finding", async () => {
    const report = await diffAfter({ "policies/bucket.yaml": policy("small") }, ["policies/bucket.yaml", policy("large")]);
    expect(report.sources.all).toBe(true);
    expect(report.findings.new.length).toBeGreaterThan(0);
  });

  it("a CRD the config's crds: names outside the scanned paths counts too", async () => {
    const config = ".composition-ci.yaml";
    const files = { [config]: 'ignore: ["vendor/**"]\ncrds: [vendor/crds]\n', "vendor/crds/bucket.yaml": bucketCrd(["size"]) };
    const report = await diffAfter(files, ["vendor/crds/bucket.yaml", bucketCrd(["size", "region"])]);
    expect(report.sources.all).toBe(true);
    expect(report.findings.new.map((f) => f.rule)).toContain("render/schema");
  });

  it("a change to an object nothing is checked against renders nothing", async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {v: "${v}"}\n`;
    const report = await diffAfter({ "other/cm.yaml": cm("1") }, ["other/cm.yaml", cm("2")]);
    expect(report.sources.all).toBe(false);
    expect(report.unrenderedFiles).toEqual(["other/cm.yaml"]);
  });
});
