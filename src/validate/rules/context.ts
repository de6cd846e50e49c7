import type { Yaml11Ledger } from "../yaml11.js";
import type { Config } from "../../config/config.js";
import type { Manifest } from "../../manifest/manifest.js";
import type { Finding, Severity } from "../../core/finding.js";
import type { SchemaEngine } from "../engine.js";
import { findingAt } from "../findings.js";
import { guarded } from "../guard.js";
import type { RepoIndex } from "../repo-index.js";
import type { SchemaRegistry } from "../schemas/registry.js";

/** What every semantic rule reads: the index built once, the schemas, the config. */
export interface RuleContext {
  index: RepoIndex;
  registry: SchemaRegistry;
  engine: SchemaEngine;
  config: Config;
  /** Reads a file below the repository root (config-named schema files). */
  readFile?: (relativePath: string) => string;
  /** The yes/no/on/off findings the manifests' own schemas left undecided (validate/yaml11.ts). */
  yaml11?: Yaml11Ledger;
  /** The functions composition-ci runs built in, by their names (`function-patch-and-transform`): render's table, given by whoever runs the rules. */
  builtinFunctions?: ReadonlySet<string>;
}

/** A family of rules: `composition/*`, `pt/*`, ... */
export type RuleFamily = (ctx: RuleContext) => Finding[];

/** Collects findings for one manifest, dropping exact repeats (a patch set used by two resources). */
export class FindingSink {
  readonly findings: Finding[] = [];
  private readonly seen = new Set<string>();

  add(manifest: Manifest, pointer: string, rule: string, severity: Severity, message: string): void {
    const key = `${manifest.file}|${manifest.docIndex}|${manifest.pointerPrefix}${pointer}|${rule}|${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push(findingAt(manifest, pointer, rule, severity, message));
  }

  /**
   * A reference to a `kind` named `name` that no manifest read answers: the finding `missing`, or,
   * when a file composition-ci did not read holds such an object (a template, a document with a
   * YAML error), an info saying where it is and that nothing was checked against it.
   */
  addMissing(
    index: RepoIndex,
    manifest: Manifest,
    pointer: string,
    ref: { group: string; kind: string; name: string },
    missing: { rule: string; severity: Severity; message: string },
  ): void {
    const unread = index.unreadObject(ref.group, ref.kind, ref.name);
    if (!unread) return this.add(manifest, pointer, missing.rule, missing.severity, missing.message);
    this.add(
      manifest,
      pointer,
      "reference/unread",
      "info",
      `${ref.kind} "${ref.name}" is only in ${unread.file}:${unread.line}, which composition-ci does not read (${unread.why}); nothing here is checked against it`,
    );
  }

  /** Checks one manifest; an exception is an internal/error finding on it, and the other manifests go on. */
  guard(manifest: Manifest, check: () => void): void {
    guarded(manifest, "checking the rules of", this.findings, check);
  }
}

/** A JSON pointer token (RFC 6901). */
export function ptr(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + String(t).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
