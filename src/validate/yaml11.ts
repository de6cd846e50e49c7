import type { Manifest } from "../manifest/manifest.js";
import { yaml11Boolean, type Yaml11Scalar } from "../manifest/yaml11.js";
import type { Finding } from "../report/finding.js";
import { findingAt } from "./findings.js";
import type { Violation } from "./messages.js";
import { isPlainObject } from "./structural.js";

export const AMBIGUOUS_BOOLEAN = "yaml/ambiguous-boolean";

const YAML12 = "kustomize and Flux (YAML 1.2)";
const YAML11 = "kubectl, Helm, Argo CD and `crossplane render` (YAML 1.1)";

/**
 * What the plain `yes`, `no`, `on`, `off`, `y`, `n` of a manifest mean to the two readings of YAML
 * (manifest/yaml11.ts): the object is checked once more with each read as YAML 1.1 reads it, and
 * the schema's answer at that place says which tools would send what the API server refuses. A
 * finding of the YAML 1.2 check that only the other reading avoids is replaced (`superseded`), so
 * that one finding says what both mean.
 */
export function yaml11Findings(m: Manifest, violations: Violation[], validate: ((object: Manifest["object"]) => Violation[]) | undefined): { findings: Finding[]; superseded: Set<Violation> } {
  // `status` is what controllers write: the API server drops what a manifest says there.
  const scalars = m.yaml11Scalars().filter((s) => s.pointer !== "/status" && !s.pointer.startsWith("/status/"));
  const superseded = new Set<Violation>();
  if (scalars.length === 0) return { findings: [], superseded };
  const as11 = validate?.(readAsYaml11(m.object, scalars));
  const findings = scalars.map((s) => {
    const word = `\`${s.text}\``;
    const bool = String(yaml11Boolean(s.text));
    if (as11 && !s.key) {
      const refused12 = violations.filter((v) => v.pointer === s.pointer);
      const refused11 = as11.filter((v) => v.pointer === s.pointer);
      if (refused11.length && !refused12.length) {
        return findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", `${word} is the boolean ${bool} to ${YAML11}, which this field refuses (${refused11[0]!.message}); it is the string "${s.text}" only to ${YAML12}: quote it ("${s.text}")`);
      }
      if (refused12.length && !refused11.length) {
        refused12.forEach((v) => superseded.add(v));
        return findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", `${word} is the string "${s.text}" to ${YAML12}, which this field refuses (${refused12[0]!.message}); it is the boolean ${bool} only to ${YAML11}: write ${bool}`);
      }
      if (refused12.length) return undefined; // refused either way: the schema finding says so
    }
    if (s.key) return findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", `the key ${word} is "${s.text}" to ${YAML12} and "${bool}" to ${YAML11}: quote it ("${s.text}")`);
    return findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", `${word} is the string "${s.text}" to ${YAML12} and the boolean ${bool} to ${YAML11}: quote it ("${s.text}") for the string, or write ${bool}`);
  });
  return { findings: findings.filter((f): f is Finding => f !== undefined), superseded };
}

/**
 * The violations of an object embedded at `at` in a manifest (a composed resource's base, a
 * function's input) less those at a noted scalar that the YAML 1.1 reading would not have: such a
 * scalar already has its yaml/ambiguous-boolean finding on the manifest, and kubectl would send a
 * value the schema takes.
 */
export function withoutYaml11Readings(m: Manifest, at: string, object: unknown, violations: Violation[], validate: (object: Record<string, unknown>) => Violation[]): Violation[] {
  if (violations.length === 0 || !isPlainObject(object)) return violations;
  const inside = m.yaml11Scalars().filter((s) => !s.key && s.pointer.startsWith(`${at}/`)).map((s) => ({ ...s, pointer: s.pointer.slice(at.length) }));
  const at11 = new Set(inside.map((s) => s.pointer));
  if (!violations.some((v) => at11.has(v.pointer))) return violations;
  const refused11 = new Set(validate(readAsYaml11(object, inside)).map((v) => v.pointer));
  return violations.filter((v) => !at11.has(v.pointer) || refused11.has(v.pointer));
}

/** A copy of the object as YAML 1.1 builds it: each noted value a boolean, each noted key its boolean's name. */
export function readAsYaml11<T extends Record<string, unknown>>(object: T, scalars: Yaml11Scalar[]): T {
  const copy = structuredClone(object);
  // Deepest first: renaming a key must not move a value still to be replaced below it.
  const ordered = [...scalars].sort((a, b) => segments(b.pointer).length - segments(a.pointer).length);
  for (const s of ordered) {
    const path = segments(s.pointer);
    const last = path.pop();
    let parent: unknown = copy;
    for (const seg of path) parent = Array.isArray(parent) ? parent[Number(seg)] : isPlainObject(parent) ? parent[seg] : undefined;
    if (last === undefined) continue;
    const bool = yaml11Boolean(s.text)!;
    if (Array.isArray(parent)) parent[Number(last)] = bool;
    else if (isPlainObject(parent) && last in parent) {
      if (!s.key) parent[last] = bool;
      else {
        const value = parent[last];
        delete parent[last];
        parent[String(bool)] = value;
      }
    }
  }
  return copy;
}

function segments(pointer: string): string[] {
  return pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
