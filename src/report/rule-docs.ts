// Generated from docs/rules.md by test/report/sarif-help.test.ts: do not edit. After changing
// docs/rules.md, run `npx vitest run test/report/sarif-help.test.ts -u` (that test fails until then).

/** A rule's row in docs/rules.md: the anchor of the row and its cells, as Markdown. */
export interface RuleDoc {
  /** The row's `<a id>` in docs/rules.md. */
  anchor: string;
  /** The "default" cell: the default severity, and when it differs. */
  severity: string;
  /** The "what it means" cell. */
  what: string;
  /** The "failing example" cell, when there is one. */
  example?: string;
  /** Rows that refine the rule in one context (`schema/type` on a P&T base). */
  also?: { anchor: string; label: string; what: string; example?: string }[];
}

/** composition-ci's rules, by id. */
export const RULE_DOCS: Readonly<Record<string, RuleDoc>> = {
  "yaml/syntax": {
    "anchor": "yaml-syntax",
    "severity": "error",
    "what": "the file is not valid YAML, or nests more than 128 levels deep (no manifest does; the limit is checked before any recursive parser runs, so it never depends on the stack); said at the line of its cause: an unclosed quote where the string opens (not where the text ends), an alias without its anchor at the alias",
    "example": "`name: [unclosed`"
  },
  "yaml/duplicate-key": {
    "anchor": "yaml-duplicate-key",
    "severity": "warning (info when both values are the same; error in a file a kustomization reads)",
    "what": "a mapping of a Kubernetes object has the same key twice. kubectl, Helm, Argo CD and `crossplane render` read YAML with sigs.k8s.io/yaml and keep the last value, and so is the object read and checked; kustomize and Flux refuse the file. A file that holds no Kubernetes object is nobody's concern. Found in one pass, linear in the file",
    "example": "`metadata: {name: a, name: b}`"
  },
  "yaml/alias-limit": {
    "anchor": "yaml-alias-limit",
    "severity": "error",
    "what": "a document expands more than 100 aliases (anchor bomb)",
    "example": "nested `&a [*b, *b, …]`"
  },
  "yaml/lenient": {
    "anchor": "yaml-lenient",
    "severity": "info",
    "what": "a quoted string continues on lines indented no deeper than its key: YAML 1.2 forbids it, the Go YAML parsers kubectl uses accept it; the file is read as they read it",
    "example": "`d: \"first` with `second\"` on the next line at the key's column"
  },
  "yaml/ambiguous-boolean": {
    "anchor": "yaml-ambiguous-boolean",
    "severity": "warning",
    "what": "an unquoted `yes`, `no`, `on`, `off`, `y` or `n` (any casing go-yaml v2 knows) is a string to kustomize and Flux (YAML 1.2) and a boolean to kubectl, Helm, Argo CD and `crossplane render` (YAML 1.1). The object is checked with both readings: where the schema refuses the boolean (a label, a ConfigMap value, an env value) the finding says to quote it; where it refuses the string (a boolean field) it replaces that type error and says to write `true`/`false`; elsewhere (no schema, a free-form field, a key) it says the two tools mean different things. A composed resource's base, a function's input and KubeVela properties are judged by their own kind's schema the same way, once (values that reach an object only through an alias or a `<<` merge are not followed)",
    "example": "`data: {debug: yes}` in a ConfigMap"
  },
  "file/too-large": {
    "anchor": "file-too-large",
    "severity": "warning",
    "what": "the file is over `maxFileBytes` (5 MiB) and was not read, so nothing in it is checked (a limit of composition-ci, not a fault of the repository: `maxFileBytes` raises it)",
    "example": "a 6 MiB dump"
  },
  "file/unreadable": {
    "anchor": "file-unreadable",
    "severity": "error",
    "what": "the file is listed but cannot be read (permissions, vanished mid-run); also a directory that cannot be listed, named with a trailing `/` (its files would otherwise go unchecked in silence)",
    "example": "a `chmod 000` file or directory"
  },
  "file/binary": {
    "anchor": "file-binary",
    "severity": "warning",
    "what": "the file has a NUL byte in its first 8 KiB",
    "example": "a `.yaml` that is really a tarball"
  },
  "file/templated": {
    "anchor": "file-templated",
    "severity": "info",
    "what": "a template, not a manifest: its tool's output is applied, not the file; skipped (its objects are still known by name for references). Go/Helm/nunjucks markers (`{{ }}`, `{% %}`) that break the YAML; ytt files (`#@` annotations, `_ytt_lib/`); Backstage skeletons (`${{ values.x }}`); a Helm chart's `templates/` files with `{{ }}` actions, even quoted ones",
    "example": "`name: {{ .Values.name }}`; `#@ load(\"@ytt:data\", \"data\")`"
  },
  "file/encoding": {
    "anchor": "file-encoding",
    "severity": "error",
    "what": "the file is not valid UTF-8, or starts with a UTF-16 byte-order mark and is not valid UTF-16; not read",
    "example": "a Latin-1 `é` in a `.yaml`"
  },
  "file/not-a-manifest": {
    "anchor": "file-not-a-manifest",
    "severity": "info",
    "what": "a file with no `apiVersion` and `kind` that is not valid YAML or JSON (or nests over 128 levels) is skipped, not reported as a syntax error",
    "example": "a `bundleconfig.json` with `//` comments"
  },
  "file/not-applied": {
    "anchor": "file-not-applied",
    "severity": "info",
    "what": "files of objects not meant to be applied are not checked as manifests, said once per kind of file: kuttl and chainsaw test assertions, files chainsaw Tests fill in, kustomize patches, `crossplane render` outputs (golden files)",
    "example": "a kuttl `assert-install.yaml`"
  },
  "file/ignored": {
    "anchor": "file-ignored",
    "severity": "info",
    "what": "a directory named on the command line is ignored by a `.gitignore`; it is read anyway, and the finding names that `.gitignore`",
    "example": "`validate out` when `.gitignore` lists `out/`"
  },
  "file/no-manifests": {
    "anchor": "file-no-manifests",
    "severity": "warning",
    "what": "the run read no Kubernetes object: no `*.yaml`, `*.yml` or `*.json` file below the paths (after `.gitignore` and `ignore:`), or none holds a document with `apiVersion` and `kind`",
    "example": "`validate docs` on a directory of Markdown"
  },
  "config/head-not-applied": {
    "anchor": "config-head-not-applied",
    "severity": "warning",
    "what": "on an untrusted event (a pull request, a merge queue, a comment; SECURITY.md has the matrix) the head changes the gate in `.composition-ci.yaml` (`rules`, `ignore`, `maxFileBytes`, `tests`, …): the check uses the base branch's config, and the finding names what the change would turn off; it takes effect after merge",
    "example": "`rules: {\"schema/*\": off}` added in a pull request"
  },
  "crossplane/v1-repository": {
    "anchor": "crossplane-v1-repository",
    "severity": "warning",
    "what": "the repository is evidently written for Crossplane v1 (`mode: Resources` Compositions, ControllerConfigs, packages without a registry, … and no v2-only form: no v2 XRD, namespaced managed resource, Operation or MRD/MRAP) while the config names no `crossplaneVersion`: said once with the count and the two fixes, and each v1-only form is a warning rather than an error (whether the cluster runs v2 is a guess). With v2-only forms present, or `crossplaneVersion: 2`, they stay errors",
    "example": "36 legacy Compositions and no v2 XRD"
  },
  "internal/error": {
    "anchor": "internal-error",
    "severity": "warning",
    "what": "composition-ci failed on one file or source (its bug, not the repository's); the other files and sources go on, and `--debug` prints the stack"
  },
  "reference/unread": {
    "anchor": "reference-unread",
    "severity": "info",
    "what": "a Function, OAM or KubeVela definition a manifest refers to is only in a file composition-ci does not read (a Helm template, a document with a YAML error); said instead of a missing-definition finding, and nothing is checked against it",
    "example": "a ComponentDefinition only in a Helm `templates/` file"
  },
  "schema/missing": {
    "anchor": "schema-missing",
    "severity": "warning",
    "what": "no schema for the object's group/version/kind (`--missing-schemas`); the message names a definition of the repository that serves other versions of the kind, or other kinds of its group, and says when a Kubernetes API version has no built-in schema (only GA kinds have) or a package that could not be fetched may define it",
    "example": "`apiVersion: nop.crossplane.io/v1alpha1, kind: NopResource` without its CRD"
  },
  "schema/unknown-group": {
    "anchor": "schema-unknown-group",
    "severity": "error",
    "what": "the object's API group is not one Kubernetes or Crossplane serves but differs from exactly one of them in one label by a letter or two (one for words under 8 letters; short labels such as `nop`, `ec2` or `k8s` are names, not words, and Cluster API's `*.x-k8s.io` is left alone): the message says which was meant. The API server refuses the object, and without this it would only be a kind with no schema",
    "example": "`apiVersion: apiextension.crossplane.io/v1` (did you mean `apiextensions.crossplane.io/v1`?)"
  },
  "schema/unknown-field": {
    "anchor": "schema-unknown-field",
    "severity": "error",
    "what": "a field the schema does not declare (and does not preserve); for Kubernetes core kinds, a field their type does not have (`schemas/kubernetes-fields.json`), as the API server refuses it under strict field validation and server-side apply; a CRD's schema keywords included, however deep",
    "example": "`spec: {pipline: […]}` in a Composition; `replica: 3` in a Deployment",
    "also": [
      {
        "anchor": "schema-on-a-base",
        "label": "`schema/unknown-field`, `schema/type`, `schema/enum`, `schema/format` on a base",
        "what": "a composed resource's `base` in a P&T input (or a `mode: Resources` Composition) is checked against its kind's schema as a partial object: unknown fields, types, enums and formats, at the base's own line (not `required` or CEL rules: patches fill the rest). Messages start `composed <Kind> base:`",
        "example": "`volumeMod: Block` in a Bucket's base"
      }
    ]
  },
  "schema/required": {
    "anchor": "schema-required",
    "severity": "error",
    "what": "a required field is missing (after defaults; `status` is never checked: the API server drops what a manifest says there before it validates); also an object with neither `metadata.name` nor `metadata.generateName`, a built-in kind with no `spec` where its spec has required fields, and a document with `metadata` and a `kind` (a CamelCase name) but no `apiVersion`, or an `apiVersion` (`group/v1`) but no `kind`, which would otherwise be read as nothing (a file with neither, such as a values.yaml or a workflow, and a Helm Chart.yaml say nothing)",
    "example": "a Function without `spec.package`; `kind: ConfigMap` with `metadata` and no `apiVersion`"
  },
  "schema/type": {
    "anchor": "schema-type",
    "severity": "error",
    "what": "wrong type",
    "example": "`replicas: two`",
    "also": [
      {
        "anchor": "schema-on-a-base",
        "label": "`schema/unknown-field`, `schema/type`, `schema/enum`, `schema/format` on a base",
        "what": "a composed resource's `base` in a P&T input (or a `mode: Resources` Composition) is checked against its kind's schema as a partial object: unknown fields, types, enums and formats, at the base's own line (not `required` or CEL rules: patches fill the rest). Messages start `composed <Kind> base:`",
        "example": "`volumeMod: Block` in a Bucket's base"
      }
    ]
  },
  "schema/enum": {
    "anchor": "schema-enum",
    "severity": "error",
    "what": "value not among the allowed ones",
    "example": "`mode: Pipelines`",
    "also": [
      {
        "anchor": "schema-on-a-base",
        "label": "`schema/unknown-field`, `schema/type`, `schema/enum`, `schema/format` on a base",
        "what": "a composed resource's `base` in a P&T input (or a `mode: Resources` Composition) is checked against its kind's schema as a partial object: unknown fields, types, enums and formats, at the base's own line (not `required` or CEL rules: patches fill the rest). Messages start `composed <Kind> base:`",
        "example": "`volumeMod: Block` in a Bucket's base"
      }
    ]
  },
  "schema/pattern": {
    "anchor": "schema-pattern",
    "severity": "error",
    "what": "value does not match the schema's RE2 pattern",
    "example": "a port name `HTTP` where `^[a-z]+$`"
  },
  "schema/format": {
    "anchor": "schema-format",
    "severity": "error",
    "what": "value is not of the format (int32, date-time, byte, duration, …)",
    "example": "`created: yesterday` with `format: date-time`",
    "also": [
      {
        "anchor": "schema-on-a-base",
        "label": "`schema/unknown-field`, `schema/type`, `schema/enum`, `schema/format` on a base",
        "what": "a composed resource's `base` in a P&T input (or a `mode: Resources` Composition) is checked against its kind's schema as a partial object: unknown fields, types, enums and formats, at the base's own line (not `required` or CEL rules: patches fill the rest). Messages start `composed <Kind> base:`",
        "example": "`volumeMod: Block` in a Bucket's base"
      }
    ]
  },
  "schema/limit": {
    "anchor": "schema-limit",
    "severity": "error",
    "what": "minimum/maximum, lengths, item and property counts",
    "example": "an empty `pipeline: []` (minItems 1)"
  },
  "schema/duplicate": {
    "anchor": "schema-duplicate",
    "severity": "error",
    "what": "duplicate items in a set list, or duplicate keys in a map list",
    "example": "two pipeline steps named `one`"
  },
  "schema/invalid": {
    "anchor": "schema-invalid",
    "severity": "error",
    "what": "anyOf/oneOf/not and other schema checks"
  },
  "schema/cel": {
    "anchor": "schema-cel",
    "severity": "error (info when not evaluated)",
    "what": "an `x-kubernetes-validations` rule is false for the object (after defaults), with its `message`, `messageExpression` or `failed rule: …`, at its `fieldPath`; transition rules (`oldSelf`) only apply to updates and are skipped; Kubernetes' list (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`) and regex (`find`, `findAll`) libraries are provided; a rule using one that is not (`quantity`, `url`, `ip`, `cidr`, …) is an info finding saying it was not evaluated, and so is a rule whose nested loops (`all`, `exists`, `map`, `filter`) would take over a million steps on the object, or whose evaluation spends over a million units (each library call charged for the values it reads and builds) or 500 ms (the API server's cost budget refuses such rules; a manifest cannot stall the run)",
    "example": "an XRD rule `self.tier != 'gold' || self.replicas >= 3` on an XR with one replica"
  },
  "schema/invalid-definition": {
    "anchor": "schema-invalid-definition",
    "severity": "error for a structural defect, warning otherwise",
    "what": "a CRD/XRD in the repo has a schema problem; that part is not applied. Error: a part of the wrong shape (a `type` that is not a type name, `properties` that are not a map of schemas, a `$ref`); warning: a part that cannot be compiled (a pattern that is not RE2)",
    "example": "`type: strin` (error); `pattern: \"(?=x)\"` (warning)"
  },
  "schema/duplicate-definition": {
    "anchor": "schema-duplicate-definition",
    "severity": "error in one file or one package; warning in one directory; info across packages",
    "what": "two CRDs/XRDs in the repo define the same GVK differently. Installed together for certain (one file, one package), the cluster keeps whichever is applied last; in one directory they are as often alternative fixtures; in alternative packages each manifest is checked against the nearest",
    "example": "two XRDs for `example.org/v1 XR` in one package"
  },
  "schema/stale-definition": {
    "anchor": "schema-stale-definition",
    "severity": "warning",
    "what": "a CRD of the repository refuses objects of the repository that the newer schema composition-ci ships for the kind accepts: an older copy of the CRD. Said once, on the CRD; its objects are checked against the newer schema. (Where several copies of a CRD are equally near an object, the object is fine when any of them accepts it.)",
    "example": "a vendored porch PackageVariant CRD without `upstream.workspaceName`"
  },
  "schema/location-failed": {
    "anchor": "schema-location-failed",
    "severity": "warning",
    "what": "a schema location could not be read (network, HTTP error, bad JSON)",
    "example": "a 500 from the catalog"
  },
  "schema/kubeconform": {
    "anchor": "schema-kubeconform",
    "severity": "error",
    "what": "kubeconform (`--engine kubeconform`) found a problem"
  },
  "render/function-failed": {
    "anchor": "render-function-failed",
    "severity": "error",
    "what": "a function could not answer: refused (`--allow-exec`), unavailable (needs Docker), crashed, timed out, or sent a malformed response; on the pipeline step",
    "example": "a step whose function is neither built in nor configured"
  },
  "render/function-fatal": {
    "anchor": "render-function-fatal",
    "severity": "error",
    "what": "a function returned a FATAL result; the XR is not rendered. A built-in function-go-templating execution past its budget (10 million steps or 60 s; SECURITY.md) is one",
    "example": "a P&T `math` transform on a string field; `{{ range until 100000000 }}`"
  },
  "render/function-result": {
    "anchor": "render-function-result",
    "severity": "warning/info",
    "what": "a function's WARNING (warning) or NORMAL (info) result",
    "example": "a `Required` patch whose field is absent"
  },
  "render/required-missing": {
    "anchor": "render-required-missing",
    "severity": "warning (info when the step's input says `policy.resolution: Optional`)",
    "what": "in a repository render (`check`, `render --all`, `diff`), a step asked for an object by name that neither the repository nor `--required-resources` holds, and went on without it (a function that fails without it leaves the source not rendered instead): what it makes from that object is missing from the render, as it would be until the cluster holds it",
    "example": "a function-kro `externalRef` to a ConfigMap only the cluster has"
  },
  "render/pipeline": {
    "anchor": "render-pipeline",
    "severity": "error",
    "what": "the pipeline could not run: requirements did not stabilize, missing credentials Secret",
    "example": "a function that asks for different resources every call"
  },
  "render/composition-mismatch": {
    "anchor": "render-composition-mismatch",
    "severity": "error",
    "what": "the Composition's `compositeTypeRef` is not the XR's type, or the XR's `compositionSelector` does not select it",
    "example": "`render xr.yaml other-composition.yaml …`"
  },
  "render/no-pipeline": {
    "anchor": "render-no-pipeline",
    "severity": "error",
    "what": "the Composition has no pipeline (not `mode: Pipeline`, or no `spec.pipeline`; an empty list renders nothing, as the engine does)",
    "example": "`mode: Pipeline` with no `pipeline`"
  },
  "render/invalid-composition": {
    "anchor": "render-invalid-composition",
    "severity": "error",
    "what": "the Composition cannot be rendered as written: `spec` missing, `pipeline`, `resources` or `patchSets` not a list of objects, a step without a string `step` or `functionRef.name`, an `input` or `environment` that is not an object; on the XR",
    "example": "`input: not-an-object` on a step"
  },
  "render/invalid-operation": {
    "anchor": "render-invalid-operation",
    "severity": "error",
    "what": "an Operation (or the one a CronOperation or WatchOperation creates) has no valid pipeline: no steps, or a step without `step` or `functionRef.name`",
    "example": "`render op` of a CronOperation with `pipeline: []`"
  },
  "render/builtin-version": {
    "anchor": "render-builtin-version",
    "severity": "warning (diff and the PR comment); info when both versions' real packages rendered",
    "what": "a change moves a Function to another package version (tag or digest) while the function runs built in: the built-in models one version, so the rendered diff of the sources that use it cannot show what the new version changes; said on the Function, counting those sources. Where the package is trusted and can be pulled, both sides render with their real packages instead (an info says so). The same for a Kptfile step whose catalog function (set-labels, set-namespace, …) runs built in and moves to another tag: said on the step",
    "example": "`function-patch-and-transform:v0.8.2` → `v0.9.0`"
  },
  "render/legacy-mode": {
    "anchor": "render-legacy-mode",
    "severity": "warning",
    "what": "a `mode: Resources` Composition, rendered by converting it to a P&T pipeline",
    "example": "`spec.resources` without `mode`"
  },
  "render/invalid-name": {
    "anchor": "render-invalid-name",
    "severity": "error",
    "what": "a composed resource's `metadata.name` is not an RFC 1123 subdomain",
    "example": "`name: My_Bucket`"
  },
  "schema/transition": {
    "anchor": "schema-transition",
    "severity": "error",
    "what": "in `diff`: a repository object that exists at base and head breaks a transition rule (`oldSelf`) of its schema on update",
    "example": "an ManagedResourceDefinition's `state` changed from Active"
  },
  "render/transition": {
    "anchor": "render-transition",
    "severity": "error",
    "what": "in `diff`: a rendered object that exists at base and head breaks a transition rule; reported on the source",
    "example": "an immutable `zone` patched from a changed XR field"
  },
  "render/nested-depth": {
    "anchor": "render-nested-depth",
    "severity": "info",
    "what": "a nested XR deeper than `--max-nested-depth` was not rendered",
    "example": "a composition chain of 6 levels"
  },
  "render/budget": {
    "anchor": "render-budget",
    "severity": "warning",
    "what": "a source's nested XRs past its budget (10,000 composed objects or 1,000 nested renders per source, 200,000 composed objects per run) were not rendered; what they compose is unknown, so the source's diff is unknown there. Said once per source; other sources go on",
    "example": "an XR whose Composition composes 20 XRs of its own type"
  },
  "render/no-watched-resource": {
    "anchor": "render-no-watched-resource",
    "severity": "info",
    "what": "a WatchOperation was rendered without a watched resource: the repository has nothing its watch selects",
    "example": "`watch: {kind: Cluster}` with no Cluster in the repo"
  },
  "render/schema": {
    "anchor": "render-schema",
    "severity": "error",
    "what": "a rendered object breaks its schema; reported at the P&T template it came from (its base's line, naming the XR that rendered it), else on the XR or ApplicationConfiguration. A mistake already in the base is reported once, at the base, by validation",
    "example": "`replicas` patched from a string"
  },
  "render/oam-failed": {
    "anchor": "render-oam-failed",
    "severity": "error",
    "what": "an ApplicationConfiguration cannot be rendered: a workload or trait type with no definition, a parameter value that is not a string or integer, a field path that cannot be written",
    "example": "`value: true` for a parameter"
  },
  "render/oam-waiting": {
    "anchor": "render-oam-waiting",
    "severity": "info",
    "what": "an OAM workload or trait waits on a dataOutput whose value is live status or whose condition does not hold; it is not rendered",
    "example": "an input from `status.endpoint`"
  },
  "render/oam-scope": {
    "anchor": "render-oam-scope",
    "severity": "warning",
    "what": "a scope is not in the repository, or has no ScopeDefinition there: its workloadRefs are not rendered",
    "example": "a HealthScope applied separately"
  },
  "render/oam-unsupported": {
    "anchor": "render-oam-unsupported",
    "severity": "warning",
    "what": "store-based data passing (`outputStore`/`inputStore`) is not rendered offline",
    "example": "`dataOutputs: [{outputStore: ...}]`"
  },
  "render/not-rendered": {
    "anchor": "render-not-rendered",
    "severity": "warning (info for KubeVela Applications)",
    "what": "sources were not rendered because a function or image cannot run here (not trusted, not in the package cache or not pullable, needs Docker, a function of an Upbound project); said once per function, on its Function object or first step, with the count of sources and the fix. KubeVela Applications: their definitions are CUE templates, validated only (info)",
    "example": "a function-kcl step without `functions.trusted` or `--allow-exec`; any `core.oam.dev/v1beta1 Application`"
  },
  "test/failed": {
    "anchor": "test-failed",
    "severity": "error",
    "what": "a CompositionTest assertion or a golden file does not match today's render: the object, the field path, want and got, at the assertion's line",
    "example": "`replicas: 3` asserted, 5 rendered"
  },
  "test/error": {
    "anchor": "test-error",
    "severity": "error",
    "what": "a test cannot run: a file it names is missing, or the render it needs failed",
    "example": "`xrPath: examples/missing.yaml`"
  },
  "test/unreadable": {
    "anchor": "test-unreadable",
    "severity": "error",
    "what": "a test file cannot be read (YAML, an unknown field, both `xr` and `xrPath`), with its line (exit 2 in `composition-ci test`)",
    "example": "`assertResource:`"
  },
  "kpt/kptfile": {
    "anchor": "kpt-kptfile",
    "severity": "error",
    "what": "a Kptfile kpt would not read: not `kpt.dev/v1 Kptfile`, an unknown field, a function with neither `image` nor `exec` or both, an invalid image reference",
    "example": "`image:` and `exec:` in one step"
  },
  "kpt/function-config": {
    "anchor": "kpt-function-config",
    "severity": "error",
    "what": "both `configMap` and `configPath`, or a `configPath` outside the package, not one KRM object, or not one of the package's resources",
    "example": "`configPath: ../shared.yaml`"
  },
  "kpt/selector": {
    "anchor": "kpt-selector",
    "severity": "warning",
    "what": "an empty selector (in `selectors` it selects everything; in `exclude` kpt ignores it)",
    "example": "`selectors: [{}]`"
  },
  "render/kpt-result": {
    "anchor": "render-kpt-result",
    "severity": "as the result's severity",
    "what": "a result a function returned, at the resource and field it names",
    "example": "set-namespace's warning"
  },
  "render/kpt-failed": {
    "anchor": "render-kpt-failed",
    "severity": "error",
    "what": "a function failed (non-zero exit, an error result, output kpt rejects)",
    "example": "a validator's error"
  },
  "composition/xrd-missing": {
    "anchor": "composition-xrd-missing",
    "severity": "warning",
    "what": "`compositeTypeRef` names a type no XRD in the repo defines (it may come from a package or be installed apart, so never an error); a claim kind gets a hint",
    "example": "`kind: Buckets` for an XRD of `Bucket`"
  },
  "composition/xrd-version": {
    "anchor": "composition-xrd-version",
    "severity": "error (warning when the XRD is a sibling directory's)",
    "what": "the XRD has no such version, it is not served, or (v1 XRDs) it is not the referenceable one. Certain when the XRD is in the Composition's package or directory chain; an XRD reached only through a shared ancestor (a sibling example's) may never be installed with it",
    "example": "`apiVersion: storage.example.org/v2` when the XRD has `v1` only"
  },
  "composition/mode-resources": {
    "anchor": "composition-mode-resources",
    "severity": "error (warning with `crossplaneVersion: 1`)",
    "what": "`mode: Resources` (or `spec.resources` without a mode) was removed in Crossplane v2; convert with `crossplane beta convert pipeline-composition`",
    "example": "`mode: Resources`"
  },
  "composition/pipeline": {
    "anchor": "composition-pipeline",
    "severity": "error",
    "what": "no steps, a step without a name, duplicate step names, a step without `functionRef.name`, an `input` without apiVersion/kind. Replaces the schema findings that say the same at the same place",
    "example": "two steps named `pt`"
  },
  "composition/function-missing": {
    "anchor": "composition-function-missing",
    "severity": "error (warning when the repo has no Functions)",
    "what": "a step's `functionRef.name` is neither a `pkg.crossplane.io` Function in the repo nor under `functions:` in the config",
    "example": "`name: function-auto-readiness`"
  },
  "function/input-invalid": {
    "anchor": "function-input-invalid",
    "severity": "warning",
    "what": "a step's `input` is not the function's input type, or breaks its schema. A function decodes its input into its own Go type (no API server admits it), so a group the function ignores or a generated CRD stricter than the type is a warning, never an error; what the function itself refuses shows when it renders. The function is known by its Function's `spec.package` when crossplane-contrib or Upbound publishes it (registry and tag ignored): patch-and-transform → `pt.fn.crossplane.io Resources`, go-templating → `gotemplating.fn.crossplane.io GoTemplate`, auto-ready → `autoready.fn.crossplane.io Input`; a fork published elsewhere is checked against its own input CRD (from the repo or `--crds`) or not at all. Lines point into the Composition",
    "example": "`bass:` instead of `base:` in a P&T resource"
  },
  "function/package-unpinned": {
    "anchor": "function-package-unpinned",
    "severity": "warning",
    "what": "a Function's `spec.package` has no tag, `latest`, or a floating tag (anything but a full semver tag); a digest passes",
    "example": "`function-auto-ready` with no tag, `:v0.5`"
  },
  "pt/from-field-path": {
    "anchor": "pt-from-field-path",
    "severity": "error",
    "what": "a `fromFieldPath` of a FromCompositeFieldPath / CombineFromComposite patch (or an environment patch) does not exist in the XR schema derived from the XRD",
    "example": "`fromFieldPath: spec.regoin`"
  },
  "pt/to-field-path": {
    "anchor": "pt-to-field-path",
    "severity": "error",
    "what": "a `toFieldPath` does not exist in the composed resource's schema (when its `base` kind has a CRD in the repo or `--crds`), or in the XR schema for To*CompositeFieldPath",
    "example": "`toFieldPath: spec.sizes` on a Widget with `spec.size`"
  },
  "pt/patchset-missing": {
    "anchor": "pt-patchset-missing",
    "severity": "error",
    "what": "a `PatchSet` patch names a patch set the input does not define",
    "example": "`patchSetName: comon`"
  },
  "pt/transform": {
    "anchor": "pt-transform",
    "severity": "error",
    "what": "a transform cannot take the value the schema gives it (`math` on a string, `map`/`match` on a non-string, `string Join` on a non-list, an unsupported `convert`), a `map` with no pairs, an invalid RE2 regexp",
    "example": "`math` on `spec.region` (a string)"
  },
  "pt/readiness-field-path": {
    "anchor": "pt-readiness-field-path",
    "severity": "error",
    "what": "a readiness check needs a `fieldPath` and has none, the path is not in the composed schema, or the check can never pass for the field's type",
    "example": "`MatchTrue` on a string field"
  },
  "pt/duplicate-resource": {
    "anchor": "pt-duplicate-resource",
    "severity": "error",
    "what": "two resources of one input have the same name",
    "example": "two resources named `widget`"
  },
  "package/unavailable": {
    "anchor": "package-unavailable",
    "severity": "warning",
    "what": "the schemas of a package the repository depends on (`crossplane.yaml`, `upbound.yaml`, a Provider/Function/Configuration object, the config's `packages:`) could not be fetched: offline and not in the cache, the registry failed, no tag satisfies the constraint. Its kinds are then `schema/missing`",
    "example": "`--offline` with an empty cache"
  },
  "package/untrusted": {
    "anchor": "package-untrusted",
    "severity": "info",
    "what": "a dependency is on a registry composition-ci does not fetch schemas from by default (only xpkg.crossplane.io and xpkg.upbound.io); add it to `packages:` (or `functions.trusted`)",
    "example": "`ghcr.io/acme/provider-x`"
  },
  "xrd/names": {
    "anchor": "xrd-names",
    "severity": "error",
    "what": "the XRD is not named `<plural>.<group>`, the group has no dot, or the plural is not lowercase",
    "example": "`name: xdatabase.db.example.org` for plural `xdatabases`"
  },
  "xrd/claim-names": {
    "anchor": "xrd-claim-names",
    "severity": "error",
    "what": "claim names equal the XR names, or a v2 XRD that is not `LegacyCluster` offers a claim",
    "example": "`claimNames.kind: XDatabase`"
  },
  "xrd/referenceable": {
    "anchor": "xrd-referenceable",
    "severity": "error",
    "what": "not exactly one version is `referenceable`, or the referenceable one is not served",
    "example": "two referenceable versions"
  },
  "xrd/schema-keyword": {
    "anchor": "xrd-schema-keyword",
    "severity": "warning",
    "what": "a key of a version's `openAPIV3Schema` that is no schema keyword: Crossplane reads the schema into the CRD's JSONSchemaProps, which drops what it does not know, so nothing enforces it (the message names the keyword meant)",
    "example": "`requried: [size]`"
  },
  "xrd/composition-ref": {
    "anchor": "xrd-composition-ref",
    "severity": "error (warning when the repo has no Compositions)",
    "what": "`defaultCompositionRef` / `enforcedCompositionRef` names a Composition that is not in the repo, or one for another type",
    "example": "`defaultCompositionRef: {name: xdatabase}`"
  },
  "xr/composition-missing": {
    "anchor": "xr-composition-missing",
    "severity": "error",
    "what": "the repository holds Compositions of an XR's (or claim's, or nested XR's) type, but none matches its `compositionRef`, selector or the XRD's enforced or default ref. When the repository holds no Composition of the type at all (it comes from a package or the cluster), or several equally near (differently named; copies of one name are one) and nothing picks one (Crossplane would pick at random), the XR is not rendered instead: one `render/not-rendered` warning per type, never an error",
    "example": "`compositionRef: {name: xdatabases-aws}` while only `xdatabases-gcp` is here"
  },
  "oam/component-missing": {
    "anchor": "oam-component-missing",
    "severity": "error",
    "what": "`componentName` (or the component of a `revisionName`) is not in the repo; `componentName` and `revisionName` together",
    "example": "`componentName: apii`"
  },
  "oam/parameter-undeclared": {
    "anchor": "oam-parameter-undeclared",
    "severity": "error",
    "what": "`unsupported parameter \"x\"`: a parameter value the Component does not declare",
    "example": "`name: img`"
  },
  "oam/parameter-required": {
    "anchor": "oam-parameter-required",
    "severity": "error",
    "what": "`required parameter \"x\" not specified`",
    "example": "no value for a `required: true` parameter"
  },
  "oam/parameter-field-path": {
    "anchor": "oam-parameter-field-path",
    "severity": "error",
    "what": "a parameter's `fieldPaths` entry does not exist in the workload's schema (when known)",
    "example": "`spec.ports[0].containerPort` on a kind without `ports`"
  },
  "oam/trait-not-applicable": {
    "anchor": "oam-trait-not-applicable",
    "severity": "error",
    "what": "the TraitDefinition's `appliesToWorkloads` does not match the workload: empty or `\"*\"` match all; `\"*.<group>\"` matches the group of the WorkloadDefinition's `definitionRef.name`; any other entry must equal that `definitionRef.name` or the WorkloadDefinition's name (a bare kind never matches). The workload's definition is found by the `workload.oam.dev/type` label, the `type` field, or as `<plural>.<group>` from the CRD",
    "example": "a trait for `[cronjobs.batch, WebServer]` on a `webservers.apps.example.org` workload"
  },
  "oam/definition-missing": {
    "anchor": "oam-definition-missing",
    "severity": "warning (error for `type:`/`name:` forms, which the webhook cannot resolve)",
    "what": "a workload or trait whose definition is not in the repo or `clusterDefinitions`; the runtime falls back to a default definition. Also a workload/trait with neither apiVersion/kind nor a type",
    "example": "a `Scalr` trait"
  },
  "oam/workload-ref-path": {
    "anchor": "oam-workload-ref-path",
    "severity": "error",
    "what": "a trait sets `spec.workloadRef` but its TraitDefinition has no `workloadRefPath` and its schema no such field",
    "example": "`workloadRef:` on a Scaler"
  },
  "oam/data-dependency": {
    "anchor": "oam-data-dependency",
    "severity": "error",
    "what": "a `dataOutputName` names no `dataOutputs` in the ApplicationConfiguration, or data dependencies form a cycle (the cycle is listed)",
    "example": "web needs api's output and api needs web's"
  },
  "oam/duplicate-trait": {
    "anchor": "oam-duplicate-trait",
    "severity": "error",
    "what": "two traits of the same kind on one component",
    "example": "two `Scaler` traits"
  },
  "vela/definition-missing": {
    "anchor": "vela-definition-missing",
    "severity": "warning",
    "what": "an Application component `type` has no ComponentDefinition, or a trait `type` no TraitDefinition, in the repo. KubeVela's built-in definitions (`webservice`, `worker`, `task`, `scaler`, `gateway`, …; see `KUBEVELA_BUILTIN_DEFINITIONS` in `src/validate/rules/vela.ts`) and `clusterDefinitions` count as installed",
    "example": "`type: nighty`"
  },
  "vela/trait-not-applicable": {
    "anchor": "vela-trait-not-applicable",
    "severity": "info",
    "what": "KubeVela does not enforce `appliesToWorkloads` for v1beta1 Applications (neither its webhook nor its controllers read it; the v1alpha2 ApplicationConfiguration webhook did, see `oam/trait-not-applicable`), so this only says so: the TraitDefinition's `appliesToWorkloads` does not match the component's workload (`spec.workload.type`, or `spec.workload.definition` as `<plural>.<group>`) or the ComponentDefinition's name; same matching as OAM",
    "example": "`replicas` (`[\"*.apps\"]`) on a `cronjobs.batch` component"
  },
  "vela/trait-conflict": {
    "anchor": "vela-trait-conflict",
    "severity": "info",
    "what": "not enforced by KubeVela for Applications either; a trait's `conflictsWith` matches another trait of the component: by definition name, CRD name, `*.<group>`, or `labelSelector:k=v` on the other TraitDefinition's labels",
    "example": "`domain` conflicting with every trait labelled `scaling=true`"
  },
  "vela/properties": {
    "anchor": "vela-properties",
    "severity": "error",
    "what": "component or trait `properties` break the definition's parameter schema: the `schema-<name>` ConfigMap KubeVela generates (`openapi-v3-json-schema`), or a file under `parameterSchemas:` in the config",
    "example": "`port: http` for an integer parameter"
  },
  "policy/changed": {
    "anchor": "policy-changed",
    "severity": "info (warning for a removal)",
    "what": "in `diff` with the base's config trusted (`--trust-base-config`, the Action's `pr` mode, every untrusted event), the head adds, changes or removes a policy object or a policy's parameter object: the check applies the base's policies, and the change takes effect after merge; without it, a policy the head removes: head is checked without it, and what it found at base is unknown, not fixed",
    "example": "a pull request that removes a ValidatingAdmissionPolicy"
  }
};

/** Families documented by one row (`policy/<name>`), by family: their rules are the repository's. */
export const FAMILY_DOCS: Readonly<Record<string, RuleDoc & { pattern: string }>> = {
  "policy": {
    "anchor": "policy",
    "severity": "the policy's: Deny → error, Warn → warning, Audit → info; Kyverno Enforce → error, Audit → warning; Gatekeeper deny → error, warn → warning, dryrun → info",
    "what": "an object breaks the repository's admission policy `<name>` (for Gatekeeper, the Constraint's name), with the policy's message, at the field it names; a policy with several validations adds the validation's index (`policy/eu-only/1`), a Kyverno policy the rule's name (`policy/require-labels/check-team`). A policy that cannot be read or evaluated (CEL that does not compile, a binding to no policy, a paramRef to nothing) is a finding at the policy's own line. Fix the object, or the policy",
    "example": "a Deployment without the `team` label a `require-team-label` policy asks for",
    "pattern": "policy/<name>"
  }
};

/** Every anchor docs/rules.md has for a rule, a family or a note: a link to another would dangle. */
export const RULE_ANCHORS: readonly string[] = [
  "composition-function-missing",
  "composition-mode-resources",
  "composition-pipeline",
  "composition-xrd-missing",
  "composition-xrd-version",
  "config-head-not-applied",
  "crossplane-v1-repository",
  "file-binary",
  "file-encoding",
  "file-ignored",
  "file-no-manifests",
  "file-not-a-manifest",
  "file-not-applied",
  "file-templated",
  "file-too-large",
  "file-unreadable",
  "function-input-invalid",
  "function-package-unpinned",
  "internal-error",
  "knative-container",
  "knative-revision-name",
  "knative-timeout",
  "knative-traffic",
  "knative-traffic-sum",
  "kpt-function-config",
  "kpt-kptfile",
  "kpt-selector",
  "kyma-dependencies",
  "kyma-env",
  "kyma-handler",
  "kyma-resources",
  "kyma-runtime",
  "kyma-secret-mounts",
  "kyma-source",
  "kyma-source-syntax",
  "oam-component-missing",
  "oam-data-dependency",
  "oam-definition-missing",
  "oam-duplicate-trait",
  "oam-parameter-field-path",
  "oam-parameter-required",
  "oam-parameter-undeclared",
  "oam-trait-not-applicable",
  "oam-workload-ref-path",
  "package-unavailable",
  "package-untrusted",
  "policy",
  "policy-changed",
  "porch-downstream",
  "porch-package-variant",
  "porch-package-variant-set",
  "pt-duplicate-resource",
  "pt-from-field-path",
  "pt-patchset-missing",
  "pt-readiness-field-path",
  "pt-to-field-path",
  "pt-transform",
  "reference-unread",
  "render-budget",
  "render-builtin-version",
  "render-composition-mismatch",
  "render-function-failed",
  "render-function-fatal",
  "render-function-result",
  "render-invalid-composition",
  "render-invalid-name",
  "render-invalid-operation",
  "render-kpt-failed",
  "render-kpt-result",
  "render-legacy-mode",
  "render-nested-depth",
  "render-no-pipeline",
  "render-no-watched-resource",
  "render-not-rendered",
  "render-oam-failed",
  "render-oam-scope",
  "render-oam-unsupported",
  "render-oam-waiting",
  "render-pipeline",
  "render-required-missing",
  "render-schema",
  "render-transition",
  "schema-cel",
  "schema-duplicate",
  "schema-duplicate-definition",
  "schema-enum",
  "schema-format",
  "schema-invalid",
  "schema-invalid-definition",
  "schema-kubeconform",
  "schema-limit",
  "schema-location-failed",
  "schema-missing",
  "schema-on-a-base",
  "schema-pattern",
  "schema-required",
  "schema-stale-definition",
  "schema-transition",
  "schema-type",
  "schema-unknown-field",
  "schema-unknown-group",
  "test-error",
  "test-failed",
  "test-unreadable",
  "vela-definition-missing",
  "vela-properties",
  "vela-trait-conflict",
  "vela-trait-not-applicable",
  "xr-composition-missing",
  "xrd-claim-names",
  "xrd-composition-ref",
  "xrd-names",
  "xrd-referenceable",
  "xrd-schema-keyword",
  "yaml-alias-limit",
  "yaml-ambiguous-boolean",
  "yaml-duplicate-key",
  "yaml-lenient",
  "yaml-syntax"
];
