import { describe, expect, it } from "vitest";
import { runCli, tempRepo } from "../helpers.js";
import type { Finding } from "../../src/core/finding.js";

/**
 * Porch's PackageVariantSet (config.porch.kpt.dev/v1alpha2) is checked against its schema in
 * schemas/kpt.yaml: each fault is a schema finding at its own line, by `validate` and by `check`.
 */

const INVALID = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: fleet}
spec:
  upstream: {repo: blueprints, package: base, revision: 2}
  targets:
    - repositories:
        - packageNames: [a]
      template:
        adoptionPolicy: sometimes
        downstrem: {repo: edge}
`;

const VALID = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: fleet}
spec:
  upstream: {repo: blueprints, package: base, revision: 2}
  targets:
    - repositories:
        - name: edge
          packageNames: [a, b]
      template:
        adoptionPolicy: adoptExisting
        deletionPolicy: orphan
        downstream: {repo: edge, package: app}
        labels: {tier: edge}
        packageContext: {data: {region: eu}}
    - repositorySelector: {matchLabels: {env: prod}}
      template:
        downstream: {packageExpr: "target.name + '-app'"}
`;

const show = (f: Finding) => `${f.file}:${f.line} ${f.severity} ${f.rule}: ${f.message}`;

async function run(command: "validate" | "check", files: Record<string, string>) {
  const dir = tempRepo(files);
  const flags = command === "check" ? ["--output-dir", "out"] : [];
  const out = await runCli([command, ".", "--format", "json", ...flags], dir);
  return { code: out.code, findings: (JSON.parse(out.stdout) as { findings: Finding[] }).findings };
}

describe("PackageVariantSet against its schema", () => {
  for (const command of ["validate", "check"] as const) {
    it(`${command}: an invalid PackageVariantSet has a schema finding at each fault's line`, async () => {
      const { code, findings } = await run(command, { "fleet/pvs.yaml": INVALID });
      expect(code).toBe(1);
      const schema = findings.filter((f) => f.rule.startsWith("schema/")).map(show);
      expect(schema).toEqual([
        "fleet/pvs.yaml:8 error schema/required: missing required field `spec.targets[0].repositories[0].name`",
        'fleet/pvs.yaml:10 error schema/enum: `spec.targets[0].template.adoptionPolicy` is "sometimes"; allowed: "adoptExisting", "adoptNone"',
        "fleet/pvs.yaml:11 error schema/unknown-field: unknown field `spec.targets[0].template.downstrem`; did you mean `spec.targets[0].template.downstream`?",
      ]);
      expect(findings.every((f) => f.rule !== "schema/missing")).toBe(true);
    }, 30_000);

    it(`${command}: a valid PackageVariantSet is clean`, async () => {
      const { code, findings } = await run(command, { "fleet/pvs.yaml": VALID });
      expect(findings.map(show)).toEqual([]);
      expect(code).toBe(0);
    }, 30_000);
  }

  it("a PackageVariantSet with the v1alpha1 PackageVariant's flat fields is refused by the v1alpha2 schema", async () => {
    const flat = VALID.replace("  targets:\n", "  adoptionPolicy: adoptExisting\n  targets:\n");
    const { findings } = await run("validate", { "pvs.yaml": flat });
    expect(findings.map(show)).toEqual(["pvs.yaml:6 error schema/unknown-field: unknown field `spec.adoptionPolicy` (allowed here: targets, upstream)"]);
  });
});
