import * as YAML from "yaml";
import type { JsonObject } from "../core/json.js";

/**
 * YAML as kpt's readers see it (kyaml's ByteReader): a file is a stream of documents; empty ones
 * are skipped and do not count; the others are numbered from 0 (`config.kubernetes.io/index`).
 * Lists are not unwrapped (kpt reads package files with unwrapping off).
 */

export interface ReadDocument {
  /** The value (any YAML: a non-mapping document is not KRM, which kpt refuses). */
  value: unknown;
  /** kpt's index: the number of non-empty documents before this one in the file. */
  index: number;
  /** The document's position among all documents of the file (for the position locator). */
  docIndex: number;
  /** The document's own text, for the sequence indentation style. */
  text: string;
}

export class YamlReadError extends Error {}

const OPTIONS = { uniqueKeys: false, maxAliasCount: 100, version: "1.2" } as const;

/**
 * A run reads a package's files twice (the Kptfile checks, then the render): the second read of
 * the same text is a copy of the first's documents, not a second parse (the `yaml` library is
 * the slow part of a large catalog). Bounded; copies, so a caller may change what it gets.
 */
const parsed = new Map<string, ReadDocument[]>();
const PARSED_LIMIT = 4096;

export function readDocuments(text: string): ReadDocument[] {
  const known = parsed.get(text);
  if (known) return structuredClone(known);
  const documents = parseDocuments(text);
  if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value!);
  parsed.set(text, documents);
  return structuredClone(documents);
}

function parseDocuments(text: string): ReadDocument[] {
  const normalized = text.replace(/\r\n/g, "\n");
  const docs = YAML.parseAllDocuments(normalized, OPTIONS);
  const out: ReadDocument[] = [];
  let index = 0;
  for (const [docIndex, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    if (doc.errors.length) throw new YamlReadError(`MalformedYAMLError: ${doc.errors[0]!.message.split("\n")[0]}`);
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue;
    const [start, , end] = doc.range;
    out.push({ value, index: index++, docIndex, text: normalized.slice(start, end) });
  }
  return out;
}

/** One value parsed as a single YAML document (a function's output, a configMap file). */
export function parseOne(text: string): unknown {
  const doc = YAML.parseDocument(text, OPTIONS);
  if (doc.errors.length) throw new YamlReadError(doc.errors[0]!.message.split("\n")[0]);
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}

/**
 * kyaml's sequence indentation style of a document (`DeriveSeqIndentStyle`): the first block
 * sequence whose `- ` sits under a `key:` line decides; `compact` when the dash is at the key's
 * column, `wide` when two further in, `compact` when nothing decides.
 */
export function seqIndentStyle(text: string): "compact" | "wide" {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const dash = line.indexOf("- ");
    if (dash < 0 || line.slice(0, dash).trim() !== "") continue;
    let key = "";
    for (let j = i - 1; j >= 0; j--) {
      if (lines[j]!.trim().startsWith("#")) continue;
      key = lines[j]!.split("#")[0]!;
      break;
    }
    if (key === "") continue;
    const keyIndent = key.length - key.trimStart().length;
    const trimmed = key.trim();
    if ((trimmed.match(/:/g) ?? []).length !== 1 || !trimmed.endsWith(":")) continue;
    if (dash === keyIndent) return "compact";
    if (dash - keyIndent === 2) return "wide";
  }
  return "compact";
}

/** A document as kpt writes it to a file (block style, compact sequences, no line folding). */
export function toYaml(value: unknown): string {
  return YAML.stringify(value, { lineWidth: 0, indentSeq: false, aliasDuplicateObjects: false });
}

/** A YAML stream of objects, each document introduced by `---`. */
export function yamlDocuments(objects: JsonObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join("");
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function deepCopy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
