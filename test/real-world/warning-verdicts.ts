/**
 * The ledger of warnings on the public repositories of ../shared/corpus/real: every class (rule)
 * of warning `check` reports there, with its verdict, read against the upstream semantics. A
 * class not listed fails the real-world test: judge it before it lands. Per-repository notes add
 * to the class's verdict where that repository shows more.
 */
export const WARNING_VERDICTS: Record<string, string> = {
  "schema/missing":
    "true: no schema for the kind here: managed resources and provider configs of providers whose CRDs are neither in the repository nor fetchable offline, and kinds of tools composition-ci ships no schema for (Argo CD, Flux, Knative Eventing and the old build.knative.dev, Kyma kinds other than the serverless Function, SAP BTP, cert-manager, ...); the objects are read, not validated, said once per kind in text",
  "package/unavailable":
    "true: the packages the repository depends on cannot be pulled offline (the run is COMPOSITION_CI_OFFLINE=1 here); their kinds are checked without their CRDs, with the fix (functions pull)",
  "render/not-rendered":
    "true: sources composition-ci may not render here, said once per function or Composition with the fix: functions that run code from their input (function-kcl, function-pythonic, function-python) or Upbound projects' embedded functions need functions.trusted or --allow-exec, packages not in the cache offline, a Composition the repository does not decide (none of the type, or several and no selector), an object only the cluster holds",
  "render/legacy-mode":
    "true: mode: Resources Compositions, rendered through the conversion crossplane beta convert pipeline-composition does; read once per message in text",
  "composition/mode-resources":
    "true: Crossplane v2 removed mode: Resources; in a repository evidently written for v1 (crossplane/v1-repository) each is a warning, not an error",
  "crossplane/v1-repository":
    "true: the repository is written for Crossplane v1 (legacy Compositions, short package names, ControllerConfigs, nothing only v2 has): said once with the two fixes",
  "function/input-invalid":
    "true as a warning: a step's input written with another group than its function's input type (crossplane-diff's go-templating fixtures say gotemplating.fn.crossplane.io/v1beta1 Input or similar) or beyond its generated CRD (function-kcl's params are RawExtension values); the function decodes it anyway, so never an error",
  "composition/xrd-missing":
    "true as a warning: a Composition whose XR type no XRD of the repository defines (function examples rendered with a standalone XR); the XRD may come from elsewhere",
  "composition/xrd-version":
    "true as a warning: the only XRD of the type is a sibling example's, serving another version; each example is rendered on its own, so it may never be installed with this Composition",
  "schema/duplicate-definition":
    "true as a warning: two differing definitions of one type in one directory (alternative test fixtures); in one package it would be an error",
  "render/schema":
    "true as a warning: a rendered object breaks the schema of a mock CRD elsewhere in the repository while its own tree installs the real provider, which cannot be fetched offline",
  "render/function-result": "true: what the function itself returned as a WARNING result",
  "render/required-missing":
    "true: a step asked by name for an object the repository does not hold and rendered without it; the render lacks what depends on it until the cluster holds it",
  "kyma/runtime":
    "true as a warning: Kyma samples written for older releases (nodejs14 to nodejs18, python39), which current serverless no longer runs; the release the cluster runs decides",
  "render/kpt-result": "true: what the kpt functions themselves returned as warnings (set-namespace, apply-replacements, ...)",
  "schema/cel":
    "true: an x-kubernetes-validations rule of the kind's schema fails (in a v1 repository, Provider packages without a registry: each says crossplaneVersion: 1)",
  "schema/unknown-field": "true as a warning: a v1-only field (controllerConfigRef) in a repository written for Crossplane v1",
  "vela/definition-missing":
    "true: KubeVela Applications naming component or trait types that no definition of the repository defines (addon and cluster definitions); in kubevela, 5 are defined in .cue files the corpus copy leaves out",
  "function/package-unpinned": "true: a Function package without a version tag resolves to whatever the registry calls latest",
  "yaml/duplicate-key":
    "true as a warning: a mapping repeats a key with another value; kubectl, Helm and Argo CD keep the last, kustomize and Flux refuse the file",
  "xrd/schema-keyword": "true: an XRD schema keyword Crossplane drops without a word",
  "policy/": "true: the repository's own admission policy (Warn or Audit) says so of the object",
};

/** The verdict of a warning class: its rule's, or its policy's (`policy/<name>`). */
export function verdictOf(rule: string): string | undefined {
  return WARNING_VERDICTS[rule] ?? (rule.startsWith("policy/") ? WARNING_VERDICTS["policy/"] : undefined);
}
