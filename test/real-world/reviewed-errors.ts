/**
 * Every error `check` reports on the public repositories of ../shared/corpus/real, each reviewed
 * by hand as a true positive, with the reason. A false positive found later is a bug: fix it, and
 * its line here goes.
 */
export interface ReviewedError {
  rule: string;
  file: string;
  line: number;
  reason: string;
}

const httpRoute = (dir: string): ReviewedError[] =>
  ["group", "kind", "name", "port", "weight"].map((field, i) => ({
    rule: "schema/unknown-field",
    file: `pkg/workflow/providers/${dir}query/testdata/gateway/http-route.yaml`,
    line: 26 + i,
    reason: `matches[1].${field}: a backendRef's fields written under matches; the HTTPRoute CRD of the repository has no such field there`,
  }));

export const REVIEWED_ERRORS: Record<string, ReviewedError[]> = {
  "cloud-native-ref": [],
  "configuration-app": [],
  "configuration-aws-database": [],
  "configuration-aws-eks": [],
  "configuration-aws-network": [],
  "configuration-azure-aks": [],
  "configuration-gcp-gke": [],
  "configuration-observability-oss": [],
  "crossplane-eks-cluster": [],
  "crossplane-sql": [
    { rule: "xr/composition-missing", file: "examples/aws-ack.yaml", line: 2, reason: "selects provider: aws-ack, db: postgresql; no Composition of the repository has provider: aws-ack" },
  ],
  kubevela: [
    { rule: "yaml/syntax", file: "docs/examples/canary-rollout-use-case/rollback.yaml", line: 26, reason: "a list item indented as a key of the mapping above it: no YAML parser reads it (PyYAML and go-yaml fail too)" },
    { rule: "schema/unknown-field", file: "docs/examples/helm-module/webapp-chart-cd.yaml", line: 14, reason: "spec.schematic.helm: the ComponentDefinition CRD (upstream and ours) has only cue and terraform schematics; the API server prunes it" },
    { rule: "schema/required", file: "e2e/plugin/testdata/fake-workload.yaml", line: 9, reason: "a ComponentDefinition without spec.workload, which the CRD requires" },
    { rule: "schema/required", file: "pkg/addon/testdata/test-disable-addon/definitions/compDef.yaml", line: 6, reason: "a ComponentDefinition without spec.workload, which the CRD requires" },
    { rule: "schema/required", file: "pkg/addon/testdata/test-disable-addon/definitions/compDef.yaml", line: 8, reason: "schematic.cue without template, which the CRD requires" },
    { rule: "schema/unknown-field", file: "pkg/appfile/dryrun/testdata/diff-apprevision.yaml", line: 42, reason: "spec.applicationConfiguration: an ApplicationRevision field the repository's CRD no longer has (old-format test data)" },
    { rule: "schema/unknown-field", file: "pkg/appfile/dryrun/testdata/diff-apprevision.yaml", line: 117, reason: "spec.resourcesConfigMap: likewise gone from the ApplicationRevision CRD" },
    { rule: "schema/unknown-field", file: "pkg/appfile/dryrun/testdata/invalid-app-format.yaml", line: 13, reason: "traits at the Application's spec, not under a component: invalid on purpose (the file's name says so)" },
    { rule: "schema/required", file: "pkg/appfile/testdata/backport-1-2/apprev1.yaml", line: 271, reason: "status without succeeded, which the ApplicationRevision CRD requires there" },
    { rule: "schema/required", file: "pkg/appfile/testdata/backport-1-2/apprev2.yaml", line: 277, reason: "likewise" },
    { rule: "schema/required", file: "pkg/appfile/testdata/backport-1-2/apprev3.yaml", line: 271, reason: "likewise" },
    { rule: "schema/required", file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml", line: 12, reason: "an ownerReference without uid, which ObjectMeta requires" },
    { rule: "schema/unknown-field", file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml", line: 142, reason: "spec.resourcesConfigMap: gone from the ApplicationRevision CRD" },
    ...httpRoute("legacy/"),
    ...httpRoute(""),
    { rule: "yaml/duplicate-key", file: "test/e2e-test/testdata/definition/replica-webservice.yaml", line: 601, reason: "a second `workload` key in one mapping: go-yaml and the API server reject it" },
  ],
};
