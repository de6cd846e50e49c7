import type { Manifest } from "../manifest/manifest.js";
import { yaml11Boolean, type Yaml11Scalar } from "../manifest/yaml11.js";
import type { Finding } from "../core/finding.js";
import { findingAt } from "./findings.js";
import type { Violation } from "./messages.js";
import { pointerSegments, valueAtSegments } from "../manifest/pointer.js";
import { isSecretField } from "../secrets/mask.js";
import { isPlainObject } from "../core/json.js";

export const AMBIGUOUS_BOOLEAN = "yaml/ambiguous-boolean";

const YAML12 = "kustomize and Flux (YAML 1.2)";
const YAML11 = "kubectl, Helm, Argo CD and `crossplane render` (YAML 1.1)";

type Validate = (object: Record<string, unknown>) => Violation[];

/**
 * What the plain `yes`, `no`, `on`, `off`, `y`, `n` of a manifest mean to the two readings of YAML
 * (manifest/yaml11.ts): the object is checked once more with each read as YAML 1.1 reads it, and
 * the schema's answer at that place says which tools would send what the API server refuses. A
 * violation of the YAML 1.2 check that only the other reading avoids is replaced (`superseded`),
 * so that one finding says what both mean. Where the schema takes either (a free-form field, no
 * schema), the finding is held in the ledger: a check of an object embedded there (a composed
 * resource's base, a function's input) may still decide it.
 */
export function yaml11Findings(
  m: Manifest,
  violations: Violation[],
  validate: Validate | undefined,
  ledger: Yaml11Ledger,
): { findings: Finding[]; superseded: Set<Violation> } {
  // `status` is what controllers write: the API server drops what a manifest says there.
  const scalars = m.yaml11Scalars().filter((s) => s.pointer !== "/status" && !s.pointer.startsWith("/status/"));
  const superseded = new Set<Violation>();
  const findings: Finding[] = [];
  if (scalars.length === 0) return { findings, superseded };
  const as11 = validate?.(readAsYaml11(m.object, scalars));
  const renamed = renamedKeys(scalars);
  for (const s of scalars) {
    const words = wordsFor(s, m.object);
    const decision = as11 && !s.key ? decide(s, violations, as11, yaml11Pointer(s.pointer, renamed), words) : undefined;
    decision?.superseded.forEach((v) => superseded.add(v));
    if (decision?.message) findings.push(findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", decision.message));
    else if (!decision) ledger.hold(m, s.pointer, findingAt(m, s.pointer, AMBIGUOUS_BOOLEAN, "warning", undecidedMessage(s, words)));
  }
  return { findings, superseded };
}

/**
 * The same for an object embedded at `at` in a manifest, checked against its own kind's schema:
 * its violations less those only the YAML 1.2 reading has, and the findings its schema decides
 * (each replacing the manifest's undecided one in the ledger).
 */
export function embeddedYaml11(
  m: Manifest,
  at: string,
  object: unknown,
  violations: Violation[],
  validate: Validate,
  ledger: Yaml11Ledger | undefined,
): { violations: Violation[]; findings: { pointer: string; message: string }[] } {
  const below = m
    .yaml11Scalars()
    .filter((s) => s.pointer.startsWith(`${at}/`))
    .map((s) => ({ ...s, pointer: s.pointer.slice(at.length) }));
  if (!below.some((s) => !s.key) || !isPlainObject(object)) return { violations, findings: [] };
  const as11 = validate(readAsYaml11(object, below));
  const renamed = renamedKeys(below);
  const superseded = new Set<Violation>();
  const findings: { pointer: string; message: string }[] = [];
  for (const s of below) {
    const decision = s.key ? undefined : decide(s, violations, as11, yaml11Pointer(s.pointer, renamed), wordsFor(s, object));
    if (!decision) continue;
    decision.superseded.forEach((v) => superseded.add(v));
    // A base is checked as part of its function's input and as itself: the first check to decide says so.
    const first = ledger?.decide(m, at + s.pointer) ?? true;
    if (decision.message && first) findings.push({ pointer: s.pointer, message: decision.message });
  }
  return { violations: violations.filter((v) => !superseded.has(v)), findings };
}

/** How a message names the scalar and its two readings: a secret's value is never written, not even which boolean it reads as. */
interface Words {
  secret: boolean;
  word: string;
  asString: string;
  asBoolean: string;
  quote: string;
  writeBoolean: string;
}

function wordsFor(s: Yaml11Scalar, root: unknown): Words {
  const bool = String(yaml11Boolean(s.text));
  if (!s.key && isSecretField(root, pointerSegments(s.pointer))) {
    return {
      secret: true,
      word: "this secret value",
      asString: "a string",
      asBoolean: "a boolean",
      quote: "quote it",
      writeBoolean: "write the boolean meant",
    };
  }
  return {
    secret: false,
    word: `\`${s.text}\``,
    asString: `the string "${s.text}"`,
    asBoolean: `the boolean ${bool}`,
    quote: `quote it ("${s.text}")`,
    writeBoolean: `write ${bool}`,
  };
}

/**
 * What the schema says of one scalar under each reading: undefined when it takes both; otherwise
 * the message (none when it refuses both: the schema's own finding says so) and the YAML 1.2
 * violations it replaces.
 */
function decide(
  s: Yaml11Scalar,
  violations: Violation[],
  as11: Violation[],
  pointer11: string,
  w: Words,
): { message?: string; superseded: Violation[] } | undefined {
  const refused12 = violations.filter((v) => v.pointer === s.pointer);
  const refused11 = as11.filter((v) => v.pointer === pointer11);
  if (!refused12.length && !refused11.length) return undefined;
  // The schema's own words, except for a secret (they would show what the value reads as).
  const why = (v: Violation) => (w.secret ? "" : ` (${v.message})`);
  if (refused11.length && !refused12.length) {
    return {
      message: `${w.word} is ${w.asBoolean} to ${YAML11}, which this field refuses${why(refused11[0]!)}; it is ${w.asString} only to ${YAML12}: ${w.quote}`,
      superseded: [],
    };
  }
  if (refused12.length && !refused11.length) {
    return {
      message: `${w.word} is ${w.asString} to ${YAML12}, which this field refuses${why(refused12[0]!)}; it is ${w.asBoolean} only to ${YAML11}: ${w.writeBoolean}`,
      superseded: refused12,
    };
  }
  return { superseded: [] };
}

function undecidedMessage(s: Yaml11Scalar, w: Words): string {
  const bool = String(yaml11Boolean(s.text));
  if (s.key) return `the key \`${s.text}\` is "${s.text}" to ${YAML12} and "${bool}" to ${YAML11}: quote it ("${s.text}")`;
  return `${w.word} is ${w.asString} to ${YAML12} and ${w.asBoolean} to ${YAML11}: ${w.quote} for the string, or ${w.writeBoolean}`;
}

/**
 * The findings a manifest's own schema left undecided (the field takes either reading), until the
 * check of an object embedded there decides them; what is left is reported after the rules.
 */
export class Yaml11Ledger {
  private readonly open = new Map<Manifest, Map<string, Finding>>();

  hold(m: Manifest, pointer: string, finding: Finding): void {
    let held = this.open.get(m);
    if (!held) this.open.set(m, (held = new Map()));
    held.set(pointer, finding);
  }

  private readonly decided = new Map<Manifest, Set<string>>();

  /** An embedded object's schema decided the scalar at `pointer`: whether it is the first to. */
  decide(m: Manifest, pointer: string): boolean {
    this.open.get(m)?.delete(pointer);
    let done = this.decided.get(m);
    if (!done) this.decided.set(m, (done = new Set()));
    if (done.has(pointer)) return false;
    done.add(pointer);
    return true;
  }

  remaining(): Finding[] {
    return [...this.open.values()].flatMap((held) => [...held.values()]);
  }
}

/** The keys the YAML 1.1 reading renames: their pointer, and the name that reading gives them. */
function renamedKeys(scalars: readonly Yaml11Scalar[]): Map<string, string> {
  return new Map(scalars.filter((s) => s.key).map((s) => [s.pointer, String(yaml11Boolean(s.text))]));
}

/** Where a scalar is in the YAML 1.1 reading: below a key that reading renames, the key's new name. */
function yaml11Pointer(pointer: string, renamed: Map<string, string>): string {
  if (renamed.size === 0) return pointer;
  const parts = pointer.split("/").slice(1);
  let original = "";
  return parts
    .map((part) => {
      original += `/${part}`;
      return `/${renamed.get(original) ?? part}`;
    })
    .join("");
}

/** A copy of the object as YAML 1.1 builds it: each noted value a boolean, each noted key its boolean's name. */
export function readAsYaml11<T extends Record<string, unknown>>(object: T, scalars: readonly Yaml11Scalar[]): T {
  const copy = structuredClone(object);
  // Deepest first, and a key's own value before the key: renaming a key must not move a value still to be replaced.
  const ordered = scalars
    .map((s) => ({ s, path: pointerSegments(s.pointer) }))
    .sort((a, b) => b.path.length - a.path.length || Number(a.s.key) - Number(b.s.key));
  for (const { s, path } of ordered) {
    const last = path.pop();
    const parent = valueAtSegments(copy, path);
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
