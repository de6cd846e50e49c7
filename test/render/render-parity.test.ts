import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { unreadyMessage } from "../../src/render/crossplane/output.js";
import { runCli, tempRepo } from "../helpers.js";
import { ptComposition } from "../fixtures/compositions.js";

/**
 * `crossplane render`'s output, point by point, as v2.2 printed it (crossplane v2.2 cmd/crank/render
 * and its render_test.go): `--crossplane-version v2.2`. The reconciler's output of v2.3 and later
 * is render-engine.test.ts's.
 */

const xr = (extra = "") => `apiVersion: example.org/v1
kind: XApp
metadata: {name: shop, namespace: default, labels: {team: a}}
spec: {size: large}
${extra}`;

const composition = (resources: string, extraSteps = "") => ptComposition("xapps", "XApp", resources + extraSteps);

const functions =
  "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n";
const cm = (name: string, extra = "") => `          - name: ${name}\n            base: {apiVersion: v1, kind: ConfigMap${extra}}\n`;

async function render(files: Record<string, string>, args: string[] = []) {
  const dir = tempRepo(files);
  const { code, stdout, stderr } = await runCli(["render", "xr.yaml", "composition.yaml", "functions.yaml", "--crossplane-version", "v2.2", ...args], dir);
  return { code, stderr, docs: YAML.parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, any>) };
}

describe("crossplane render parity", () => {
  it("1. generateName only when a resource has neither name nor generateName; an observed resource keeps its identity", async () => {
    const { docs } = await render(
      {
        "xr.yaml": xr(),
        "composition.yaml": composition(
          cm("plain") + cm("named", ", metadata: {name: fixed}") + cm("generated", ", metadata: {generateName: own-}") + cm("seen"),
        ),
        "functions.yaml": functions,
        "observed.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: seen-abc12, annotations: {crossplane.io/composition-resource-name: seen}}\n",
      },
      ["-o", "observed.yaml"],
    );
    const byName = Object.fromEntries(docs.slice(1).map((d) => [d.metadata.annotations["crossplane.io/composition-resource-name"], d.metadata]));
    expect(byName.plain).toMatchObject({ generateName: "shop-" });
    expect(byName.named.name).toBe("fixed");
    expect(byName.named.generateName).toBeUndefined();
    expect(byName.generated.generateName).toBe("own-");
    expect(byName.seen.name).toBe("seen-abc12");
    expect(byName.seen.generateName).toBeUndefined();
  });

  it("2. the XR printed is the whole desired XR (a ToCompositeFieldPath label shows); -x takes the input's spec and metadata, not its status", async () => {
    const resources =
      cm("c") +
      "            patches:\n              - type: ToCompositeFieldPath\n                fromFieldPath: kind\n                toFieldPath: metadata.labels[composed-kind]\n";
    const observed = { "observed.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, annotations: {crossplane.io/composition-resource-name: c}}\n" };
    const plain = await render(
      { "xr.yaml": xr("status: {previous: kept}\n"), "composition.yaml": composition(resources), "functions.yaml": functions, ...observed },
      ["-o", "observed.yaml"],
    );
    expect(plain.docs[0]!.metadata).toEqual({ name: "shop", namespace: "default", labels: { "composed-kind": "ConfigMap" } });
    expect(plain.docs[0]!.spec).toBeUndefined();
    const full = await render(
      { "xr.yaml": xr("status: {previous: kept}\n"), "composition.yaml": composition(resources), "functions.yaml": functions, ...observed },
      ["-o", "observed.yaml", "-x"],
    );
    expect(full.docs[0]!.metadata.labels).toEqual({ team: "a" });
    expect(full.docs[0]!.spec).toEqual({ size: "large" });
    expect(full.docs[0]!.status.previous).toBeUndefined();
  });

  it("3. the unready message as crossplane-runtime words it", () => {
    expect(unreadyMessage(["b", "a"])).toBe("a, b");
    expect(unreadyMessage(["c", "a", "b"])).toBe("a, b, and c");
    expect(unreadyMessage(["e", "d", "c", "a", "b"])).toBe("a, b, c, and 2 more");
    expect(unreadyMessage(["a"])).toBe("a");
  });

  it("3. two unready resources: `Unready resources: a, b`", async () => {
    const { docs } = await render({ "xr.yaml": xr(), "composition.yaml": composition(cm("b-cool") + cm("a-cool")), "functions.yaml": functions });
    expect(docs[0]!.status.conditions).toEqual([
      { type: "Ready", status: "False", reason: "Creating", message: "Unready resources: a-cool, b-cool", lastTransitionTime: "2024-01-01T00:00:00Z" },
    ]);
  });

  it("6. Results have no reason field; the Context starts empty", async () => {
    const { docs } = await render({ "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "functions.yaml": functions }, ["-r", "-c"]);
    const context = docs.find((d) => d.kind === "Context")!;
    expect(context.fields).toEqual({ "apiextensions.crossplane.io/environment": { apiVersion: "internal.crossplane.io/v1alpha1", kind: "Environment" } });
    for (const r of docs.filter((d) => d.kind === "Result")) expect(r).not.toHaveProperty("reason");
  });

  it("8. the functions argument is optional: the repository's Function objects are used", async () => {
    const dir = tempRepo({ "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "fns/functions.yaml": functions });
    const { code, stdout } = await runCli(["render", "xr.yaml", "composition.yaml"], dir);
    expect(code).toBe(0);
    expect(stdout).toContain("kind: ConfigMap");
  });

  it("8. -a sets an annotation on every Function (here: Development, which then needs a target)", async () => {
    const { code, stderr } = await render({ "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "functions.yaml": functions }, [
      "-a",
      "render.crossplane.io/runtime=Development",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("function function-patch-and-transform is a Development function");
    const bad = await render({ "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "functions.yaml": functions }, ["-a", "nonsense"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid function annotation format "nonsense", expected key=value');
  });

  it("8. --context-values and --context-files take YAML as well as JSON", async () => {
    const { docs } = await render(
      { "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "functions.yaml": functions, "ctx.yaml": "region: eu\nzones: [a, b]\n" },
      ["-c", "--context-values", "example.org/v=answer: 42", "--context-files", "example.org/f=ctx.yaml"],
    );
    const fields = docs.find((d) => d.kind === "Context")!.fields;
    expect(fields["example.org/v"]).toEqual({ answer: 42 });
    expect(fields["example.org/f"]).toEqual({ region: "eu", zones: ["a", "b"] });
  });

  it("8. engine flags are said to be ignored, not refused; --crossplane-version is not one of them", async () => {
    const { code, stderr } = await render({ "xr.yaml": xr(), "composition.yaml": composition(cm("c")), "functions.yaml": functions }, [
      "--crossplane-image",
      "xpkg.crossplane.io/crossplane/crossplane:v2.3.0",
    ]);
    expect(code).toBe(0);
    expect(stderr).toContain("note: --crossplane-image is ignored: composition-ci renders in-process");
    expect(stderr).not.toContain("--crossplane-version");
  });
});
