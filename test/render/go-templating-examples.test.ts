import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { loadPath } from "../../src/manifest/load.js";
import { renderComposite, type Rendered } from "../../src/render/crossplane/render.js";
import type { JsonObject } from "../../src/core/json.js";
import { BuiltinRuntime, builtinFor } from "../../src/render/runner/builtin.js";
import { SHARED, describeShared } from "../helpers.js";

/**
 * function-go-templating's examples (../shared/corpus/go-templating-examples), rendered with the
 * built-in functions as upstream's READMEs show them. The examples' Functions are annotated for a
 * Development runtime (a local `go run`); here the built-ins answer instead.
 */

const EXAMPLES = path.join(SHARED, "corpus/go-templating-examples");

function objects(dir: string, file: string): JsonObject[] {
  const p = path.join(dir, file);
  return fs.existsSync(p) ? loadPath(p, file).manifests.map((m) => m.object as JsonObject) : [];
}

/** EnvironmentConfigs written as v1alpha1 are served as v1beta1 by the API server the function asks. */
const asServed = (o: JsonObject): JsonObject => (o.kind === "EnvironmentConfig" ? { ...o, apiVersion: "apiextensions.crossplane.io/v1beta1" } : o);

async function render(example: string, compositionName?: string): Promise<Rendered> {
  const dir = path.join(EXAMPLES, example);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".yaml"));
  const xr = objects(dir, "xr.yaml")[0];
  const composition = files
    .filter((f) => f.startsWith("composition"))
    .flatMap((f) => objects(dir, f))
    .find((c) => c.kind === "Composition" && (!compositionName || (c.metadata as JsonObject).name === compositionName))!;
  const functions = objects(dir, "functions.yaml").filter((o) => o.kind === "Function");
  return renderComposite({
    xr,
    composition,
    runtime: (name) => {
      const fn = functions.find((f) => (f.metadata as JsonObject).name === name);
      const builtin = builtinFor(String((fn?.spec as JsonObject | undefined)?.package ?? `crossplane-contrib/${name.replace(/^crossplane-contrib-/, "")}`));
      if (!builtin) throw new Error(`no built-in for ${name}`);
      return new BuiltinRuntime(builtin);
    },
    observedResources: objects(dir, "observed.yaml"),
    requiredResources: [...objects(dir, "extraResources.yaml"), ...objects(dir, "environmentConfigs.yaml")].map(asServed),
    credentials: objects(dir, "credentials.yaml"),
    timeoutMs: 60_000,
    includeContext: true,
  });
}

const contextOf = (r: Rendered) => r.documents.find((d) => d.kind === "Context")?.fields as JsonObject;
const composed = (r: Rendered, name: string) =>
  r.composed.find((o) => ((o.metadata as JsonObject).annotations as Record<string, string>)["crossplane.io/composition-resource-name"] === name) as any;
const namesOf = (r: Rendered) =>
  r.composed.map((o) => ((o.metadata as JsonObject).annotations as Record<string, string>)["crossplane.io/composition-resource-name"]).sort();

function expectOk(r: Rendered): void {
  expect(r.problems.filter((p) => p.severity === "error")).toEqual([]);
  expect(r.ok).toBe(true);
}

const ENVIRONMENT = {
  apiVersion: "internal.crossplane.io/v1alpha1",
  kind: "Environment",
  array: ["1", "2"],
  complex: { a: "b", c: { d: "e", f: "1" } },
  nestedEnvUpdate: { hello: "world" },
  update: "environment",
};

describeShared("function-go-templating examples (../shared/corpus/go-templating-examples)", () => {
  it("inline: composed resources from a loop, status of the XR", async () => {
    const r = await render("inline");
    expectOk(r);
    expect(namesOf(r)).toEqual(["connection-secret", "sample-access-key-0", "sample-access-key-1", "test-user-0", "test-user-1"]);
    expect((r.xr!.status as JsonObject).dummy).toBe("cool-status");
    expect(composed(r, "test-user-1").metadata.labels).toMatchObject({ dummy: "foo", "testing.upbound.io/example-name": "test-user-1" });
  });

  it("custom-delims renders as inline does", async () => {
    const [a, b] = await Promise.all([render("inline"), render("custom-delims")]);
    expectOk(b);
    expect(b.documents).toEqual(a.documents);
  });

  it("conditions: ClaimConditions on the XR", async () => {
    const r = await render("conditions");
    expectOk(r);
    const types = ((r.xr!.status as JsonObject).conditions as JsonObject[]).map((c) => `${c.type}=${c.status}`);
    // The reconciler's order (v2.3+): Responsive, the functions' conditions, Synced, Ready.
    expect(types).toEqual(["Responsive=True", "TestCondition=False", "ConditionTrue=True", "DatabaseReady=True", "Synced=True", "Ready=True"]);
  });

  it("context: the README's output", async () => {
    const r = await render("context");
    expectOk(r);
    expect((r.xr!.status as JsonObject).fromEnv).toBe("e");
    expect(contextOf(r)).toEqual({
      "apiextensions.crossplane.io/environment": ENVIRONMENT,
      newkey: { hello: "world" },
      "other-context-key": { complex: { a: "b", c: { d: "e", f: "1" } } },
    });
  });

  it("environment: the README's output (templates read from the environment)", async () => {
    const r = await render("environment");
    expectOk(r);
    expect((r.xr!.status as JsonObject).fromEnv).toBe("e");
    const env = contextOf(r)["apiextensions.crossplane.io/environment"] as JsonObject;
    expect(env).toMatchObject(ENVIRONMENT);
    expect(env.template).toMatch(/^---\napiVersion: meta.gotemplating.fn.crossplane.io\/v1alpha1\nkind: Context\n/);
    expect(contextOf(r).newkey).toEqual({ hello: "world" });
  });

  it("extra-resources and getExtraResources: requirements answered, data taken from the Bucket", async () => {
    for (const example of ["extra-resources", "functions/getExtraResources", "functions/getExtraResourcesFromContext"]) {
      const r = await render(example);
      expectOk(r);
      expect(composed(r, "bucket-configmap-0").spec.forProvider.manifest.data).toEqual({ bucket: "random-bucket-id" });
      expect(Object.keys(contextOf(r)["apiextensions.crossplane.io/extra-resources"] as JsonObject)).toEqual(["bucket"]);
    }
  });

  it("getCredentialData: the README's context", async () => {
    const r = await render("functions/getCredentialData");
    expectOk(r);
    expect(contextOf(r)).toEqual({ password: "bar", username: "foo" });
  });

  it("getResourceCondition: conditions of the XR and of composed resources", async () => {
    const r = await render("functions/getResourceCondition");
    expectOk(r);
    const status = r.xr!.status as JsonObject;
    expect(status.projectId).toBe("abcdef");
    expect(status.composedCondition).toMatchObject({ type: "Ready", status: "True", reason: "foo", lasttransitiontime: "2023-11-03T09:07:31Z" });
    expect(status.compositeConditionNotFound).toMatchObject({ type: "Other", status: "Unknown", lasttransitiontime: "0001-01-01T00:00:00Z" });
    expect(status.nonResource).toMatchObject({ type: "Ready", status: "Unknown" });
  });

  it("toYaml, fromYaml, include, getCompositeResource, getComposedResource", async () => {
    const toYaml = await render("functions/toYaml");
    expectOk(toYaml);
    expect((toYaml.xr!.status as JsonObject).dummy).toEqual({ list: ["abc", "def"], scalar1: true, scalar2: "text", scalar3: 123 });
    const fromYaml = await render("functions/fromYaml");
    expectOk(fromYaml);
    expect((fromYaml.xr!.status as JsonObject).dummy).toBe("value2");
    const include = await render("functions/include");
    expectOk(include);
    expect(composed(include, "test1").metadata.labels).toEqual({ "other-text": "value2", "some-text": "value1", "crossplane.io/composite": "example" });
    const composite = await render("functions/getCompositeResource");
    expectOk(composite);
    expect(composed(composite, "flexserver").spec.forProvider).toEqual({ adminLogin: "admin", location: "eastus" });
    const composedResource = await render("functions/getComposedResource");
    expectOk(composedResource);
    expect(namesOf(composedResource)).toEqual(["flexServer", "flexServerConfig"]);
  });

  it("getComposedConnectionDetails and recursive render", async () => {
    expectOk(await render("functions/getComposedConnectionDetails"));
    const wrapper = await render("recursive", "example-recursive-wrapper");
    expectOk(wrapper);
    expect(namesOf(wrapper)).toEqual(["test-xr-0", "test-xr-1"]);
  });
});
