import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { childName, engineXrUid } from "../../src/render/crossplane/engine.js";
import { behaviourOf, parseCrossplaneVersion } from "../../src/core/crossplane-releases.js";
import { runCli, tempRepo } from "../helpers.js";
import { ptComposition } from "../fixtures/compositions.js";

/**
 * `crossplane render` since v2.3: the real XR reconciler's output (crossplane/crossplane
 * internal/render/composite, the composite controller's FunctionComposer, internal/names; the
 * printing of crossplane/cli cmd/crossplane/render). The expected outputs below were written from
 * reading that source, not from this tool's output; the name and UID vectors are upstream's.
 */

const V2_5 = behaviourOf(parseCrossplaneVersion("v2.5"));

describe("names and UIDs as the engine derives them", () => {
  // crossplane internal/names/names_test.go TestChildName (HEAD), data only.
  const uid = "75e4a668-035f-4ce8-8c45-f4d3ac850155";
  it.each([
    ["cool-resource-", uid, "database", "cool-resource-38ce86992a27"],
    ["very-long-parent-name-".repeat(3), uid, "database", "very-long-parent-name-very-long-parent-name-very-l-38ce86992a27"],
    ["resource", uid, "database", "resource-38ce86992a27"],
    ["resource-", uid, "database", "resource-38ce86992a27"],
    ["very-long-parent-name-without-ending-hyphen".repeat(2), uid, "database", "very-long-parent-name-without-ending-hyphenvery-lo-38ce86992a27"],
    ["", uid, "database", "38ce86992a27"],
    ["parent-", "uid-123", "database", "parent-5f968d238736"],
    ["parent-", "uid-456", "database", "parent-bd4f105d0576"],
    ["parent-", uid, "database", "parent-38ce86992a27"],
    ["parent-", uid, "storage", "parent-abcd22a110fe"],
  ])("ChildName(%j, %s, %s) = %s", (parent, parentUid, child, want) => {
    expect(childName(parent, parentUid, child)).toBe(want);
  });

  it("the XR's UID is uuid.NewSHA1(uuid.Nil, GVK, namespace, name); v2.3.4 keeps an input uid, earlier engines do not", () => {
    // Checked against Python's uuid.uuid5(uuid.UUID(int=0), "example.org/v1alpha1, Kind=XBucket\0\0my-bucket").
    const bucket = { apiVersion: "example.org/v1alpha1", kind: "XBucket", metadata: { name: "my-bucket" } };
    expect(engineXrUid(bucket, V2_5)).toBe("f70ef0ce-2b73-5b7b-a497-0ba62f7c6f04");
    const app = { apiVersion: "example.crossplane.io/v1", kind: "XApp", metadata: { name: "my-app", namespace: "default" } };
    expect(engineXrUid(app, V2_5)).toBe("2daee5a8-bf02-5112-9631-1860041c1e80");
    const withUid = { ...bucket, metadata: { name: "my-bucket", uid: "xr-uid" } };
    expect(engineXrUid(withUid, behaviourOf(parseCrossplaneVersion("v2.3.4")))).toBe("xr-uid");
    expect(engineXrUid(withUid, behaviourOf(parseCrossplaneVersion("v2.3.3")))).toBe("f70ef0ce-2b73-5b7b-a497-0ba62f7c6f04");
  });

  it("versions: a major alone is its newest modelled release; v2.3 is v2.3.4; anything else is refused with the forms it takes", () => {
    expect(parseCrossplaneVersion("2").text).toBe("v2.5.0");
    expect(parseCrossplaneVersion("v2.3").text).toBe("v2.3.4");
    expect(behaviourOf(parseCrossplaneVersion("v2.2")).engine).toBe(false);
    expect(behaviourOf(parseCrossplaneVersion("1")).engine).toBe(false);
    expect(() => parseCrossplaneVersion("latest")).toThrow(/not a Crossplane version \(v2.5, v2.3.4, 2 or 1\)/);
    expect(() => parseCrossplaneVersion("v3.0")).toThrow(/renders as Crossplane v1 and v2 releases/);
  });
});

const BUCKET_XR = "apiVersion: example.org/v1alpha1\nkind: XBucket\nmetadata:\n  name: my-bucket\nspec:\n  region: us-east-2\n";

const composition = (resources: string, name = "bucket-composition", api = "example.org/v1alpha1", kind = "XBucket") =>
  ptComposition(name, kind, resources, api);

const BUCKET = `          - name: bucket
            base: {apiVersion: s3.aws.upbound.io/v1beta1, kind: Bucket, spec: {forProvider: {region: x}}}
            patches:
              - {fromFieldPath: spec.region, toFieldPath: spec.forProvider.region}
`;

const FUNCTIONS =
  "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n";

async function render(files: Record<string, string>, ...args: string[]) {
  const dir = tempRepo({ "functions.yaml": FUNCTIONS, ...files });
  return runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", ...args], dir);
}

const docs = (stdout: string) => YAML.parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, any>);

describe("the reconciler's output, byte for byte", () => {
  it("a cluster-scoped XR, one composed resource, -r: the stream the CLI of v2.3.2 and later prints", async () => {
    const { code, stdout, stderr } = await render({ "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET) }, "-r");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toBe(`---
apiVersion: example.org/v1alpha1
kind: XBucket
metadata:
  name: my-bucket
spec:
  crossplane:
    resourceRefs:
    - apiVersion: s3.aws.upbound.io/v1beta1
      kind: Bucket
      name: my-bucket-8cc10c10d494
status:
  conditions:
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    reason: WatchCircuitClosed
    status: "True"
    type: Responsive
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    reason: ReconcileSuccess
    status: "True"
    type: Synced
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: 'Unready resources: bucket'
    reason: Creating
    status: "False"
    type: Ready
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  annotations:
    crossplane.io/composition-resource-name: bucket
  generateName: my-bucket-
  labels:
    crossplane.io/composite: my-bucket
  name: my-bucket-8cc10c10d494
  ownerReferences:
  - apiVersion: example.org/v1alpha1
    blockOwnerDeletion: true
    controller: true
    kind: XBucket
    name: my-bucket
    uid: f70ef0ce-2b73-5b7b-a497-0ba62f7c6f04
spec:
  forProvider:
    region: us-east-2
---
apiVersion: render.crossplane.io/v1beta1
kind: Result
message: 'Successfully selected composition: bucket-composition'
reason: SelectComposition
severity: Normal
---
apiVersion: render.crossplane.io/v1beta1
kind: Result
message: Composed resource "bucket" is not yet ready
reason: ComposeResources
severity: Normal
`);
  });

  it("an empty pipeline (upstream's TestRender EmptyPipeline): refs [], Responsive, Synced and Ready all True, the selection event", async () => {
    const empty =
      "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: bucket-composition}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1alpha1, kind: XBucket}\n  mode: Pipeline\n  pipeline: []\n";
    const { code, stdout } = await render({ "xr.yaml": BUCKET_XR, "composition.yaml": empty }, "-r");
    expect(code).toBe(0);
    const [out, ...events] = docs(stdout);
    expect(out!.spec).toEqual({ crossplane: { resourceRefs: [] } });
    expect(stdout).toContain("spec:\n  crossplane:\n    resourceRefs: []\n");
    expect(out!.status.conditions.map((c: { type: string; status: string; reason: string }) => `${c.type}=${c.status} ${c.reason}`)).toEqual([
      "Responsive=True WatchCircuitClosed",
      "Synced=True ReconcileSuccess",
      "Ready=True Available",
    ]);
    expect(events.map((e) => e.reason)).toEqual(["SelectComposition"]);
  });

  it("a namespaced XR: composed resources in its namespace (a function's other namespace overridden, with a warning event), refs without a namespace", async () => {
    const xr = "apiVersion: example.crossplane.io/v1\nkind: XApp\nmetadata: {name: my-app, namespace: default}\nspec: {region: a}\n";
    const resources = `          - name: deployment
            base: {apiVersion: apps/v1, kind: Deployment, metadata: {namespace: elsewhere}}
`;
    const { code, stdout } = await render({ "xr.yaml": xr, "composition.yaml": composition(resources, "apps", "example.crossplane.io/v1", "XApp") }, "-r");
    expect(code).toBe(0);
    const [out, deployment, ...events] = docs(stdout);
    expect(out!.metadata).toEqual({ name: "my-app", namespace: "default" });
    expect(out!.spec.crossplane.resourceRefs).toEqual([{ apiVersion: "apps/v1", kind: "Deployment", name: "my-app-81fb775f08be" }]);
    expect(deployment!.metadata.namespace).toBe("default");
    expect(deployment!.metadata.ownerReferences[0].uid).toBe("2daee5a8-bf02-5112-9631-1860041c1e80");
    expect(events.map((e) => `${e.severity} ${e.reason}: ${e.message}`)).toEqual([
      "Normal SelectComposition: Successfully selected composition: apps",
      'Warning NamespaceOverridden: cannot create composed resource "deployment" in namespace "elsewhere", using XR namespace "default" instead',
      'Normal ComposeResources: Composed resource "deployment" is not yet ready',
    ]);
  });

  it("an XRD of apiextensions v1 (legacy scope) puts the refs at spec.resourceRefs from v2.3.4; v2.3.3 always at spec.crossplane", async () => {
    const xrd = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xbuckets.example.org}
spec:
  group: example.org
  names: {kind: XBucket, plural: xbuckets}
  versions: [{name: v1alpha1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {region: {type: string}}}}}}}]
`;
    const files = { "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET), "xrd.yaml": xrd };
    const modern = docs((await render(files, "--xrd", "xrd.yaml")).stdout)[0]!;
    expect(modern.spec).toEqual({ resourceRefs: [{ apiVersion: "s3.aws.upbound.io/v1beta1", kind: "Bucket", name: "my-bucket-8cc10c10d494" }] });
    const older = docs((await render(files, "--xrd", "xrd.yaml", "--crossplane-version", "v2.3.3")).stdout)[0]!;
    expect(older.spec).toEqual({ crossplane: { resourceRefs: [{ apiVersion: "s3.aws.upbound.io/v1beta1", kind: "Bucket", name: "my-bucket-8cc10c10d494" }] } });
    const v2 = docs(
      (
        await render(
          {
            ...files,
            "xrd.yaml": xrd
              .replace("apiextensions.crossplane.io/v1", "apiextensions.crossplane.io/v2")
              .replace("spec:\n  group", "spec:\n  scope: Cluster\n  group"),
          },
          "--xrd",
          "xrd.yaml",
        )
      ).stdout,
    )[0]!;
    expect(Object.keys(v2.spec)).toEqual(["crossplane"]);
  });

  it("refs sort by apiVersion, kind, name and namespace (v2.3.2 and later); before, without the namespace", async () => {
    const resources = ["c", "b", "a"]
      .map((n, i) => `          - name: r${i}\n            base: {apiVersion: v1, kind: ConfigMap, metadata: {name: same, namespace: ${n}}}\n`)
      .join("");
    const files = { "xr.yaml": BUCKET_XR, "composition.yaml": composition(resources) };
    const now = docs((await render(files)).stdout)[0]!;
    expect(now.spec.crossplane.resourceRefs.map((r: { namespace: string }) => r.namespace)).toEqual(["a", "b", "c"]);
    const early = docs((await render(files, "--crossplane-version", "v2.3.0")).stdout)[0]!;
    // Equal keys without the namespace: the order is the composition resource names' (r0, r1, r2).
    expect(early.spec.crossplane.resourceRefs.map((r: { namespace: string }) => r.namespace)).toEqual(["c", "b", "a"]);
  });

  it("an invalid composed name fails the render as the engine fails it, and nothing is printed", async () => {
    const resources = "          - name: bad\n            base: {apiVersion: v1, kind: ConfigMap, metadata: {name: Not_Valid}}\n";
    const { code, stdout, stderr } = await render({ "xr.yaml": BUCKET_XR, "composition.yaml": composition(resources) });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('cannot apply composed resource "bad" because it has an invalid name "Not_Valid". Must be a valid RFC 1123 subdomain name.');
  });

  it("observed resources: one another controller owns fails the render from v2.3.4 and is passed over before", async () => {
    const observed =
      "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: taken\n  annotations: {crossplane.io/composition-resource-name: bucket}\n  ownerReferences: [{apiVersion: x/v1, kind: X, name: other, uid: other-uid, controller: true}]\n";
    const files = { "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET), "observed.yaml": observed };
    const strict = await render(files, "-o", "observed.yaml");
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("invalid observed resources: observed resource taken has a controller ref but is not controlled by the XR");
    const lenient = await render(files, "-o", "observed.yaml", "--crossplane-version", "v2.3.2");
    expect(lenient.code).toBe(0);
    expect(docs(lenient.stdout)[1]!.metadata.name).toBe("my-bucket-8cc10c10d494");
  });

  it("an observed resource keeps its name; its conditions are kept with the fixed time; a status without conditions gets conditions: null", async () => {
    const observed =
      "apiVersion: s3.aws.upbound.io/v1beta1\nkind: Bucket\nmetadata:\n  name: my-bucket-x7k2p\n  annotations: {crossplane.io/composition-resource-name: bucket}\n";
    const resources = "          - name: bucket\n            base: {apiVersion: s3.aws.upbound.io/v1beta1, kind: Bucket, status: {atProvider: {}}}\n";
    const { code, stdout } = await render(
      { "xr.yaml": BUCKET_XR, "composition.yaml": composition(resources), "observed.yaml": observed },
      "-o",
      "observed.yaml",
    );
    expect(code).toBe(0);
    expect(stdout).toContain("  name: my-bucket-x7k2p\n");
    expect(stdout).toContain("status:\n  atProvider: {}\n  conditions: null\n");
  });

  it("-x merges the input XR under the engine's: its spec and labels stay, with the refs and the engine's conditions", async () => {
    const xr =
      "apiVersion: example.org/v1alpha1\nkind: XBucket\nmetadata:\n  name: my-bucket\n  labels: {team: a}\nspec:\n  region: us-east-2\nstatus:\n  previous: kept\n  conditions: [{type: Custom, status: 'True', reason: Mine, lastTransitionTime: '2020-01-01T00:00:00Z'}]\n";
    const out = docs((await render({ "xr.yaml": xr, "composition.yaml": composition(BUCKET) }, "-x")).stdout)[0]!;
    expect(out.metadata).toEqual({ name: "my-bucket", labels: { team: "a" } });
    expect(out.spec.region).toBe("us-east-2");
    expect(out.spec.crossplane.resourceRefs).toHaveLength(1);
    expect(out.status.previous).toBe("kept");
    // The input's condition keeps its place; the engine's types come after it.
    expect(out.status.conditions.map((c: { type: string; lastTransitionTime: string }) => `${c.type} ${c.lastTransitionTime}`)).toEqual([
      "Custom 2024-01-01T00:00:00Z",
      "Responsive 2024-01-01T00:00:00Z",
      "Synced 2024-01-01T00:00:00Z",
      "Ready 2024-01-01T00:00:00Z",
    ]);
  });

  it("a paused XR is not composed: the stored XR with its UID, Responsive and Synced False, and the paused event", async () => {
    const xr = BUCKET_XR.replace("  name: my-bucket\n", "  name: my-bucket\n  annotations: {crossplane.io/paused: 'true'}\n");
    const { code, stdout } = await render({ "xr.yaml": xr, "composition.yaml": composition(BUCKET) }, "-r");
    expect(code).toBe(0);
    const [out, ...rest] = docs(stdout);
    expect(out!.metadata).toMatchObject({ uid: "f70ef0ce-2b73-5b7b-a497-0ba62f7c6f04", resourceVersion: "999" });
    expect(out!.spec.region).toBe("us-east-2");
    expect(out!.status.conditions.map((c: { type: string; status: string; reason: string }) => `${c.type}=${c.status} ${c.reason}`)).toEqual([
      "Responsive=True WatchCircuitClosed",
      "Synced=False ReconcilePaused",
    ]);
    expect(rest.map((d) => `${d.kind} ${d.reason}`)).toEqual(["Result ReconciliationPaused"]);
  });
});

describe("crossplane v2.5's command names", () => {
  it("composition render is render; operation render is render op; another subcommand is a usage error", async () => {
    const dir = tempRepo({ "functions.yaml": FUNCTIONS, "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET) });
    const plain = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    const aliased = await runCli(["composition", "render", "xr.yaml", "composition.yaml", "functions.yaml"], dir);
    expect(aliased.code).toBe(0);
    expect(aliased.stdout).toBe(plain.stdout);
    const help = await runCli(["operation", "render", "--help"], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("render op");
    const wrong = await runCli(["composition", "convert"], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("composition has one subcommand: composition render");
  });
});

describe("the release a run renders as", () => {
  it("the config's crossplaneVersion takes a release; --crossplane-version wins; a bad one is a usage error at its line", async () => {
    const files = { "functions.yaml": FUNCTIONS, "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET) };
    const v22 = await runCli(
      ["render", "xr.yaml", "composition.yaml", "functions.yaml"],
      tempRepo({ ...files, ".composition-ci.yaml": "crossplaneVersion: v2.2\n" }),
    );
    expect(v22.stdout).not.toContain("resourceRefs");
    const flag = await runCli(
      ["render", "xr.yaml", "composition.yaml", "functions.yaml", "--crossplane-version", "2.4"],
      tempRepo({ ...files, ".composition-ci.yaml": "crossplaneVersion: v2.2\n" }),
    );
    expect(flag.stdout).toContain("resourceRefs");
    const bad = await runCli(
      ["render", "xr.yaml", "composition.yaml", "functions.yaml"],
      tempRepo({ ...files, ".composition-ci.yaml": "crossplaneVersion: latest\n" }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(".composition-ci.yaml:1: crossplaneVersion: must be 1, 2 or a release (v2.3.4, v2.5)");
    const badFlag = await runCli(["check", ".", "--crossplane-version", "v3"], tempRepo(files));
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("--crossplane-version: Crossplane v3");
  });

  it("golden files: one v2.2 wrote is compared as v2.2, one the engine wrote as v2.5; a stated release compares both as it", async () => {
    const files = { "functions.yaml": FUNCTIONS, "xr.yaml": BUCKET_XR, "composition.yaml": composition(BUCKET) };
    const dir = tempRepo(files);
    const old = (await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "--crossplane-version", "v2.2"], dir)).stdout;
    const engine = (await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "-x"], dir)).stdout;
    const repo = tempRepo({ ...files, "old/xr.yaml": BUCKET_XR, "old/xr.golden.yaml": old, "xr.golden.yaml": engine });
    const found = await runCli(["test", "--format", "json", "--no-cache"], repo);
    const tests = JSON.parse(found.stdout).tests as { name: string; status: string; note: string }[];
    // The engine's refs in spec do not make -x guessed: the file has the input's spec too, so it was -x.
    expect(tests.map((t) => [t.name, t.status])).toEqual([
      ["old/xr.golden.yaml", "passed"],
      ["xr.golden.yaml", "passed"],
    ]);
    const stated = await runCli(["test", "--no-cache", "--crossplane-version", "v2.5"], repo);
    expect(stated.code).toBe(1);
    expect(stated.stdout).toContain("FAIL  golden old/xr.golden.yaml");
    expect(stated.stdout).toContain(
      "rendered as Crossplane v2.5.0's crossplane render prints it (the release --crossplane-version or the config's crossplaneVersion names); if the change is meant, `composition-ci test --update` rewrites the file",
    );
  });
});

describe("the version", () => {
  it("version, --version and -v print it", async () => {
    const outs = await Promise.all(["version", "--version", "-v"].map((a) => runCli([a], tempRepo({}))));
    expect(new Set(outs.map((o) => o.stdout)).size).toBe(1);
    expect(outs[0]!.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
