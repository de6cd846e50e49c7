import { Manifest, objectIdentity, SourceFile, type KubeObject } from "../manifest/manifest.js";
import { pointerToFieldPath, valueAtPointer } from "../manifest/pointer.js";
import type { Finding } from "../core/finding.js";
import type { SchemaEngine } from "../validate/engine.js";
import { findingAt } from "../validate/findings.js";
import { guarded } from "../validate/guard.js";
import type { SchemaRegistry } from "../validate/schemas/registry.js";
import { gvkOf } from "../validate/schemas/types.js";
import type { JsonObject } from "../core/json.js";
import { renderedObjectName, type RenderedSource } from "../rendered/source.js";
import { BASE_CHECKED_RULES } from "./functions/patch-and-transform/rules.js";

/**
 * Rendered composed resources are more manifests to check: each is validated against the schema
 * registry, and a violation becomes a `render/schema` finding on the source that produced it (XR or
 * ApplicationConfiguration), naming the object, the field and what rendered it. Kinds with no known schema are skipped
 * (managed resources of providers whose CRDs are not in the repo are the common case).
 */
export async function validateRendered(
  sources: RenderedSource[],
  registry: SchemaRegistry,
  engine: SchemaEngine,
  repository: Manifest[] = [],
): Promise<Finding[]> {
  // A rendered object that is also a repository object (a kpt package's resource, say): what
  // validation already said about the repository's object is not said again.
  const inRepository = new Map(repository.map((m) => [objectIdentity(m.object), m]));
  // A nested XR's objects (keys with " > ") come from another Composition's templates than the source's.
  const objects = sources.flatMap((s) => (s.ok ? s.objects.map((o, i) => ({ s, o: o as KubeObject, nested: (s.keys[i] ?? "").includes(" > ") })) : []));
  await registry.prepare(objects.map(({ o }) => gvkOf(o.apiVersion, o.kind)));
  const findings: Finding[] = [];
  for (const { s, o, nested } of objects) {
    guarded(s.source, "validating what it renders:", findings, () => {
      const entry = registry.get(gvkOf(o.apiVersion, o.kind), s.source.file);
      if (!entry) return;
      // Findings go on the source (or the template the object came from), so the rendered object needs no text of its own.
      const manifest = new Manifest(o, new SourceFile(s.source.file, ""), 0);
      const template = nested ? undefined : templateOf(s, o as JsonObject);
      const original = inRepository.get(objectIdentity(o));
      const known = new Set(
        original
          ? engine
              .validate(original, registry.get(gvkOf(original.apiVersion, original.kind), original.file) ?? entry)
              .map((v) => `${v.rule}|${v.pointer}|${v.message}`)
          : [],
      );
      for (const v of engine.validate(manifest, entry)) {
        if (known.has(`${v.rule}|${v.pointer}|${v.message}`)) continue;
        // The base's own mistakes are reported at the base by validation (pt rules); not again per XR.
        if (template && BASE_CHECKED_RULES.has(v.rule) && sameValue(valueAtPointer(template.base, v.pointer), valueAtPointer(o, v.pointer))) continue;
        const field = pointerToFieldPath(v.pointer) || "(root)";
        const rendering = template ? `, rendering ${s.source.kind} ${s.source.name ?? ""} from ${s.source.file}` : "";
        // Checked against a definition elsewhere in the repository (no nearer one): a guess, said as a warning.
        const distant = !registry.isRelated(entry, s.source.file);
        const against = distant ? ` (checked against ${entry.origin}; the package that defines ${o.kind} for this source could not be fetched)` : "";
        const message = `rendered ${o.kind} "${renderedObjectName(o as JsonObject)}" (${s.via}${rendering}) at ${field}: ${v.message}${against}`;
        const severity = distant && (v.severity ?? "error") === "error" ? "warning" : (v.severity ?? "error");
        const at = template && (valueAtPointer(template.base, v.pointer) !== undefined ? `${template.pointer}${v.pointer}` : template.pointer);
        const finding = template
          ? findingAt(template.composition, at!, "render/schema", severity, message)
          : findingAt(s.source, "", "render/schema", severity, message);
        finding.path = field;
        findings.push(finding);
      }
    });
  }
  return findings;
}

const RESOURCE_NAME = "crossplane.io/composition-resource-name";

/** The P&T template a rendered object came from: its Composition, the base's pointer and the base. */
export function templateOf(s: RenderedSource, o: JsonObject): { composition: Manifest; pointer: string; base: unknown } | undefined {
  const composition = (s as RenderedSource & { composition?: Manifest }).composition;
  const name = ((o.metadata as JsonObject | undefined)?.annotations as Record<string, unknown> | undefined)?.[RESOURCE_NAME];
  if (!composition || typeof name !== "string") return undefined;
  const spec = (composition.object.spec ?? {}) as { pipeline?: unknown; resources?: unknown };
  const inputs: { resources: unknown; at: string }[] = [];
  if (Array.isArray(spec.resources)) inputs.push({ resources: spec.resources, at: "/spec/resources" });
  if (Array.isArray(spec.pipeline)) {
    spec.pipeline.forEach((step, i) => {
      const input = (step as { input?: { apiVersion?: unknown; resources?: unknown } } | null)?.input;
      if (typeof input?.apiVersion === "string" && input.apiVersion.startsWith("pt.fn.crossplane.io/") && Array.isArray(input.resources))
        inputs.push({ resources: input.resources, at: `/spec/pipeline/${i}/input/resources` });
    });
  }
  for (const { resources, at } of inputs) {
    const list = resources as { name?: unknown; base?: unknown }[];
    const i = list.findIndex((r) => r?.name === name);
    if (i >= 0 && list[i]!.base) return { composition, pointer: `${at}/${i}/base`, base: list[i]!.base };
  }
  return undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
