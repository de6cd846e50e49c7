import { Manifest, SourceFile, type KubeObject } from "../manifest/manifest.js";
import { pointerToFieldPath } from "../manifest/pointer.js";
import type { Finding } from "../report/finding.js";
import type { SchemaEngine } from "../validate/engine.js";
import { findingAt } from "../validate/findings.js";
import { guarded } from "../validate/guard.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import { gvkOf } from "../validate/schemas/types.js";
import type { JsonObject } from "./functions/response.js";
import { renderedObjectName, type RenderedSource } from "./source.js";

/**
 * Rendered composed resources are more manifests to check: each is validated against the schema
 * registry, and a violation becomes a `render/schema` finding on the source that produced it (XR or
 * ApplicationConfiguration), naming the object, the field and what rendered it. Kinds with no known schema are skipped
 * (managed resources of providers whose CRDs are not in the repo are the common case).
 */
export async function validateRendered(sources: RenderedSource[], registry: SchemaRegistry, engine: SchemaEngine): Promise<Finding[]> {
  const objects = sources.flatMap((s) => (s.ok ? s.objects.map((o) => ({ s, o: o as KubeObject })) : []));
  await registry.prepare(objects.map(({ o }) => (gvkOf(o.apiVersion, o.kind))));
  const findings: Finding[] = [];
  for (const { s, o } of objects) {
    guarded(s.source, "validating what it renders:", findings, () => {
      const entry = registry.get(gvkOf(o.apiVersion, o.kind), s.source.file);
      if (!entry) return;
      // Findings go on the source, so the rendered object needs no text of its own to locate fields in.
      const manifest = new Manifest(o, new SourceFile(s.source.file, ""), 0);
      for (const v of engine.validate(manifest, entry)) {
        const field = pointerToFieldPath(v.pointer) || "(root)";
        const message = `rendered ${o.kind} "${renderedObjectName(o as JsonObject)}" (${s.via}) at ${field}: ${v.message}`;
        const finding = findingAt(s.source, "", "render/schema", v.severity ?? "error", message);
        finding.path = field;
        findings.push(finding);
      }
    });
  }
  return findings;
}
