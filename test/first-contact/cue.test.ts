import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

/** Issue 31, class 6: KubeVela definitions kept as CUE files are the repository's definitions. */

const APP = `apiVersion: core.oam.dev/v1beta1
kind: Application
metadata: {name: shop, namespace: default}
spec:
  components:
    - name: web
      type: webservice-ha
      properties: {image: nginx}
      traits:
        - type: scaler
          properties: {replicas: 2}
`;

const TRAIT_CUE = `scaler: {
	type: "trait"
	annotations: {}
	attributes: appliesToWorkloads: ["deployments.apps"]
	description: "Scales the workload."
}
template: {
	parameter: replicas: *1 | int
	patch: spec: replicas: parameter.replicas
}
`;

const COMPONENT_CUE = `"webservice-ha": {
	alias: ""
	type: "component"
	attributes: workload: definition: {apiVersion: "apps/v1", kind: "Deployment"}
}
template: output: {apiVersion: "apps/v1", kind: "Deployment"}
`;

async function findings(files: Record<string, string>) {
  const { stdout } = await runCli(["check", ".", "--format", "json"], tempRepo(files));
  return JSON.parse(stdout).findings as { rule: string; severity: string; message: string }[];
}

describe("KubeVela definitions in CUE", () => {
  it("a component and a trait defined in .cue files are not missing: an info names the file instead", async () => {
    const found = await findings({ "app.yaml": APP, "vela/scaler.cue": TRAIT_CUE, "vela/webservice-ha.cue": COMPONENT_CUE });
    expect(found.filter((f) => f.rule === "vela/definition-missing")).toEqual([]);
    const unread = found.filter((f) => f.rule === "reference/unread").map((f) => f.message);
    expect(unread).toEqual([
      expect.stringContaining(
        'ComponentDefinition "webservice-ha" is only in vela/webservice-ha.cue:1, which composition-ci does not read (a KubeVela CUE definition)',
      ),
    ]);
  });

  it("without them, the Application's component type is a missing definition", async () => {
    const found = await findings({ "app.yaml": APP });
    expect(found.filter((f) => f.rule === "vela/definition-missing").map((f) => f.message)).toEqual([
      expect.stringContaining('no ComponentDefinition "webservice-ha"'),
    ]);
  });
});
