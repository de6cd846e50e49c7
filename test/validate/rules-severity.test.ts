import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";
import type { Finding } from "../../src/core/finding.js";

/**
 * KubeVela does not enforce a TraitDefinition's appliesToWorkloads for v1beta1 Applications, so
 * `vela/trait-not-applicable` only informs: severity info, which the default fail-on (error) and
 * fail-on warning pass, and fail-on info fails.
 */

const DEFINITIONS = `apiVersion: core.oam.dev/v1beta1
kind: ComponentDefinition
metadata: {name: nightly}
spec:
  workload: {type: cronjobs.batch}
  schematic:
    cue:
      template: |
        output: {apiVersion: "batch/v1", kind: "CronJob"}
        parameter: {image: string}
---
apiVersion: core.oam.dev/v1beta1
kind: TraitDefinition
metadata: {name: replicas}
spec:
  appliesToWorkloads: ["*.apps"]
  schematic:
    cue:
      template: |
        parameter: count: *1 | int
`;

const app = (traits: string) => `apiVersion: core.oam.dev/v1beta1
kind: Application
metadata: {name: shop}
spec:
  components:
    - name: report
      type: nightly
      properties: {image: shop/report:2.0.0}
${traits}`;

async function validate(files: Record<string, string>, ...flags: string[]) {
  const run = await runCli(["validate", ".", "--format", "json", ...flags], tempRepo(files));
  return { code: run.code, findings: (JSON.parse(run.stdout) as { findings: Finding[] }).findings };
}

describe("vela/trait-not-applicable is an info", () => {
  const files = { "definitions.yaml": DEFINITIONS, "app.yaml": app("      traits:\n        - type: replicas\n") };

  it("a trait whose appliesToWorkloads does not match the component's workload: info at the trait's type", async () => {
    const { code, findings } = await validate(files);
    const hits = findings.filter((f) => f.rule === "vela/trait-not-applicable");
    expect(hits.map((f) => `${f.severity} ${f.file}:${f.line}`)).toEqual(["info app.yaml:10"]);
    expect(hits[0]!.message).toContain(
      'the trait "replicas" does not list component "report" of type "nightly" in appliesToWorkloads (workload cronjobs.batch; appliable: ["*.apps"])',
    );
    expect(findings.filter((f) => f.severity !== "info")).toEqual([]);
    expect(code).toBe(0);
  });

  it("fails the run only with --fail-on info", async () => {
    expect((await validate(files, "--fail-on", "warning")).code).toBe(0);
    expect((await validate(files, "--fail-on", "info")).code).toBe(1);
  });

  it("no finding when the trait applies, or when the component has no trait", async () => {
    const applies = DEFINITIONS.replace('appliesToWorkloads: ["*.apps"]', 'appliesToWorkloads: ["*.apps", "*.batch"]');
    expect(
      (await validate({ "definitions.yaml": applies, "app.yaml": files["app.yaml"] })).findings.filter((f) => f.rule === "vela/trait-not-applicable"),
    ).toEqual([]);
    expect((await validate({ "definitions.yaml": DEFINITIONS, "app.yaml": app("") })).findings.filter((f) => f.rule === "vela/trait-not-applicable")).toEqual(
      [],
    );
  });
});
