import type { Manifest } from "../manifest/manifest.js";
import type { Finding } from "../core/finding.js";
import type { RenderedSource } from "../rendered/source.js";
import { celTransitionViolations } from "./cel.js";
import { findingAt } from "./findings.js";
import { guarded } from "./guard.js";
import type { SchemaRegistry } from "./schemas/registry.js";
import { applyStructural } from "./structural.js";
import { gvkOf } from "./schemas/types.js";
import { pointerToFieldPath } from "../manifest/pointer.js";
import { previousVersions } from "../manifest/previous.js";

/**
 * A pull request is an update: every object that exists at base and at head is checked against
 * the transition rules (`oldSelf`) of its schema, as the API server checks an update: repository
 * manifests matched by apiVersion, kind, namespace and name (and by file where copies repeat a
 * name: manifest/previous.ts); rendered objects matched as the diff matches them. Validation of one tree cannot do this (there is no old object).
 */
export function transitionFindings(
  base: { manifests: Manifest[]; sources: RenderedSource[] },
  head: { manifests: Manifest[]; sources: RenderedSource[]; registry: SchemaRegistry },
): Finding[] {
  const findings: Finding[] = [];
  const before = previousVersions(base.manifests, head.manifests);
  for (const m of head.manifests) {
    const old = before.get(m);
    if (!old) continue;
    guarded(m, "checking the update rules of", findings, () => {
      for (const v of violations(head.registry, m.object, old.object, m.file)) {
        findings.push(findingAt(m, v.pointer, "schema/transition", v.severity ?? "error", `on update from the base: ${v.message}`));
      }
      const unrenamed = knativeTemplateKeptName(m.object, old.object);
      if (unrenamed) findings.push(findingAt(m, "/spec/template/metadata/name", "knative/revision-name", "error", unrenamed));
    });
  }
  const rendered = base.sources.filter((s) => s.ok);
  const baseSources = new Map(rendered.map((s) => [s.source, s]));
  const sourcesBefore = previousVersions(
    rendered.map((s) => s.source),
    head.sources.map((s) => s.source),
  );
  for (const s of head.sources) {
    const previous = sourcesBefore.get(s.source);
    const old = s.ok && previous ? baseSources.get(previous) : undefined;
    if (!old) continue;
    const oldObjects = new Map(old.keys.map((k, i) => [k, old.objects[i]]));
    guarded(s.source, "checking the update rules of what it renders:", findings, () => {
      s.objects.forEach((o, i) => {
        const previous = oldObjects.get(s.keys[i] ?? "");
        if (!previous) return;
        for (const v of violations(head.registry, o, previous, s.source.file)) {
          const field = pointerToFieldPath(v.pointer) || "(root)";
          const finding = findingAt(
            s.source,
            "",
            "render/transition",
            v.severity ?? "error",
            `rendered ${String(o.kind)} "${s.keys[i]}" (${s.via}) on update from the base, at ${field}: ${v.message}`,
          );
          finding.path = field;
          findings.push(finding);
        }
      });
    });
  }
  return findings;
}

function violations(registry: SchemaRegistry, value: Record<string, unknown>, old: Record<string, unknown>, near: string) {
  const entry = registry.get(gvkOf(String(value.apiVersion ?? ""), String(value.kind ?? "")), near);
  if (!entry?.schema || !entry.structural) return [];
  // The API server defaults both objects before it compares them.
  const now = applyStructural(entry.schema, value).value;
  const then = applyStructural(entry.schema, old).value;
  return celTransitionViolations(entry.schema, now, then);
}

/**
 * Knative's VerifyNameChange: a Service's or Configuration's template that changes while keeping
 * its explicit revision name would make a second revision of the same name, so the webhook
 * refuses the update ("Saw the following changes without a name change").
 */
function knativeTemplateKeptName(now: Record<string, unknown>, then: Record<string, unknown>): string | undefined {
  if (String(now.apiVersion) !== "serving.knative.dev/v1" || !["Service", "Configuration"].includes(String(now.kind))) return undefined;
  const template = (o: Record<string, unknown>) => ((o.spec ?? {}) as Record<string, unknown>).template as Record<string, unknown> | undefined;
  const [a, b] = [template(now), template(then)];
  const name = (t: Record<string, unknown> | undefined) => ((t?.metadata ?? {}) as Record<string, unknown>).name;
  if (!a || !b || typeof name(a) !== "string" || name(a) === "" || name(a) !== name(b)) return undefined;
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  return `on update from the base: the template changes but keeps its revision name "${String(name(a))}": Knative's webhook refuses it (saw changes without a name change); give the template a new name, or remove the name`;
}
