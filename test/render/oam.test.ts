import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { readManifests } from "../../src/manifest/read.js";
import type { JsonObject } from "../../src/core/json.js";
import { renderAppConfig } from "../../src/render/oam/appconfig.js";
import { traitHash } from "../../src/render/oam/trait-name.js";
import { renderEverything } from "../../src/render/repo.js";
import type { RenderedSource } from "../../src/rendered/source.js";
import { diffObjects } from "../../src/rendered/diff.js";
import { SecretMasker } from "../../src/secrets/mask.js";
import { RepoIndex } from "../../src/validate/repo-index.js";
import { HAS_SHARED, runCli, SHARED, tempRepo, describeShared } from "../helpers.js";

const EXAMPLES = path.join(SHARED, "corpus/oam-runtime-examples");

function indexOf(dir: string): RepoIndex {
  return new RepoIndex(readManifests([dir], dir).manifests);
}

/** Renders the ApplicationConfiguration of `file` in `dir`. */
function render(dir: string, file?: string, clusterDefinitions: string[] = []): RenderedSource {
  const index = indexOf(dir);
  const ac = index.appConfigs.find((m) => file === undefined || m.file === file);
  if (!ac) throw new Error(`no ApplicationConfiguration in ${file ?? dir}`);
  return renderAppConfig(ac, index, { clusterDefinitions });
}

function renderYaml(files: Record<string, string>, clusterDefinitions: string[] = []): RenderedSource {
  return render(tempRepo(files), undefined, clusterDefinitions);
}

const meta = (o: JsonObject) =>
  o.metadata as { name: string; namespace?: string; labels: Record<string, string>; annotations?: Record<string, string>; ownerReferences: JsonObject[] };
const find = (s: RenderedSource, kind: string, name?: string) => s.objects.find((o) => o.kind === kind && (name === undefined || meta(o).name === name));
const messages = (s: RenderedSource) => s.findings.map((f) => `${f.rule}: ${f.message}`);

const FOO_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: scalers.example.com}
spec:
  group: example.com
  names: {kind: Scaler, plural: scalers}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`;

function component(name: string, spec: string, extra = ""): string {
  return `---
apiVersion: core.oam.dev/v1alpha2
kind: Component
metadata: {name: ${name}}
spec:
  workload:
    apiVersion: example.com/v1
    kind: Foo
    spec: ${spec}
${extra}`;
}

function appConfig(components: string, metadata = ""): string {
  return `---
apiVersion: core.oam.dev/v1alpha2
kind: ApplicationConfiguration
metadata:
  name: app
  namespace: team-a
${metadata}spec:
  components:
${components}`;
}

describeShared("OAM rendering of ../shared/corpus/oam-runtime-examples", () => {
  const examples = HAS_SHARED ? fs.readdirSync(EXAMPLES).filter((d) => fs.statSync(path.join(EXAMPLES, d)).isDirectory()) : [];

  it("renders every ApplicationConfiguration, or says why not", async () => {
    let rendered = 0;
    for (const example of examples) {
      const dir = path.join(EXAMPLES, example);
      const sources = await renderEverything(indexOf(dir), { functions: {}, root: dir, allowExec: false, timeoutMs: 5000, clusterDefinitions: [] });
      for (const s of sources) {
        expect(s.ok || s.findings.some((f) => f.severity === "error"), `${example}/${s.source.file}`).toBe(true);
        if (s.ok) rendered++;
      }
    }
    expect(rendered).toBe(11);
  });

  it("typed-component: the web-service type becomes a ContainerizedWorkload with the parameter, labels, owner and scope", () => {
    const s = render(path.join(EXAMPLES, "typed-component"));
    expect(s.ok).toBe(true);
    const w = find(s, "ContainerizedWorkload")!;
    expect(w.apiVersion).toBe("core.oam.dev/v1alpha2");
    expect(meta(w).name).toBe("web-service-component");
    expect(meta(w).labels).toEqual({
      "app.oam.dev/name": "example-appconfig",
      "app.oam.dev/component": "web-service-component",
      "app.oam.dev/revision": "web-service-component-v1",
      "app.oam.dev/resourceType": "WORKLOAD",
      "workload.oam.dev/type": "web-service",
    });
    expect(meta(w).ownerReferences).toEqual([
      { apiVersion: "core.oam.dev/v1alpha2", kind: "ApplicationConfiguration", name: "example-appconfig", uid: "", controller: true, blockOwnerDeletion: true },
    ]);
    expect((w.spec as any).containers[0].image).toBe("wordpress:php7.2");
    expect(w.type).toBeUndefined();
    const trait = find(s, "ManualScalerTrait")!;
    expect(meta(trait).name).toBe("example-appconfig-trait");
    expect(meta(trait).labels["app.oam.dev/resourceType"]).toBe("TRAIT");
    expect((trait.spec as any).workloadRef).toBeUndefined();
    const scope = find(s, "HealthScope")!;
    expect((scope.spec as any).workloadRefs).toEqual([{ apiVersion: "core.oam.dev/v1alpha2", kind: "ContainerizedWorkload", name: "web-service-component" }]);
    expect(s.objects.map((o) => o.kind)).toEqual(["ContainerizedWorkload", "ManualScalerTrait", "HealthScope"]);
  });

  it("component-versioning: a revisionEnabled trait names the workload after the revision and gets workloadRef at its path", () => {
    const dir = path.join(EXAMPLES, "component-versioning");
    const s = render(dir, "versioning-demo-app.yaml");
    const w = find(s, "ContainerizedWorkload")!;
    expect(meta(w).name).toBe("example-component-v1");
    const trait = find(s, "SimpleRolloutTrait")!;
    expect(meta(trait).name).toMatch(/^example-component-simplerollouttraits-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect((trait.spec as any).workloadRef).toEqual({ apiVersion: "core.oam.dev/v1alpha2", kind: "ContainerizedWorkload", name: "example-component-v1" });
    expect((trait.spec as any).replica).toBe(6);
  });

  it("component-versioning: revisionName binds that revision; a trait with no definition gets no workloadRef and a `trait` name", () => {
    const s = render(path.join(EXAMPLES, "component-versioning"), "sample_application_config.yaml");
    const w = find(s, "ContainerizedWorkload")!;
    expect(meta(w).name).toBe("example-component");
    expect(meta(w).labels["app.oam.dev/revision"]).toBe("example-component-v1");
    const trait = find(s, "ManualScalerTrait")!;
    expect(meta(trait).name).toMatch(/^example-component-trait-[a-z0-9]+$/);
    expect(trait.spec).toEqual({ replicaCount: 3 });
  });

  it("webhook-enabled: a trait given by name and properties becomes its definition's kind with spec", () => {
    const s = render(path.join(EXAMPLES, "webhook-enabled"));
    const [workload, trait] = s.objects;
    expect(workload).toMatchObject({ apiVersion: "example.com/v1", kind: "Foo", spec: { key: "workload" } });
    expect(meta(workload!).labels["workload.oam.dev/type"]).toBe("fooworkload");
    expect(trait).toMatchObject({ apiVersion: "example.com/v1", kind: "Foo", spec: { key: "trait" } });
    expect(trait!.properties).toBeUndefined();
    expect(meta(trait!).labels["trait.oam.dev/type"]).toBe("footrait");
    expect(meta(trait!).name).toMatch(/^foo-footrait-/);
  });

  it("dependency: the sink waits on live status, the source is rendered", () => {
    for (const file of ["demo.yaml", "demo-with-conditions.yaml", "demo-with-valuefrom.yaml"]) {
      const s = render(path.join(EXAMPLES, "dependency"), file);
      expect(
        s.objects.map((o) => meta(o).name),
        file,
      ).toEqual(["source"]);
      const waiting = s.findings.filter((f) => f.rule === "render/oam-waiting");
      expect(waiting, file).toHaveLength(1);
      expect(waiting[0]!.severity).toBe("info");
      expect(waiting[0]!.message).toContain('waiting on dataOutput "example-key"');
      expect(waiting[0]!.path).toBe("spec.components[1].dataInputs[0]");
    }
  });

  it("data-passing: store-based passing is named as not rendered, both components are", () => {
    const s = render(path.join(EXAMPLES, "data-passing"));
    expect(s.objects.map((o) => meta(o).name)).toEqual(["sink", "source"]);
    expect(s.findings.filter((f) => f.rule === "render/oam-unsupported").map((f) => f.path)).toEqual([
      "spec.components[0].dataOutputs[0].OutputStore",
      "spec.components[1].dataInputs[0].InputStore",
    ]);
  });

  it("flight-tracker: parameter values land at every field path, as strings", () => {
    const s = render(path.join(EXAMPLES, "flight-tracker"));
    expect(s.ok).toBe(true);
    const data = find(s, "ContainerizedWorkload", "data-api")!;
    const env = (data.spec as any).containers[0].env;
    expect(env.slice(0, 3).map((e: any) => e.fromSecret.name)).toEqual(["dbuser", "dbuser", "dbuser"]);
    expect(env[3].value).toBe("hackfest");
    expect(env[4].value).toBe("5432");
    expect(env[6].value).toBe("");
    expect(find(s, "ManualScalerTrait", "flights-api")).toBeDefined();
    expect(find(s, "Ingress", "tracker-ingress")).toBeDefined();
  });

  it("containerized-workload: a scope whose ScopeDefinition is missing is rendered unchanged, with a warning", () => {
    const s = render(path.join(EXAMPLES, "containerized-workload"));
    expect(find(s, "HealthScope")).toBeDefined();
    expect(messages(s).join("\n")).toContain('no ScopeDefinition "healthscopes.core.oam.dev"');
  });
});

describe("OAM rendering semantics", () => {
  it("writes every parameter to each of its field paths: strings as strings, integers as numbers", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "app.yaml":
        component(
          "web",
          "{image: nginx, replicas: 1}",
          `  parameters:
    - name: image
      fieldPaths:
        - spec.image
        - spec.containers[0].image
    - {name: replicas, fieldPaths: [spec.replicas]}
    - {name: unused, fieldPaths: [spec.unused]}
`,
        ) +
        appConfig(`    - componentName: web
      parameterValues:
        - {name: image, value: "nginx:1.27"}
        - {name: replicas, value: 3}
`),
    });
    expect(messages(s)).toEqual([]);
    const w = s.objects[0]!;
    expect(w.spec).toEqual({ image: "nginx:1.27", replicas: 3, containers: [{ image: "nginx:1.27" }] });
    expect(meta(w).namespace).toBe("team-a");
  });

  it("an undeclared or a missing required parameter, or a value of another type, renders nothing", () => {
    const comp = component(
      "web",
      "{}",
      `  parameters:
    - {name: image, required: true, fieldPaths: [spec.image]}
`,
    );
    const undeclared = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml": comp + appConfig(`    - componentName: web\n      parameterValues: [{name: image, value: x}, {name: tag, value: y}]\n`),
    });
    expect(undeclared.ok).toBe(false);
    expect(undeclared.objects).toEqual([]);
    expect(messages(undeclared)).toContain('oam/parameter-undeclared: unsupported parameter "tag"');
    const missing = renderYaml({ "crd.yaml": FOO_CRD, "a.yaml": comp + appConfig(`    - componentName: web\n`) });
    expect(missing.ok).toBe(false);
    expect(messages(missing)).toContain('oam/parameter-required: required parameter "image" not specified');
    const typed = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml": comp + appConfig(`    - componentName: web\n      parameterValues: [{name: image, value: true}]\n`),
    });
    expect(typed.ok).toBe(false);
    expect(messages(typed)).toContain(
      'render/oam-failed: cannot render workload for component "web": cannot set parameter "image": the value must be a string or an integer',
    );
  });

  it("labels, annotations (the ApplicationConfiguration's win) and explicit names", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "app.yaml":
        `---
apiVersion: core.oam.dev/v1alpha2
kind: Component
metadata: {name: web}
spec:
  workload:
    apiVersion: example.com/v1
    kind: Foo
    metadata: {name: explicit-web, labels: {team: workload, keep: me}}
` +
        appConfig(
          `    - componentName: web
      traits:
        - trait: {apiVersion: example.com/v1, kind: Scaler, metadata: {name: explicit-scaler}, spec: {replicas: 2}}
`,
          "  labels: {team: platform}\n  annotations: {owner: sre}\n",
        ),
    });
    const w = find(s, "Foo")!;
    expect(meta(w).name).toBe("explicit-web");
    expect(meta(w).labels).toMatchObject({ team: "platform", keep: "me", "app.oam.dev/name": "app", "app.oam.dev/resourceType": "WORKLOAD" });
    expect(meta(w).annotations).toEqual({ owner: "sre" });
    const t = find(s, "Scaler")!;
    expect(meta(t).name).toBe("explicit-scaler");
    expect(meta(t).labels).toMatchObject({ team: "platform", "app.oam.dev/component": "web", "app.oam.dev/resourceType": "TRAIT" });
    expect(meta(t).ownerReferences[0]).toMatchObject({ kind: "ApplicationConfiguration", name: "app", controller: true });
  });

  it("generated trait names: definition name's first segment, lowercased, and a hash that follows the entry", () => {
    const definition = `---
apiVersion: core.oam.dev/v1alpha2
kind: TraitDefinition
metadata: {name: scalers.example.com}
spec: {definitionRef: {name: scalers.example.com}}
`;
    const app = (replicas: number) =>
      component("web", "{}") +
      definition +
      appConfig(`    - componentName: web\n      traits:\n        - trait: {apiVersion: example.com/v1, kind: Scaler, spec: {replicas: ${replicas}}}\n`);
    const name = (replicas: number) => meta(find(renderYaml({ "crd.yaml": FOO_CRD, "a.yaml": app(replicas) }), "Scaler")!).name;
    expect(name(2)).toMatch(/^web-scalers-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(name(2)).toBe(name(2));
    expect(name(3)).not.toBe(name(2));
    expect(traitHash({ a: 1, b: [1, 2] })).toBe(traitHash({ b: [1, 2], a: 1 }));

    // Updating, the runtime finds the trait's name in the ApplicationConfiguration's status: the
    // diff keeps the base's name, so the trait is changed in place, not replaced.
    const render = (replicas: number) => renderYaml({ "crd.yaml": FOO_CRD, "a.yaml": app(replicas) });
    const [change] = diffObjects(render(2), render(3), new SecretMasker()).filter((c) => c.kind === "Scaler");
    expect(change).toMatchObject({ status: "changed", fields: [{ path: "spec.replicas", before: 2, after: 3 }] });
    expect(change!.replacedBy).toBeUndefined();
  });

  it("workloadRef goes at the definition's workloadRefPath only; no definition or no path injects nothing", () => {
    const defs = `---
apiVersion: core.oam.dev/v1alpha2
kind: TraitDefinition
metadata: {name: scalers.example.com}
spec: {definitionRef: {name: scalers.example.com}, workloadRefPath: spec.target.ref}
---
apiVersion: core.oam.dev/v1alpha2
kind: TraitDefinition
metadata: {name: pathless}
spec: {definitionRef: {name: foos.example.com}}
`;
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("web", "{}") +
        defs +
        appConfig(`    - componentName: web
      traits:
        - trait: {apiVersion: example.com/v1, kind: Scaler, spec: {replicas: 2}}
        - trait: {apiVersion: example.com/v1, kind: Foo, metadata: {labels: {trait.oam.dev/type: pathless}}, spec: {x: 1}}
        - trait: {apiVersion: other.example.com/v1, kind: Unknown, spec: {y: 1}}
`),
    });
    expect(find(s, "Scaler")!.spec).toEqual({ replicas: 2, target: { ref: { apiVersion: "example.com/v1", kind: "Foo", name: "web" } } });
    const pathless = s.objects.find((o) => o.kind === "Foo" && meta(o).labels["app.oam.dev/resourceType"] === "TRAIT")!;
    expect(pathless.spec).toEqual({ x: 1 });
    expect(meta(pathless).name).toMatch(/^web-pathless-/);
    const unknown = find(s, "Unknown")!;
    expect(unknown.spec).toEqual({ y: 1 });
    expect(meta(unknown).name).toMatch(/^web-trait-/);
  });

  it("a typed workload without its WorkloadDefinition is a finding, not an object", () => {
    const s = renderYaml({
      "a.yaml":
        `apiVersion: core.oam.dev/v1alpha2
kind: Component
metadata: {name: web}
spec: {workload: {type: webservice, spec: {}}}
` + appConfig("    - componentName: web\n"),
    });
    expect(s.ok).toBe(false);
    expect(messages(s)).toContain('render/oam-failed: cannot render workload for component "web": no WorkloadDefinition "webservice" in the repository');
  });

  it("data passing: known values are written to every toFieldPath (lists appended), in dependency order", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("sink", "{hosts: [a]}") +
        component("middle", "{}") +
        component("source", "{endpoint: db.local, hosts: [b, c]}") +
        appConfig(`    - componentName: sink
      dataInputs:
        - {valueFrom: {dataOutputName: relayed}, toFieldPaths: [spec.db, spec.copy.db]}
        - {valueFrom: {dataOutputName: hosts}, toFieldPaths: [spec.hosts]}
    - componentName: middle
      dataInputs:
        - {valueFrom: {dataOutputName: endpoint}, toFieldPaths: [spec.upstream]}
      dataOutputs:
        - {name: relayed, fieldPath: spec.upstream}
    - componentName: source
      dataOutputs:
        - {name: endpoint, fieldPath: spec.endpoint, conditions: [{op: eq, fieldPath: spec.endpoint, value: db.local}]}
        - {name: hosts, fieldPath: spec.hosts}
`),
    });
    expect(s.findings).toEqual([]);
    expect(find(s, "Foo", "middle")!.spec).toEqual({ upstream: "db.local" });
    expect(find(s, "Foo", "sink")!.spec).toEqual({ hosts: ["a", "b", "c"], db: "db.local", copy: { db: "db.local" } });
  });

  it("a component with several inputs waits for all of them: one unknown input holds it back", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("sink", "{}") +
        component("db", "{endpoint: db.local}") +
        component("cache", "{}") +
        appConfig(`    - componentName: db
      dataOutputs: [{name: db-endpoint, fieldPath: spec.endpoint}]
    - componentName: cache
      dataOutputs: [{name: cache-endpoint, fieldPath: status.endpoint}]
    - componentName: sink
      dataInputs:
        - {valueFrom: {dataOutputName: db-endpoint}, toFieldPaths: [spec.db]}
        - {valueFrom: {dataOutputName: cache-endpoint}, toFieldPaths: [spec.cache]}
`),
    });
    expect(s.objects.map((o) => meta(o).name)).toEqual(["cache", "db"]);
    expect(messages(s)).toEqual([
      'render/oam-waiting: Foo "sink" of component "sink" is not rendered: waiting on dataOutput "cache-endpoint": status.endpoint is live status, known only once the object runs',
    ]);
  });

  it("a condition that does not hold, and a cycle, make components wait; the cycle is an error", () => {
    const unmet = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("source", "{endpoint: db.local, phase: draft}") +
        component("sink", "{}") +
        appConfig(`    - componentName: source
      dataOutputs: [{name: ep, fieldPath: spec.endpoint, conditions: [{op: eq, fieldPath: spec.phase, value: ready}]}]
    - componentName: sink
      dataInputs: [{valueFrom: {dataOutputName: ep}, toFieldPaths: [spec.ep]}]
`),
    });
    expect(messages(unmet)).toEqual([
      'render/oam-waiting: Foo "sink" of component "sink" is not rendered: waiting on dataOutput "ep": got(draft) expected to be ready',
    ]);
    const cycle = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("a", "{x: 1}") +
        component("b", "{y: 2}") +
        appConfig(`    - componentName: a
      dataOutputs: [{name: from-a, fieldPath: spec.x}]
      dataInputs: [{valueFrom: {dataOutputName: from-b}, toFieldPaths: [spec.b]}]
    - componentName: b
      dataOutputs: [{name: from-b, fieldPath: spec.y}]
      dataInputs: [{valueFrom: {dataOutputName: from-a}, toFieldPaths: [spec.a]}]
`),
    });
    expect(cycle.objects).toEqual([]);
    expect(cycle.findings.filter((f) => f.rule === "oam/data-dependency" && f.severity === "error")).toHaveLength(1);
    expect(cycle.findings.filter((f) => f.rule === "render/oam-waiting")).toHaveLength(2);
  });

  it("an input naming no dataOutput renders nothing", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("sink", "{}") + appConfig(`    - componentName: sink\n      dataInputs: [{valueFrom: {dataOutputName: nowhere}, toFieldPaths: [spec.x]}]\n`),
    });
    expect(s.ok).toBe(false);
    expect(messages(s)).toContain('oam/data-dependency: dataOutputName "nowhere" names no dataOutputs in this ApplicationConfiguration');
  });

  it("orders workloads, then traits, then scopes, each by component, kind and name; scopes record created workloads once", () => {
    const s = renderYaml({
      "crd.yaml": FOO_CRD,
      "a.yaml":
        component("b-web", "{}") +
        component("a-web", "{}") +
        `---
apiVersion: core.oam.dev/v1alpha2
kind: ScopeDefinition
metadata: {name: healthscopes.core.oam.dev}
spec: {definitionRef: {name: healthscopes.core.oam.dev}, workloadRefsPath: spec.workloadRefs, allowComponentOverlap: true}
---
apiVersion: core.oam.dev/v1alpha2
kind: HealthScope
metadata: {name: health}
spec: {workloadRefs: []}
` +
        appConfig(`    - componentName: b-web
      traits: [{trait: {apiVersion: example.com/v1, kind: Scaler, metadata: {name: s-b}, spec: {}}}]
      scopes: [{scopeRef: {apiVersion: core.oam.dev/v1alpha2, kind: HealthScope, name: health}}]
    - componentName: a-web
      traits: [{trait: {apiVersion: example.com/v1, kind: Scaler, metadata: {name: s-a}, spec: {}}}]
      scopes: [{scopeRef: {apiVersion: core.oam.dev/v1alpha2, kind: HealthScope, name: health}}]
`),
    });
    expect(s.objects.map((o) => `${String(o.kind)}/${meta(o).name}`)).toEqual(["Foo/a-web", "Foo/b-web", "Scaler/s-a", "Scaler/s-b", "HealthScope/health"]);
    expect((find(s, "HealthScope")!.spec as any).workloadRefs.map((r: any) => r.name)).toEqual(["b-web", "a-web"]);
    expect(meta(find(s, "HealthScope")!).namespace).toBe("team-a");
  });

  it("render --all includes ApplicationConfigurations and names KubeVela Applications as not rendered; check validates OAM output", async () => {
    const dir = tempRepo({
      "a.yaml":
        component("web", "{containers: [{name: web, image: nginx}]}").replace(
          "apiVersion: example.com/v1\n    kind: Foo",
          "apiVersion: core.oam.dev/v1alpha2\n    kind: ContainerizedWorkload",
        ) +
        appConfig(`    - componentName: web
      traits: [{trait: {apiVersion: core.oam.dev/v1alpha2, kind: ManualScalerTrait, metadata: {name: scale}, spec: {replicaCount: three}}}]
`),
      "vela.yaml": `apiVersion: core.oam.dev/v1beta1
kind: Application
metadata: {name: vela-app}
spec:
  components: [{name: web, type: webservice, properties: {image: nginx}}]
`,
    });
    const rendered = await runCli(["render", "--all", "."], dir);
    const docs = YAML.parseAllDocuments(rendered.stdout).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(["ContainerizedWorkload", "ManualScalerTrait"]);
    expect(rendered.stderr).toContain("1 source (Application vela-app) was validated but not rendered: KubeVela renders Applications from the CUE templates");
    const { code, stdout } = await runCli(["check", ".", "--format", "json"], dir);
    const report = JSON.parse(stdout) as { findings: { rule: string; message: string; kind: string }[] };
    const schema = report.findings.filter((f) => f.rule === "render/schema");
    expect(
      schema.map((f) => f.message),
      stdout,
    ).toEqual([expect.stringContaining('rendered ManualScalerTrait "scale" (the OAM runtime) at spec.replicaCount')]);
    expect(schema[0]!.kind).toBe("ApplicationConfiguration");
    expect(code).toBe(1);
  });
});
