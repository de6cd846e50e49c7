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
    { rule: "schema/required", file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml", line: 12, reason: "an ownerReference without uid, which ObjectMeta requires" },
    { rule: "schema/unknown-field", file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml", line: 142, reason: "spec.resourcesConfigMap: gone from the ApplicationRevision CRD" },
    ...httpRoute("legacy/"),
    ...httpRoute(""),
    { rule: "yaml/duplicate-key", file: "test/e2e-test/testdata/definition/replica-webservice.yaml", line: 601, reason: "a second `workload` key in one mapping: go-yaml and the API server reject it" },
  ],
};

/** The same for the Crossplane e2e manifests (../shared/corpus/crossplane-e2e): many are invalid on purpose. */
export const REVIEWED_E2E_ERRORS: ReviewedError[] = [
    { rule: "yaml/duplicate-key", file: "apiextensions/composition/legacy-propagate-field-removals/setup/functions.yaml", line: 7, reason: "`name` twice in metadata: go-yaml and the API server reject it" },
    { rule: "composition/function-missing", file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml", line: 13, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "composition/pipeline", file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml", line: 14, reason: "invalid on purpose (the file's name says so): two steps named one" },
    { rule: "composition/function-missing", file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml", line: 16, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "composition/pipeline", file: "apiextensions/composition/validation/composition-invalid-empty-pipeline.yaml", line: 10, reason: "invalid on purpose (the file's name says so): no pipeline steps" },
    { rule: "composition/pipeline", file: "apiextensions/composition/validation/composition-invalid-missing-pipeline.yaml", line: 5, reason: "invalid on purpose (the file's name says so): no pipeline steps" },
    { rule: "composition/function-missing", file: "apiextensions/composition/validation/composition-invalid-missing-secretref.yaml", line: 13, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "schema/cel", file: "apiextensions/composition/validation/composition-invalid-missing-secretref.yaml", line: 15, reason: "invalid on purpose: a Secret credentials source without secretRef, as the Composition CRD's rule says" },
    { rule: "composition/function-missing", file: "apiextensions/composition/validation/composition-valid.yaml", line: 13, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/default/setup/composition.yaml", line: 20, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/multipleModeMaxMatch1/setup/composition.yaml", line: 23, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/multipleModeMaxMatchNil/setup/composition.yaml", line: 22, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/resolutionOptional/setup/composition.yaml", line: 19, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/resolveAlways/setup/composition.yaml", line: 25, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "render/function-fatal", file: "apiextensions/environment/resolveIfNotPresent/00-claim.yaml", line: 2, reason: "two EnvironmentConfigs labelled stage: prod are in the corpus (the test adds the second later, which IfNotPresent ignores): rendered with both, the Single selector finds two, as function-environment-configs says" },
    { rule: "composition/mode-resources", file: "apiextensions/environment/resolveIfNotPresent/setup/composition.yaml", line: 22, reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)" },
    { rule: "schema/cel", file: "apiextensions/mrd/validation/mrd-invalid.yaml", line: 9, reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says" },
    { rule: "schema/cel", file: "apiextensions/mrd/validation/mrd-valid-updated-invalid.yaml", line: 9, reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says" },
    { rule: "composition/function-missing", file: "apiextensions/xrd/referenceable-version-change/setup/composition-v1.yaml", line: 15, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "composition/function-missing", file: "apiextensions/xrd/referenceable-version-change/setup/composition-v2.yaml", line: 15, reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)" },
    { rule: "schema/required", file: "apiextensions/xrd/subresources/crd-scale.yaml", line: 5, reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it" },
    { rule: "schema/required", file: "apiextensions/xrd/subresources/crd-scale.yaml", line: 5, reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it" },
    { rule: "schema/required", file: "apiextensions/xrd/subresources/crd-scale.yaml", line: 5, reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it" },
    { rule: "schema/required", file: "apiextensions/xrd/subresources/crd-scale.yaml", line: 5, reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it" },
    { rule: "xrd/names", file: "apiextensions/xrd/validation/xrd-immutable-updated.yaml", line: 4, reason: "invalid on purpose: the group changed under an unchanged name (the comment says the field is immutable)" },
    { rule: "schema/cel", file: "apiextensions/xrd/validation/xrd-invalid.yaml", line: 10, reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says" },
    { rule: "schema/cel", file: "apiextensions/xrd/validation/xrd-valid-updated-invalid.yaml", line: 10, reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says" },
    { rule: "schema/required", file: "pkg/configuration/digest/configuration-revision.yaml", line: 7, reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it" },
    { rule: "schema/unknown-field", file: "pkg/dependency-upgrade/downgrade/package/crossplane.yaml", line: 20, reason: "spec.repository: no such field in a meta.pkg.crossplane.io/v1 Configuration (Crossplane's package parser drops it without a word)" },
    { rule: "schema/required", file: "pkg/image-config/authentication/configuration-with-private-dependency/provider.yaml", line: 7, reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it" },
    { rule: "schema/required", file: "pkg/image-config/rewrite/provider.yaml", line: 7, reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it" },
    { rule: "schema/cel", file: "protection/usage/standalone-namespaced/ref-without-by-cross-namespace-invalid/usage.yaml", line: 6, reason: "invalid on purpose (the directory's name says so): a cross-namespace of without by" },
    { rule: "schema/cel", file: "protection/usage/standalone-namespaced/selector-without-by-cross-namespace-invalid/usage.yaml", line: 6, reason: "invalid on purpose (the directory's name says so): a cross-namespace of without by" },
];
