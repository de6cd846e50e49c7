import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

describe("a path that is not there is a usage error in every command", () => {
  for (const argv of [
    ["validate", "nope"],
    ["check", "nope"],
    ["test", "nope"],
    ["render", "--all", "nope"],
    ["drift", "nope", "--snapshot", "s"],
    ["functions", "pull", "nope"],
  ]) {
    it(argv.join(" "), async () => {
      const { code, stderr } = await runCli(argv, tempRepo({ "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" }));
      expect(code).toBe(2);
      expect(stderr).toMatch(/^composition-ci: path not found: .*nope\n$/);
    });
  }
});

describe("render --all refuses what only one XR's render reads", () => {
  it("-o, --xrd, --context-values and -c with --all are a usage error naming them", async () => {
    const { code, stderr } = await runCli(["render", "--all", ".", "-o", "x.yaml", "--xrd", "y.yaml", "--context-values", "a=b", "-c"], tempRepo({}));
    expect(code).toBe(2);
    expect(stderr).toBe(
      "composition-ci: --observed-resources, --context-values, --xrd, --include-context apply to the render of one XR, not to --all (each source there renders from what the repository holds)\n",
    );
  });
});

describe("positional paths are relative to --root in every command", () => {
  it("render --all, like validate, reads its paths below --root", async () => {
    const dir = tempRepo({ "repo/crossplane/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" });
    expect((await runCli(["validate", "crossplane", "--root", "repo"], dir)).code).toBe(0);
    const render = await runCli(["render", "--all", "crossplane", "--root", "repo"], dir);
    expect(render.code).toBe(0);
    expect(render.stderr).toContain("rendered 0 of 0 sources");
    expect(render.stderr).toContain(
      "note: none of the 1 object below crossplane is a source: an XR or claim renders when its XRD and a Composition for it are below the paths too",
    );
  });
});
