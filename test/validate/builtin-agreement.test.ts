import path from "node:path";
import { expect, it } from "vitest";
import { discover } from "../../src/manifest/discover.js";
import { loadPath } from "../../src/manifest/load.js";
import type { Manifest } from "../../src/manifest/manifest.js";
import { ValidatorCompiler } from "../../src/validate/compile.js";
import { SchemaEngine } from "../../src/validate/engine.js";
import { loadBuiltinSchemas } from "../../src/validate/schemas/builtin.js";
import { SchemaRegistry } from "../../src/validate/schemas/registry.js";
import { gvkKey, gvkLabel } from "../../src/validate/schemas/types.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";

function manifestsUnder(dir: string): Manifest[] {
  return discover([dir], { root: dir }).flatMap((f) => loadPath(f.abs, f.rel).manifests);
}

describeShared("built-in schemas agree with the upstream CRDs", () => {
  const upstream = new SchemaRegistry();
  // A skipped describe still runs its body: read ../shared only when it is there.
  if (HAS_SHARED) for (const m of manifestsUnder(path.join(SHARED, "crds"))) upstream.addDefinitions(m, { library: true });
  const corpus = HAS_SHARED ? manifestsUnder(path.join(SHARED, "corpus")) : [];
  const engine = new SchemaEngine(new ValidatorCompiler());
  const builtins = loadBuiltinSchemas();

  it("covers every kind the issue names", () => {
    const keys = new Set(builtins.map((b) => gvkKey(b.gvk)));
    for (const k of [
      "apiextensions.crossplane.io/v1/Composition",
      "apiextensions.crossplane.io/v1/CompositeResourceDefinition",
      "apiextensions.crossplane.io/v2/CompositeResourceDefinition",
      "pkg.crossplane.io/v1/Function",
      "pkg.crossplane.io/v1beta1/Function",
      "meta.pkg.crossplane.io/v1/Configuration",
      "core.oam.dev/v1alpha2/ApplicationConfiguration",
      "core.oam.dev/v1beta1/Application",
      "pt.fn.crossplane.io/v1beta1/Resources",
      "gotemplating.fn.crossplane.io/v1beta1/GoTemplate",
      "autoready.fn.crossplane.io/v1beta1/Input",
      "ops.crossplane.io/v1alpha1/Operation",
      "ops.crossplane.io/v1alpha1/CronOperation",
      "ops.crossplane.io/v1alpha1/WatchOperation",
      "apiextensions.crossplane.io/v1alpha1/ManagedResourceDefinition",
      "apiextensions.crossplane.io/v1alpha1/ManagedResourceActivationPolicy",
      "protection.crossplane.io/v1beta1/Usage",
      "protection.crossplane.io/v1beta1/ClusterUsage",
      "pkg.crossplane.io/v1beta1/ImageConfig",
      "meta.pkg.crossplane.io/v1alpha1/Configuration",
      "meta.pkg.crossplane.io/v1alpha1/Provider",
      "meta.pkg.crossplane.io/v1alpha1/Function",
    ])
      expect(keys.has(k), k).toBe(true);
  });

  it("the e2e Usages the API server rejects (cross-namespace without by) are rejected, through the escaped __namespace__ field", () => {
    const invalid = corpus.filter((m) => m.group === "protection.crossplane.io" && m.kind === "Usage" && m.file.includes("cross-namespace-invalid"));
    expect(invalid.length).toBeGreaterThan(0);
    const builtin = builtins.find((b) => gvkKey(b.gvk) === "protection.crossplane.io/v1beta1/Usage")!;
    const entry = { gvk: builtin.gvk, source: "builtin" as const, origin: builtin.file, schema: builtin.schema, structural: true };
    for (const m of invalid)
      expect(
        engine.validate(m, entry).map((v) => v.message),
        m.file,
      ).toContain('cross-namespace "spec.of" is not allowed without "spec.by" resource.');
  });

  for (const builtin of builtins) {
    const reference = upstream.get(builtin.gvk);
    if (!reference) continue; // package metadata has no CRD upstream
    const ours = { gvk: builtin.gvk, source: "builtin" as const, origin: builtin.file, schema: builtin.schema, structural: true };
    // Deliberate difference: ours admit the typed forms (`workload.type`, `trait.name`) that the OAM
    // runtime's mutating webhook turns into apiVersion/kind before the CRD schema is applied.
    const samples = corpus.filter(
      (m) => m.group === builtin.gvk.group && m.version === builtin.gvk.version && m.kind === builtin.gvk.kind && !usesWebhookTypedForm(m),
    );
    it(`${gvkLabel(builtin.gvk)}: same verdict on ${samples.length} corpus manifests`, () => {
      for (const m of samples) {
        const theirs = engine.validate(m, reference).map((v) => v.message);
        const mine = engine.validate(m, ours).map((v) => v.message);
        expect({ file: m.file, valid: mine.length === 0, mine }).toEqual({ file: m.file, valid: theirs.length === 0, mine: expect.anything() });
      }
    });
  }
});

function usesWebhookTypedForm(m: Manifest): boolean {
  const spec = (m.object.spec ?? {}) as { workload?: { type?: unknown }; components?: { traits?: { trait?: { name?: unknown } }[] }[] };
  if (m.kind === "Component") return typeof spec.workload?.type === "string";
  if (m.kind === "ApplicationConfiguration") return (spec.components ?? []).some((c) => (c.traits ?? []).some((t) => typeof t.trait?.name === "string"));
  return false;
}
