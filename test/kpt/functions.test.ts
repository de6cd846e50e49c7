import { describe, expect, it } from "vitest";
import { applyReplacements } from "../../src/kpt/functions/apply-replacements.js";
import { setAnnotations } from "../../src/kpt/functions/set-annotations.js";
import { setLabels } from "../../src/kpt/functions/set-labels.js";
import { setNamespace } from "../../src/kpt/functions/set-namespace.js";
import type { ResourceList } from "../../src/kpt/functions/types.js";
import type { JsonObject } from "../../src/core/json.js";

/**
 * The built-in catalog functions against the semantics of their upstream code, docs and test
 * packages (krm-functions-catalog tests/ and examples/), cases written for this project.
 */

const LOCAL = { "config.kubernetes.io/local-config": "true" };

function list(items: JsonObject[], functionConfig?: JsonObject): ResourceList {
  const annotated = items.map((o, i) => ({
    ...o,
    metadata: {
      ...((o.metadata as JsonObject) ?? {}),
      annotations: {
        ...(((o.metadata as JsonObject)?.annotations as JsonObject) ?? {}),
        "internal.config.kubernetes.io/path": "resources.yaml",
        "internal.config.kubernetes.io/index": String(i),
      },
    },
  }));
  return { apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: annotated, ...(functionConfig ? { functionConfig } : {}) };
}

const find = (l: ResourceList, kind: string, name: string) => l.items.find((o) => o.kind === kind && (o.metadata as JsonObject).name === name)!;
const labelsOf = (o: JsonObject) => (o.metadata as JsonObject).labels;

describe("set-labels", () => {
  it("a ConfigMap's data are the labels: metadata, selectors and pod templates; local config untouched; items sorted", () => {
    const out = setLabels(
      list(
        [
          { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { run: "web" } } },
          { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { template: { metadata: {} } } },
          { apiVersion: "batch/v1", kind: "Job", metadata: { name: "once" }, spec: { template: {} } },
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fn", annotations: LOCAL }, data: { color: "orange" } },
        ],
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fn" }, data: { color: "orange", fruit: "apple" } },
      ),
    );
    expect(out.ok).toBe(true);
    expect(out.list.items.map((o) => `${o.apiVersion} ${o.kind}`)).toEqual(["apps/v1 Deployment", "batch/v1 Job", "v1 ConfigMap", "v1 Service"]);
    const deploy = find(out.list, "Deployment", "web");
    expect(labelsOf(deploy)).toEqual({ color: "orange", fruit: "apple" });
    expect((deploy.spec as JsonObject).selector).toEqual({ matchLabels: { color: "orange", fruit: "apple" } });
    expect(((deploy.spec as JsonObject).template as JsonObject).metadata).toEqual({ labels: { color: "orange", fruit: "apple" } });
    expect((find(out.list, "Service", "web").spec as JsonObject).selector).toEqual({ run: "web", color: "orange", fruit: "apple" });
    // A Job's selector is only updated when it is there.
    expect((find(out.list, "Job", "once").spec as JsonObject).selector).toBeUndefined();
    expect(labelsOf(find(out.list, "ConfigMap", "fn"))).toBeUndefined();
    // Every key counts wherever it is looked at, set or not: Service 2 places, Deployment 3, Job 3 (its absent selector too).
    expect(out.list.results!.at(-1)).toEqual({ severity: "info", message: "set 16 labels in total" });
  });

  it("no functionConfig fails after saying so; a wrong kind or a list of labels is an error result", () => {
    const items = [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m" } }];
    const none = setLabels(list(items));
    expect(none.ok).toBe(false);
    expect(none.stderr).toBe("failed to evaluate function: error: function failure");
    expect(none.list.results).toEqual([{ severity: "info", message: "`FunctionConfig` is not given" }]);
    const bad = setLabels(list(items, { apiVersion: "fn.kpt.dev/v1alpha1", kind: "BadKind", metadata: { name: "x" }, labels: { a: "b" } }));
    expect(bad.list.results).toEqual([
      { severity: "error", message: "unknown FunctionConfig `BadKind.fn.kpt.dev`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`" },
    ]);
    const listed = setLabels(list(items, { apiVersion: "fn.kpt.dev/v1alpha1", kind: "SetLabels", metadata: { name: "x" }, labels: [{ color: "orange" }] }));
    expect(listed.list.results![0]!.message).toBe(
      "unable to convert object to *setlabels.SetLabels with error: json: cannot unmarshal array into Go struct field SetLabels.labels of type map[string]string",
    );
    expect(listed.ok).toBe(false);
  });

  it("empty labels warn; only local config means no input resources", () => {
    const empty = setLabels(
      list([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m" } }], {
        apiVersion: "fn.kpt.dev/v1alpha1",
        kind: "SetLabels",
        metadata: { name: "x" },
        labels: {},
      }),
    );
    expect(empty.ok).toBe(true);
    expect(empty.list.results).toEqual([{ severity: "warning", message: "no `labels` arguments are given in FunctionConfig" }]);
    const local = setLabels(
      list([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m", annotations: LOCAL } }], {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "x" },
        data: { a: "b" },
      }),
    );
    expect(local.list.results).toEqual([{ severity: "info", message: "no input resources" }]);
  });
});

describe("set-annotations", () => {
  it("annotates every resource, local config included, with one result per file, index and field", () => {
    const out = setAnnotations(
      list(
        [
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
          { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", annotations: LOCAL }, spec: { template: {} } },
        ],
        {
          apiVersion: "fn.kpt.dev/v1alpha1",
          kind: "SetAnnotations",
          metadata: { name: "x" },
          annotations: { fruit: "apple", color: "orange" },
          additionalAnnotationFields: [{ path: "data/selector/annotations", kind: "ConfigMap", create: true }],
        },
      ),
    );
    expect(out.ok).toBe(true);
    const cm = out.list.items[0]!;
    expect(((cm.metadata as JsonObject).annotations as JsonObject).color).toBe("orange");
    expect(cm.data).toEqual({ selector: { annotations: { color: "orange", fruit: "apple" } } });
    const deploy = out.list.items[1]!;
    expect((((deploy.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations).toEqual({ color: "orange", fruit: "apple" });
    expect(out.list.results!.map((r) => `${r.file?.path}#${r.file?.index ?? 0} ${r.field?.path}: ${r.message}`)).toEqual([
      'resources.yaml#0 data.selector.annotations: set annotations: {"color":"orange","fruit":"apple"}',
      'resources.yaml#0 metadata.annotations: set annotations: {"color":"orange","fruit":"apple"}',
      'resources.yaml#1 metadata.annotations: set annotations: {"color":"orange","fruit":"apple"}',
      'resources.yaml#1 spec.template.metadata.annotations: set annotations: {"color":"orange","fruit":"apple"}',
    ]);
  });

  it("the legacy SetAnnotationConfig takes fieldSpecs; no usable config is an error as the function words it", () => {
    const legacy = setAnnotations(
      list([{ apiVersion: "dev.example.com/v1", kind: "MyResource", metadata: { name: "r" } }], {
        apiVersion: "fn.kpt.dev/v1alpha1",
        kind: "SetAnnotationConfig",
        metadata: { name: "x" },
        annotations: { a: "b" },
        fieldSpecs: [{ group: "dev.example.com", kind: "MyResource", path: "spec/selector/annotations", create: true }],
      }),
    );
    expect(legacy.list.items[0]!.spec).toEqual({ selector: { annotations: { a: "b" } } });
    const none = setAnnotations(list([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m" } }]));
    expect(none.ok).toBe(false);
    expect(none.list.results).toEqual([
      { severity: "error", message: "failed to configure function: `functionConfig` must be a `ConfigMap` or `SetAnnotations`" },
    ]);
    expect(none.stderr).toBe("[error]: failed to configure function: `functionConfig` must be a `ConfigMap` or `SetAnnotations`");
    const empty = setAnnotations(
      list([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "m" } }], { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: {} }),
    );
    expect(empty.list.results![0]!.message).toBe("failed to configure function: input annotation list cannot be empty");
  });
});

describe("set-namespace", () => {
  const origin = (id: string) => ({ "internal.kpt.dev/upstream-identifier": id });
  const resources = [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "example1", annotations: origin("|Namespace|~C|example") } },
    { apiVersion: "v1", kind: "Service", metadata: { name: "svc", namespace: "example2", annotations: origin("|Service|example|svc") } },
    {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "crd", annotations: origin("apiextensions.k8s.io|CustomResourceDefinition|~C|crd") },
      spec: { conversion: { webhook: { clientConfig: { service: { name: "s", namespace: "example3" } } } } },
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "crb", annotations: origin("rbac.authorization.k8s.io|ClusterRoleBinding|~C|crb") },
      subjects: [{ kind: "ServiceAccount", name: "default", namespace: "example5" }],
    },
  ];

  it("replaces every namespace when the origins agree: namespaced resources, a Namespace's name, webhook services, binding subjects", () => {
    const out = setNamespace(list(resources, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { namespace: "new-ns" } }));
    expect(out.ok).toBe(true);
    expect((find(out.list, "Namespace", "example1") ?? find(out.list, "Namespace", "new-ns")).metadata).toMatchObject({ name: "new-ns" });
    expect((find(out.list, "Service", "svc").metadata as JsonObject).namespace).toBe("new-ns");
    expect(JSON.stringify(find(out.list, "CustomResourceDefinition", "crd").spec)).toContain('"namespace":"new-ns"');
    expect(find(out.list, "ClusterRoleBinding", "crb").subjects).toEqual([{ kind: "ServiceAccount", name: "default", namespace: "new-ns" }]);
    expect(out.list.results!.map((r) => r.message)).toContain('namespace [example1 example2 example3 example5] updated to "new-ns", 4 value(s) changed');
  });

  it("namespaceMatcher changes only matching namespaces; a resource without origin is a warning", () => {
    const out = setNamespace(
      list([resources[1]!, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other", namespace: "keep" } }], {
        apiVersion: "fn.kpt.dev/v1alpha1",
        kind: "SetNamespace",
        metadata: { name: "x" },
        namespace: "new-ns",
        namespaceMatcher: "example2",
      }),
    );
    expect((find(out.list, "Service", "svc").metadata as JsonObject).namespace).toBe("new-ns");
    expect((find(out.list, "ConfigMap", "other").metadata as JsonObject).namespace).toBe("keep");
    expect(out.list.results![0]).toEqual({
      severity: "warning",
      message: "Resource(apiVersion=v1, kind=ConfigMap, namespace=keep, name=other) does not have upstream origin.",
    });
  });

  it("no functionConfig: an error result that names no resource, and the function still exits 0", () => {
    const out = setNamespace(list(resources));
    expect(out.ok).toBe(true);
    expect(out.list.results).toEqual([
      {
        message: "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`",
        severity: "error",
        resourceRef: {},
        file: { index: -1 },
      },
    ]);
  });

  it("depends-on annotations naming a resource of the package follow it", () => {
    const out = setNamespace(
      list(
        [
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "old", annotations: origin("|ConfigMap|old|a") } },
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
              name: "b",
              namespace: "old",
              annotations: { ...origin("|ConfigMap|old|b"), "config.kubernetes.io/depends-on": "/namespaces/old/ConfigMap/a" },
            },
          },
        ],
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { namespace: "new" } },
      ),
    );
    expect(((find(out.list, "ConfigMap", "b").metadata as JsonObject).annotations as JsonObject)["config.kubernetes.io/depends-on"]).toBe(
      "/namespaces/new/ConfigMap/a",
    );
  });
});

describe("apply-replacements", () => {
  const config = (replacements: unknown) => ({ apiVersion: "fn.kpt.dev/v1alpha1", kind: "ApplyReplacements", metadata: { name: "r" }, replacements });

  it("copies a source field to selected targets, creating the path with create: true", () => {
    const out = applyReplacements(
      list(
        [
          { apiVersion: "v1", kind: "Pod", metadata: { name: "my-pod" }, spec: { containers: [{ name: "app", image: "busybox" }] } },
          { apiVersion: "batch/v1", kind: "Job", metadata: { name: "hello" } },
        ],
        config([
          {
            source: { kind: "Pod", name: "my-pod", fieldPath: "spec" },
            targets: [{ select: { name: "hello", kind: "Job" }, fieldPaths: ["spec.template.spec"], options: { create: true } }],
          },
        ]),
      ),
    );
    expect(out.ok).toBe(true);
    expect(find(out.list, "Job", "hello").spec).toEqual({ template: { spec: { containers: [{ name: "app", image: "busybox" }] } } });
  });

  it("delimiters split the source and splice the target; [k=v] list entries match as kyaml matches them; a scalar target keeps its type", () => {
    const out = applyReplacements(
      list(
        [
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "src", labels: { tier: "x" } }, data: { host: "db.prod.example.com", port: "5433" } },
          {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "web", labels: { tier: "x" } },
            spec: {
              template: {
                spec: { containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 80 }], env: [{ name: "DB", value: "localhost.dev" }] }] },
              },
            },
          },
          { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "skip" }, spec: {} },
        ],
        config([
          {
            source: { kind: "ConfigMap", name: "src", fieldPath: "data.host", options: { delimiter: ".", index: 1 } },
            targets: [
              {
                select: { kind: "Deployment", labelSelector: "tier=x" },
                fieldPaths: ["spec.template.spec.containers.[name=web].env.[name=DB].value"],
                options: { delimiter: ".", index: 1 },
              },
            ],
          },
          {
            source: { kind: "ConfigMap", name: "src", fieldPath: "data.port" },
            targets: [
              { select: { kind: "Deployment" }, reject: [{ name: "skip" }], fieldPaths: ["spec.template.spec.containers.[name=we].ports.0.containerPort"] },
            ],
          },
        ]),
      ),
    );
    expect(out.ok).toBe(true);
    const container = ((((find(out.list, "Deployment", "web").spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[])[0]!;
    expect(container.env).toEqual([{ name: "DB", value: "localhost.prod" }]);
    // `[name=we]` is an unanchored pattern in kyaml's matcher; the number stays a number.
    expect(container.ports).toEqual([{ containerPort: 5433 }]);
  });

  it("errors as kustomize words them: nothing selected, several sources, a missing field", () => {
    const items = [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" }, data: { k: "v" } },
    ];
    const none = applyReplacements(list(items, config([{ source: { kind: "Secret", name: "s" }, targets: [{ select: { kind: "ConfigMap" } }] }])));
    expect(none.ok).toBe(false);
    expect(none.list.results).toEqual([{ severity: "error", message: "nothing selected by Secret.[noVer].[noGrp]/s.[noNs]" }]);
    const many = applyReplacements(list(items, config([{ source: { kind: "ConfigMap" }, targets: [{ select: { kind: "ConfigMap" } }] }])));
    expect(many.list.results![0]!.message).toBe("multiple matches for selector ConfigMap.[noVer].[noGrp]/[noName].[noNs]");
    const missing = applyReplacements(
      list(
        items,
        config([{ source: { kind: "ConfigMap", name: "a", fieldPath: "data.k" }, targets: [{ select: { name: "b" }, fieldPaths: ["data.other.deep"] }] }]),
      ),
    );
    expect(missing.list.results![0]!.message).toBe('unable to find field "data.other.deep" in replacement target');
    // The release the Kptfile pins decides: before v0.1.2 (kustomize api v0.10, before kustomize
    // #4789) a target field that does not exist was skipped without a word.
    const replacement = config([
      { source: { kind: "ConfigMap", name: "a", fieldPath: "data.k" }, targets: [{ select: { name: "b" }, fieldPaths: ["data.other.deep"] }] },
    ]);
    for (const tag of ["v0.1.0", "v0.1.1"]) {
      const old = applyReplacements(list(items, replacement), tag);
      expect(old.ok, tag).toBe(true);
      expect((old.list.items.find((o) => (o.metadata as { name: string }).name === "b") as { data: unknown }).data).toEqual({ k: "v" });
    }
    for (const tag of ["v0.1.2", "v0.1.3", "latest", undefined]) expect(applyReplacements(list(items, replacement), tag).ok, String(tag)).toBe(false);
    const wrongKind = applyReplacements(list(items, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }));
    expect(wrongKind.list.results![0]!.message).toBe(
      "received functionConfig of kind ConfigMap and apiVersion v1, only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported",
    );
  });
});
