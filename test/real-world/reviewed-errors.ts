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

const devopsNodeSize = (file: string, line = 1): ReviewedError => ({
  rule: "policy/cluster/node-size",
  file,
  line,
  reason:
    "the repository's own Kyverno policy (examples/k8s/kyverno.yaml, kyverno-b-team.yaml: validationFailureAction enforce) denies this ClusterClaim's nodeSize, as the talk it belongs to shows",
});

const devopsUnknownParameter = (file: string, line: number, field = "namespace"): ReviewedError => ({
  rule: "schema/unknown-field",
  file,
  line,
  reason: `spec.parameters.${field}: the XRD (packages/sql/definition.yaml or packages/k8s/definition.yaml) has no such parameter any more; the API server prunes it, so the setting does nothing`,
});

/**
 * The SQL XR Crossplane's claim controller creates for a SQLClaim: cluster-scoped, so the binding's
 * namespaceSelector (environment: production) never skips it, and crossplane-sql-production's
 * rule denies it; the claim is admitted and its XR is never created.
 */
const devopsClaimXr =
  (validation: 0 | 1) =>
  ([file, line]: [string, number]): ReviewedError => ({
    rule: `policy/crossplane-sql-production/${validation}`,
    file,
    line,
    reason: `the XR created for this SQLClaim is cluster-scoped, so the Deny binding's namespaceSelector does not skip it, and it breaks ${validation === 0 ? "size medium or large (these ask for small, or leave it at the XRD's default, small)" : "version 13.* or 14.*"}: the claim never gets its XR`,
  });

export const REVIEWED_ERRORS: Record<string, ReviewedError[]> = {
  "appmod-blueprints": [],
  "cloud-native-ref": [],
  "cnoe-stacks": [],
  "configuration-aws-ctp": [],
  "configuration-aws-database-ai": [],
  "crossplane-diff": [
    {
      rule: "xrd/referenceable",
      file: "cmd/diff/testdata/comp/resources/xapimigrate-xrd.yaml",
      line: 10,
      reason: "two versions marked referenceable: Crossplane makes the referenceable version the CRD's storage version, and the API server refuses two",
    },
    {
      rule: "xrd/referenceable",
      file: "cmd/diff/testdata/diff/resources/xapimigrate-xrd.yaml",
      line: 10,
      reason: "two versions marked referenceable, likewise",
    },
    {
      rule: "schema/type",
      file: "cmd/diff/testdata/diff/invalid-schema-xr.yaml",
      line: 8,
      reason: "an XR invalid on purpose (the file's name says so): a string where its XRD has an integer",
    },
    {
      rule: "xrd/names",
      file: "cmd/diff/testdata/diff/resources/claim-xrd.yaml",
      line: 4,
      reason: "the XRD's name is not <plural>.<group>: Crossplane names the CRD after it and the API server refuses it",
    },
    {
      rule: "schema/unknown-field",
      file: "cmd/diff/testdata/diff/resources/existing-xr-with-argocd.yaml",
      line: 13,
      reason: "spec.compositionRef on the XR of a v2 (Namespaced) XRD, whose CRD has it under spec.crossplane only: pruned",
    },
  ],
  "devops-toolkit-crossplane": [
    {
      rule: "schema/format",
      file: "crossplane-config/provider-config-do.yaml",
      line: 10,
      reason: "a Secret's data value MY_CREDS that is not base64: the API server refuses it",
    },
    {
      rule: "policy/crossplane-sql-production/0",
      file: "examples/app/backend-aws-postgresql-no-claim.yaml",
      line: 19,
      reason:
        "the repository's own ValidatingAdmissionPolicy crossplane-sql-production (examples/sql/aws-official-vap.yaml, bound with Deny) requires size medium or large; this example asks for small",
    },
    {
      rule: "policy/crossplane-sql-production/0",
      file: "examples/app/backend-local-k8s-postgresql-no-claim.yaml",
      line: 19,
      reason: "the same policy, the same small size",
    },
    devopsUnknownParameter("examples/app/backend-aws-postgresql-no-claim.yaml", 30),
    devopsUnknownParameter("examples/app/backend-aws-postgresql-remote.yaml", 38),
    devopsUnknownParameter("examples/app/backend-aws-postgresql-schemahero.yaml", 34),
    devopsUnknownParameter("examples/app/backend-aws-postgresql.yaml", 34),
    devopsUnknownParameter("examples/app/backend-azure-postgresql.yaml", 31),
    devopsUnknownParameter("examples/app/backend-gcp-postgresql.yaml", 31),
    devopsUnknownParameter("examples/app/backend-google-postgresql-remote.yaml", 38),
    devopsUnknownParameter("examples/app/backend-local-k8s-postgresql-no-claim.yaml", 30),
    devopsUnknownParameter("examples/app/backend-local-k8s-postgresql.yaml", 34),
    devopsUnknownParameter("examples/civo-gitops-no-claim.yaml", 14, "gitOpsRepo"),
    devopsUnknownParameter("examples/sql/kubernetes.yaml", 14),
    {
      rule: "xr/composition-missing",
      file: "examples/google-postgres.yaml",
      line: 1,
      reason: "selects db: postgres; every SQL Composition of the repository is labelled db: postgresql",
    },
    devopsNodeSize("examples/k8s/aws-eks-1-22.yaml"),
    devopsNodeSize("examples/k8s/aws-eks-datree.yaml"),
    devopsNodeSize("examples/k8s/aws-eks-official.yaml"),
    devopsNodeSize("examples/k8s/aws-eks-very-large.yaml"),
    devopsNodeSize("examples/k8s/aws-eks-very-large.yaml"),
    devopsNodeSize("examples/k8s/aws-eks.yaml"),
    devopsNodeSize("examples/k8s/azure-aks-very-large.yaml"),
    devopsNodeSize("examples/k8s/azure-aks-very-large.yaml"),
    devopsNodeSize("examples/k8s/civo-ck.yaml"),
    devopsNodeSize("examples/k8s/gcp-gke-official.yaml"),
    devopsNodeSize("examples/k8s/gcp-gke-very-large.yaml"),
    devopsNodeSize("examples/k8s/gcp-gke-very-large.yaml"),
    devopsNodeSize("examples/k8s/gcp-gke.yaml"),
    devopsNodeSize("examples/multi-cluster.yaml", 3),
    devopsNodeSize("examples/multi-cluster.yaml", 21),
    devopsNodeSize("examples/multi-cluster.yaml", 57),
    {
      rule: "render/function-fatal",
      file: "examples/k8s/aws-eks-very-large.yaml",
      line: 1,
      reason: "nodeSize very-large: no map transform of the Composition has that key, so patch-and-transform fails the render, as it would in the cluster",
    },
    { rule: "render/function-fatal", file: "examples/k8s/azure-aks-very-large.yaml", line: 1, reason: "nodeSize very-large: likewise" },
    { rule: "render/function-fatal", file: "examples/k8s/gcp-gke-very-large.yaml", line: 1, reason: "nodeSize very-large: likewise" },
    ...[232, 236].flatMap((line) =>
      ["aws", "google", "local"].map((p) => ({
        rule: "pt/from-field-path",
        file: `packages/app/backend-db-${p}.yaml`,
        line,
        reason: "a patch from a field the App XRD does not declare: it can never find a value",
      })),
    ),
    ...(
      [
        ["examples/app/backend-aws-postgresql-remote.yaml", 25],
        ["examples/app/backend-aws-postgresql-schemahero.yaml", 21],
        ["examples/app/backend-aws-postgresql.yaml", 21],
        ["examples/app/backend-azure-postgresql.yaml", 18],
        ["examples/app/backend-gcp-mysql.yaml", 21],
        ["examples/app/backend-gcp-postgresql.yaml", 18],
        ["examples/app/backend-google-postgresql-remote.yaml", 25],
        ["examples/app/backend-local-k8s-postgresql.yaml", 21],
        ["examples/google-mysql.yaml", 1],
        ["examples/google-postgres.yaml", 1],
        ["examples/sql/aws.yaml", 1],
        ["examples/sql/azure-official.yaml", 12],
        ["examples/sql/azure.yaml", 1],
        ["examples/sql/gcp-official.yaml", 12],
        ["examples/sql/gcp.yaml", 1],
        ["examples/sql/kubernetes.yaml", 1],
      ] as [string, number][]
    ).map(devopsClaimXr(0)),
    ...(
      [
        ["examples/app/backend-azure-postgresql.yaml", 18],
        ["examples/app/backend-gcp-mysql.yaml", 21],
        ["examples/app/backend-gcp-postgresql.yaml", 18],
        ["examples/app/backend-google-postgresql-remote.yaml", 25],
        ["examples/google-mysql.yaml", 1],
        ["examples/google-postgres.yaml", 1],
        ["examples/sql/azure-official.yaml", 12],
        ["examples/sql/azure.yaml", 1],
        ["examples/sql/gcp-official.yaml", 12],
        ["examples/sql/gcp.yaml", 1],
      ] as [string, number][]
    ).map(devopsClaimXr(1)),
    {
      rule: "xrd/composition-ref",
      file: "packages/sql/definition.yaml",
      line: 7,
      reason: "defaultCompositionRef names google-postgres, which no Composition of the repository is called",
    },
  ],
  "function-cel-filter": [],
  "function-environment-configs": [],
  "function-kcl": [],
  "function-kro": [],
  "function-python": [],
  "function-pythonic": [
    {
      rule: "xrd/names",
      file: "examples/inlined/definition.yaml",
      line: 4,
      reason: "the name inlined.example.org/v1alpha1 is not <plural>.<group> (and a name has no /): Crossplane cannot create the CRD",
    },
  ],
  "knative-tutorial": [],
  "kyma-runtime-extension-samples": [
    {
      rule: "schema/unknown-field",
      file: "chatbot-conversational_AI/resources/service/deployment_w_cm.yaml",
      line: 8,
      reason: "spec.env on a Deployment: env belongs to a container; the API server refuses it",
    },
    {
      rule: "schema/unknown-field",
      file: "dsagtt22/kymafunctions/secret_courierservice.yaml",
      line: 5,
      reason: "data indented under metadata: a Secret with no data, and metadata fields that do not exist",
    },
    {
      rule: "yaml/syntax",
      file: "helm-charts/api-mssql-go/templates/apirule.yaml",
      line: 4,
      reason: "a formatter turned {{ }} into { { } }: Helm passes it through and the YAML is broken (helm install fails)",
    },
  ],
  "nephio-catalog": [],
  "configuration-app": [],
  "configuration-aws-database": [],
  "configuration-aws-eks": [],
  "configuration-aws-network": [],
  "configuration-azure-aks": [],
  "configuration-gcp-gke": [],
  "configuration-observability-oss": [],
  "crossplane-eks-cluster": [],
  "crossplane-sql": [
    {
      rule: "xr/composition-missing",
      file: "examples/aws-ack.yaml",
      line: 2,
      reason: "selects provider: aws-ack, db: postgresql; no Composition of the repository has provider: aws-ack",
    },
  ],
  kubevela: [
    {
      rule: "yaml/syntax",
      file: "docs/examples/canary-rollout-use-case/rollback.yaml",
      line: 26,
      reason: "a list item indented as a key of the mapping above it: no YAML parser reads it (PyYAML and go-yaml fail too)",
    },
    {
      rule: "schema/unknown-field",
      file: "docs/examples/helm-module/webapp-chart-cd.yaml",
      line: 14,
      reason: "spec.schematic.helm: the ComponentDefinition CRD (upstream and ours) has only cue and terraform schematics; the API server prunes it",
    },
    {
      rule: "schema/required",
      file: "e2e/plugin/testdata/fake-workload.yaml",
      line: 9,
      reason: "a ComponentDefinition without spec.workload, which the CRD requires",
    },
    {
      rule: "schema/required",
      file: "pkg/addon/testdata/test-disable-addon/definitions/compDef.yaml",
      line: 6,
      reason: "a ComponentDefinition without spec.workload, which the CRD requires",
    },
    {
      rule: "schema/required",
      file: "pkg/addon/testdata/test-disable-addon/definitions/compDef.yaml",
      line: 8,
      reason: "schematic.cue without template, which the CRD requires",
    },
    {
      rule: "schema/unknown-field",
      file: "pkg/appfile/dryrun/testdata/diff-apprevision.yaml",
      line: 42,
      reason: "spec.applicationConfiguration: an ApplicationRevision field the repository's CRD no longer has (old-format test data)",
    },
    {
      rule: "schema/unknown-field",
      file: "pkg/appfile/dryrun/testdata/diff-apprevision.yaml",
      line: 117,
      reason: "spec.resourcesConfigMap: likewise gone from the ApplicationRevision CRD",
    },
    {
      rule: "schema/unknown-field",
      file: "pkg/appfile/dryrun/testdata/invalid-app-format.yaml",
      line: 13,
      reason: "traits at the Application's spec, not under a component: invalid on purpose (the file's name says so)",
    },
    {
      rule: "schema/required",
      file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml",
      line: 12,
      reason: "an ownerReference without uid, which ObjectMeta requires",
    },
    {
      rule: "schema/unknown-field",
      file: "pkg/controller/core.oam.dev/v1beta1/application/assemble/testdata/apprevision.yaml",
      line: 142,
      reason: "spec.resourcesConfigMap: gone from the ApplicationRevision CRD",
    },
    ...httpRoute("legacy/"),
    ...httpRoute(""),
  ],
};

/** The same for the Crossplane e2e manifests (../shared/corpus/crossplane-e2e): many are invalid on purpose. */
export const REVIEWED_E2E_ERRORS: ReviewedError[] = [
  {
    rule: "composition/function-missing",
    file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml",
    line: 13,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "composition/pipeline",
    file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml",
    line: 14,
    reason: "invalid on purpose (the file's name says so): two steps named one",
  },
  {
    rule: "composition/function-missing",
    file: "apiextensions/composition/validation/composition-invalid-duplicate-pipeline-steps.yaml",
    line: 16,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "composition/pipeline",
    file: "apiextensions/composition/validation/composition-invalid-empty-pipeline.yaml",
    line: 10,
    reason: "invalid on purpose (the file's name says so): no pipeline steps",
  },
  {
    rule: "composition/pipeline",
    file: "apiextensions/composition/validation/composition-invalid-missing-pipeline.yaml",
    line: 5,
    reason: "invalid on purpose (the file's name says so): no pipeline steps",
  },
  {
    rule: "composition/function-missing",
    file: "apiextensions/composition/validation/composition-invalid-missing-secretref.yaml",
    line: 13,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "schema/cel",
    file: "apiextensions/composition/validation/composition-invalid-missing-secretref.yaml",
    line: 15,
    reason: "invalid on purpose: a Secret credentials source without secretRef, as the Composition CRD's rule says",
  },
  {
    rule: "composition/function-missing",
    file: "apiextensions/composition/validation/composition-valid.yaml",
    line: 13,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/default/setup/composition.yaml",
    line: 20,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/multipleModeMaxMatch1/setup/composition.yaml",
    line: 23,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/multipleModeMaxMatchNil/setup/composition.yaml",
    line: 22,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/resolutionOptional/setup/composition.yaml",
    line: 19,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/resolveAlways/setup/composition.yaml",
    line: 25,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "render/function-fatal",
    file: "apiextensions/environment/resolveIfNotPresent/00-claim.yaml",
    line: 2,
    reason:
      "two EnvironmentConfigs labelled stage: prod are in the corpus (the test adds the second later, which IfNotPresent ignores): rendered with both, the Single selector finds two, as function-environment-configs says",
  },
  {
    rule: "composition/mode-resources",
    file: "apiextensions/environment/resolveIfNotPresent/setup/composition.yaml",
    line: 22,
    reason: "mode: Resources, removed in Crossplane v2 (the legacy environment tests)",
  },
  {
    rule: "schema/cel",
    file: "apiextensions/mrd/validation/mrd-invalid.yaml",
    line: 9,
    reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says",
  },
  {
    rule: "schema/cel",
    file: "apiextensions/mrd/validation/mrd-valid-updated-invalid.yaml",
    line: 9,
    reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says",
  },
  {
    rule: "composition/function-missing",
    file: "apiextensions/xrd/referenceable-version-change/setup/composition-v1.yaml",
    line: 15,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "composition/function-missing",
    file: "apiextensions/xrd/referenceable-version-change/setup/composition-v2.yaml",
    line: 15,
    reason: "the Function is not in the corpus (the e2e suite installs or fakes it in the cluster)",
  },
  {
    rule: "schema/required",
    file: "apiextensions/xrd/subresources/crd-scale.yaml",
    line: 5,
    reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it",
  },
  {
    rule: "schema/required",
    file: "apiextensions/xrd/subresources/crd-scale.yaml",
    line: 5,
    reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it",
  },
  {
    rule: "schema/required",
    file: "apiextensions/xrd/subresources/crd-scale.yaml",
    line: 5,
    reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it",
  },
  {
    rule: "schema/required",
    file: "apiextensions/xrd/subresources/crd-scale.yaml",
    line: 5,
    reason: "a CRD with spec: {}: a partial object the Go test compares with, never applied; applied, the API server would refuse it",
  },
  {
    rule: "xrd/names",
    file: "apiextensions/xrd/validation/xrd-immutable-updated.yaml",
    line: 4,
    reason: "invalid on purpose: the group changed under an unchanged name (the comment says the field is immutable)",
  },
  {
    rule: "schema/cel",
    file: "apiextensions/xrd/validation/xrd-invalid.yaml",
    line: 10,
    reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says",
  },
  {
    rule: "schema/cel",
    file: "apiextensions/xrd/validation/xrd-valid-updated-invalid.yaml",
    line: 10,
    reason: "invalid on purpose (the file's name says so): a plural name with upper case, as the CRD's rule says",
  },
  {
    rule: "schema/required",
    file: "pkg/configuration/digest/configuration-revision.yaml",
    line: 7,
    reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it",
  },
  {
    rule: "schema/unknown-field",
    file: "pkg/dependency-upgrade/downgrade/package/crossplane.yaml",
    line: 20,
    reason: "spec.repository: no such field in a meta.pkg.crossplane.io/v1 Configuration (Crossplane's package parser drops it without a word)",
  },
  {
    rule: "schema/required",
    file: "pkg/image-config/authentication/configuration-with-private-dependency/provider.yaml",
    line: 7,
    reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it",
  },
  {
    rule: "schema/required",
    file: "pkg/image-config/rewrite/provider.yaml",
    line: 7,
    reason: "spec: {}: a partial object the Go test reads, never applies (its comment says so); applied, the API server would refuse it",
  },
  {
    rule: "schema/cel",
    file: "protection/usage/standalone-namespaced/ref-without-by-cross-namespace-invalid/usage.yaml",
    line: 6,
    reason: "invalid on purpose (the directory's name says so): a cross-namespace of without by",
  },
  {
    rule: "schema/cel",
    file: "protection/usage/standalone-namespaced/selector-without-by-cross-namespace-invalid/usage.yaml",
    line: 6,
    reason: "invalid on purpose (the directory's name says so): a cross-namespace of without by",
  },
];
