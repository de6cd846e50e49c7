import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";

describe("a kpt package's resources are reported once", () => {
  it("a schema error in a package resource is validation's finding; the render does not repeat it, but reports what the pipeline breaks", async () => {
    const dir = tempRepo({
      "pkg/Kptfile":
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: pkg}\npipeline:\n  mutators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0\n      configMap: {tier: backend}\n",
      "pkg/deploy.yaml":
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: many\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx:1.27}]}\n",
    });
    const { stdout } = await runCli(["check", ".", "--format", "json", "--no-cache"], dir);
    const findings = (JSON.parse(stdout) as { findings: { rule: string; file?: string; message: string }[] }).findings;
    expect(findings.filter((f) => f.file === "pkg/deploy.yaml" && f.rule === "schema/type")).toHaveLength(1);
    expect(findings.filter((f) => f.rule === "render/schema")).toEqual([]);
  });
});
