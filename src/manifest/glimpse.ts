/**
 * The kind and name of the objects in a file composition-ci does not read as manifests (a Helm or
 * Go template, a document YAML cannot parse), seen line by line without parsing: a reference to
 * one of them is then said to point into a file that was not read, not to nothing.
 */

export interface UnreadObject {
  /** The API group of its `apiVersion` ("" for the core group, or when none is seen). */
  group: string;
  kind: string;
  name: string;
  /** Repository-relative path. */
  file: string;
  /** The line of its `kind:`. */
  line: number;
  /** Why the file was not read: `a template`, `YAML that cannot be parsed`. */
  why: string;
}

const DOCUMENT_BOUNDARY = /^(?:---|\.\.\.)/;
/** A comment or a template line at the margin (`{{- if .Values.x }}`) belongs to no block. */
const OUTSIDE_BLOCKS = /^(?:#|\{\{)/;
const API_VERSION = /^apiVersion:[ \t]*["']?([A-Za-z0-9.-]+\/)?[A-Za-z0-9]+["']?[ \t]*(?:#.*)?$/;
const KIND = /^kind:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)["']?[ \t]*(?:#.*)?$/;
const METADATA = /^metadata:[ \t]*(?:#.*)?$/;
const KEY = /^([ \t]+)([A-Za-z][\w.-]*):/;
const NAME_VALUE = /^[ \t]*name:[ \t]*["']?([a-z0-9][a-z0-9.-]*)["']?[ \t]*(?:#.*)?$/;

/** Objects whose top-level `kind:` and `metadata.name` (a plain DNS name, no template) can be seen in the text. */
export function glimpseObjects(text: string, file: string, why: string): UnreadObject[] {
  const out: UnreadObject[] = [];
  let doc: { group?: string; kind?: string; kindLine: number; name?: string } = { kindLine: 0 };
  let metadataIndent: string | undefined;
  let inMetadata = false;
  const finish = () => {
    if (doc.kind && doc.name) out.push({ group: doc.group ?? "", kind: doc.kind, name: doc.name, file, line: doc.kindLine, why });
  };
  const all = text.split("\n");
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!.replace(/\r$/, "");
    if (DOCUMENT_BOUNDARY.test(line)) {
      finish();
      doc = { kindLine: 0 };
      inMetadata = false;
      continue;
    }
    if (OUTSIDE_BLOCKS.test(line)) continue;
    if (/^\S/.test(line)) {
      inMetadata = METADATA.test(line);
      metadataIndent = undefined;
      const kind = KIND.exec(line);
      if (kind && !doc.kind) [doc.kind, doc.kindLine] = [kind[1], i + 1];
      const apiVersion = API_VERSION.exec(line);
      if (apiVersion && doc.group === undefined) doc.group = apiVersion[1]?.slice(0, -1) ?? "";
      continue;
    }
    if (!inMetadata) continue;
    const key = KEY.exec(line);
    if (!key) continue;
    metadataIndent ??= key[1];
    if (key[1] !== metadataIndent || key[2] !== "name" || doc.name) continue;
    const name = NAME_VALUE.exec(line);
    if (name) doc.name = name[1];
  }
  finish();
  return out;
}
