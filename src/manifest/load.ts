import { hasAnchors } from "./positions.js";
import { MAX_NESTING, nestingOver } from "./depth.js";
import fs from "node:fs";
import * as jsyaml from "js-yaml";
import * as YAML from "yaml";
import type { Finding } from "../core/finding.js";
import { Manifest, SourceFile, isKubeObject } from "./manifest.js";
import { apiGroupTypo, incompleteObject } from "./object-shape.js";
import { pointAtCause } from "./yaml-cause.js";
import { indentQuotedContinuations } from "./lenient.js";
import { glimpseObjects, type UnreadObject } from "./glimpse.js";
import { MANIFEST_SCHEMA, withGoNumbers } from "./go-numbers.js";
import { yaml11ScalarsOfDocuments, yaml11ScalarsOfEvents, type Yaml11Scalar } from "./yaml11.js";
import { isKuttlAssertion, isKustomizationFile, isRenderOutput } from "./roles.js";
import { inHelmChartTemplates, templateLanguage } from "./templates.js";
import { contentKey, type WorkStore } from "../cache/store.js";
import { fromStored, toStored, type StoredLoad } from "./stored.js";
import type { LoadedFile } from "./loaded.js";

export interface LoadLimits {
  /** Files larger than this are reported and skipped. */
  maxFileBytes: number;
  /** Alias expansions allowed in one document (anchor bombs stop here). */
  maxAliasCount: number;
}

export const DEFAULT_LIMITS: LoadLimits = { maxFileBytes: 5 * 1024 * 1024, maxAliasCount: 100 };

export type { FileRole, LoadedFile } from "./loaded.js";

/** Reads and loads one file, checking its size before reading it. */
export function loadPath(abs: string, file: string, limits: LoadLimits = DEFAULT_LIMITS, cache?: LoadCache): LoadedFile {
  // One open, one fstat, one read: the size is checked on the open file, not by a second lookup.
  const fd = fs.openSync(abs, "r");
  try {
    const stat = fs.fstatSync(fd);
    if (stat.size > limits.maxFileBytes) return tooLarge(file, stat.size, limits);
    if (!cache) return loadFile(file, readExactly(fd, stat.size), limits, abs);
    const same = cache.sameFile(file, stat, limits);
    if (same) return same;
    const bytes = readExactly(fd, stat.size);
    return cache.sameBytes(file, bytes, limits) ?? cache.keep(file, stat, bytes, limits, cache.stored(file, bytes, limits, abs));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Files loaded once, handed out again when a second tree holds the same bytes at the same path
 * (diff reads the base and the head): the same file (a hard link, same size and times) is not
 * even read again, other files are compared byte for byte. What is handed out again shares the
 * parsed objects and the SourceFile (text, events, positions), never the Manifest wrappers or
 * the findings (a run may mark its findings), so each tree's results stay its own.
 */
export class LoadCache {
  private readonly files = new Map<string, CachedLoad>();

  /**
   * With a `store`, a file whose bytes (at its path, under the same limits) were parsed by an
   * earlier run is not parsed again. `remember: false`: nothing is kept in memory for a second
   * tree (one tree is read).
   */
  constructor(
    private readonly store?: WorkStore,
    private readonly remember = true,
  ) {}

  /** The file loaded from the store, or loaded and put there. */
  stored(file: string, bytes: Buffer, limits: LoadLimits, abs?: string): LoadedFile {
    if (!this.store) return loadFile(file, bytes, limits, abs);
    // A file's load reads its path (roles) and, for a template, whether it is in a Helm chart: both are in the key.
    const helm = abs !== undefined && inHelmChartTemplates(abs);
    const key = contentKey("load", file, String(limits.maxFileBytes), String(limits.maxAliasCount), String(helm), bytes);
    let stored = this.store.get(key) as StoredLoad | undefined;
    // The text as the bytes give it: a stored load leaves it out when it is the same.
    const asText = stripBom(bytes.toString("utf8"));
    const loaded = stored === undefined ? loadFile(file, bytes, limits, abs) : fromStored(stored, asText);
    if (stored === undefined) this.store.set(key, (stored = toStored(loaded, asText)));
    if (loaded.source) {
      loaded.source.key = key;
      if (!loaded.source.eventsIfParsed) this.withoutPositions.push({ key, stored, source: loaded.source });
    }
    return loaded;
  }

  private readonly withoutPositions: { key: string; stored: StoredLoad; source: SourceFile }[] = [];

  /** Files kept without positions that a finding has since needed: kept again with them (their events), so no later run parses them again for that. */
  keepPositions(): void {
    // The events are added to the load as it was kept, not to what the run made of it since.
    for (const { key, stored, source } of this.withoutPositions.splice(0)) {
      const events = source.eventsIfParsed;
      if (events && stored.source) this.store?.set(key, { ...stored, source: { ...stored.source, events } });
    }
  }

  /** The file as loaded before, when `stat` says it is the same file, unchanged. */
  sameFile(file: string, stat: fs.Stats, limits: LoadLimits): LoadedFile | undefined {
    const c = this.files.get(file);
    if (!c || !sameLimits(c.limits, limits)) return undefined;
    const s = c.stat;
    const same = s.dev === stat.dev && s.ino === stat.ino && s.size === stat.size && s.mtimeMs === stat.mtimeMs && s.ctimeMs === stat.ctimeMs;
    return same ? handOut(c) : undefined;
  }

  /** The file as loaded before, when it held exactly these bytes. */
  sameBytes(file: string, bytes: Buffer, limits: LoadLimits): LoadedFile | undefined {
    const c = this.files.get(file);
    return c && sameLimits(c.limits, limits) && c.bytes.equals(bytes) ? handOut(c) : undefined;
  }

  /** Remembers a file's load and returns it (the first tree owns these objects). */
  keep(file: string, stat: fs.Stats, bytes: Buffer, limits: LoadLimits, loaded: LoadedFile): LoadedFile {
    if (!this.remember) return loaded;
    this.files.set(file, { stat, bytes, limits, loaded, findings: loaded.findings.map((f) => ({ ...f })) });
    return loaded;
  }
}

interface CachedLoad {
  stat: fs.Stats;
  bytes: Buffer;
  limits: LoadLimits;
  loaded: LoadedFile;
  /** The load's findings as they were made (the first run may mark its own). */
  findings: Finding[];
}

function sameLimits(a: LoadLimits, b: LoadLimits): boolean {
  return a.maxFileBytes === b.maxFileBytes && a.maxAliasCount === b.maxAliasCount;
}

function handOut(c: CachedLoad): LoadedFile {
  const { loaded } = c;
  return {
    ...loaded,
    manifests: loaded.manifests.map((m) => new Manifest(m.object, m.source, m.docIndex, m.pointerPrefix)),
    findings: c.findings.map((f) => ({ ...f })),
  };
}

/** The file's first `size` bytes (readFileSync on a descriptor would stat it again). */
function readExactly(fd: number, size: number): Buffer {
  if (size === 0) return fs.readFileSync(fd); // a pipe or /proc file says 0 and still has bytes
  const buffer = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const n = fs.readSync(fd, buffer, read, size - read, read);
    if (n === 0) break; // the file shrank since fstat
    read += n;
  }
  return read === size ? buffer : buffer.subarray(0, read);
}

function tooLarge(file: string, size: number, limits: LoadLimits): LoadedFile {
  // composition-ci's limit, not the repository's fault: a warning with the fix.
  return skipped(
    file,
    "file/too-large",
    "warning",
    `file is ${size} bytes, over the ${limits.maxFileBytes}-byte limit; not read, so nothing in it is checked (raise maxFileBytes in .composition-ci.yaml to read it)`,
  );
}

/**
 * Turns one file's bytes into manifests. The fast path parses with js-yaml; any file it rejects,
 * and any file with anchors or aliases, is parsed again with `yaml`, which reports every problem
 * with its line and bounds alias expansion.
 */
export function loadFile(file: string, bytes: Buffer, limits: LoadLimits = DEFAULT_LIMITS, abs?: string): LoadedFile {
  if (bytes.length > limits.maxFileBytes) return tooLarge(file, bytes.length, limits);
  const utf16 = decodeUtf16(bytes);
  if (utf16 === null) return skipped(file, "file/encoding", "error", "file starts with a UTF-16 byte-order mark but is not valid UTF-16; not read");
  if (utf16 === undefined && isBinary(bytes)) return skipped(file, "file/binary", "warning", "file has binary content (a NUL byte); not read as YAML");
  const decoded = utf16 ?? decodeUtf8(bytes);
  if (decoded === undefined) return skipped(file, "file/encoding", "error", "file is not valid UTF-8 (YAML and JSON manifests are UTF-8); not read");
  let text = stripBom(decoded);
  const deepAt = nestingOver(text);
  if (deepAt !== undefined) {
    if (!looksLikeManifest(text))
      return skipped(
        file,
        "file/not-a-manifest",
        "info",
        `not a Kubernetes manifest (no apiVersion and kind) and nested more than ${MAX_NESTING} levels deep; skipped`,
      );
    return {
      manifests: [],
      findings: [
        {
          rule: "yaml/syntax",
          severity: "error",
          file,
          line: deepAt,
          column: 1,
          message: `the document nests more than ${MAX_NESTING} levels deep (no manifest does); not read`,
        },
      ],
      documents: 0,
    };
  }
  const jsonError = file.toLowerCase().endsWith(".json") ? strictJsonError(text) : undefined;
  if (jsonError) {
    if (!looksLikeManifest(text))
      return skipped(
        file,
        "file/not-a-manifest",
        "info",
        `not a Kubernetes manifest (no apiVersion and kind) and not valid JSON (${jsonError.message}); skipped`,
      );
    return { manifests: [], findings: [{ rule: "yaml/syntax", severity: "error", file, ...jsonError }], documents: 0 };
  }
  let parsed = parseFast(text) ?? parseCareful(text, limits);
  const leniency: Finding[] = [];
  if (parsed.errors.some((e) => /^Missing closing ['"]quote/.test(e.message))) {
    const relaxed = indentQuotedContinuations(text);
    const again = relaxed === undefined ? undefined : (parseFast(relaxed) ?? parseCareful(relaxed, limits));
    if (relaxed !== undefined && again && again.errors.length === 0) {
      [text, parsed] = [relaxed, again];
      leniency.push({ rule: "yaml/lenient", severity: "info", message: LENIENT_MESSAGE, file, line: 1, column: 1 });
    }
  }
  const source = new SourceFile(file, text);
  source.plain = parsed.plain === true;
  if (parsed.yaml11?.length) source.yaml11 = parsed.yaml11;
  if (isTemplated(text, parsed.errors)) {
    const unread = glimpseObjects(text, file, "a template");
    return {
      ...skipped(
        file,
        "file/templated",
        "info",
        "file has template markers ({{ }} or {% %}: Go, Helm, nunjucks) and is not plain YAML; skipped (render it first to validate it)",
      ),
      ...(unread.length ? { unread } : {}),
    };
  }
  if (hasFillInPlaceholders(text, parsed.errors)) {
    return skipped(
      file,
      "file/templated",
      "info",
      "file has placeholders to fill in ({your-account}) that break the YAML until someone replaces them; skipped (fill them in to validate it)",
    );
  }
  if (parsed.errors.length && !looksLikeManifest(text)) {
    const what = file.endsWith(".json") ? "JSON" : "YAML";
    return skipped(
      file,
      "file/not-a-manifest",
      "info",
      `not a Kubernetes manifest (no apiVersion and kind) and not valid ${what} (${parsed.errors[0]!.message}); skipped`,
    );
  }
  const findings = [...leniency, ...firstSyntaxErrors(pointAtCause(text, parsed.errors)).map((e) => ({ ...e, file }))];
  // A repeated key matters only in an object something applies (a test's data file is no manifest).
  parsed.documents.forEach((doc, i) => {
    if (doc !== BROKEN && isKubeObject(doc)) for (const d of parsed.duplicates?.[i] ?? []) findings.push({ ...d, file });
  });
  const manifests: Manifest[] = [];
  const malformed: { docIndex: number; pointer: string; message: string; rule?: string }[] = [];
  parsed.documents.forEach((doc, docIndex) => {
    if (doc === BROKEN) return;
    collectManifests(doc, source, docIndex, manifests, (pointer, message, rule) => malformed.push({ docIndex, pointer, message, rule }));
  });
  const unread = parsed.documents.includes(BROKEN) ? unreadBesides(manifests, glimpseObjects(text, file, "a document with a YAML error")) : [];
  for (const m of malformed) {
    const at = source.locate(m.docIndex, m.pointer);
    findings.push({ rule: m.rule ?? "schema/type", severity: "error", file, line: at.line, column: at.column, message: m.message });
  }
  const language = manifests.length ? templateLanguage(text, file, abs) : undefined;
  if (language) {
    return {
      ...skipped(
        file,
        "file/templated",
        "info",
        `file is a ${language} template: its tool's output is applied, not the file; skipped (render it first to validate it)`,
      ),
      unread: manifests.map(asUnread),
    };
  }
  if (manifests.some(hasEnvsubstName)) {
    return skipped(
      file,
      "file/templated",
      "info",
      "file has envsubst placeholders ($VAR, ${VAR}) in object names and is filled in before it is applied; skipped (substitute them first to validate it)",
    );
  }
  if (isKustomizationFile(file)) return { source, manifests, findings, documents: parsed.documents.length, kustomization: parsed.documents[0] };
  const role = manifests.length === 0 ? undefined : isKuttlAssertion(file) ? "test-assertion" : isRenderOutput(parsed.documents) ? "render-output" : undefined;
  if (role) return { source, manifests: [], findings, documents: parsed.documents.length, role };
  return { source, manifests, findings, documents: parsed.documents.length, ...(unread.length ? { unread } : {}) };
}

/** The objects seen in a file's text that are not among those read from its good documents. */
function unreadBesides(manifests: Manifest[], seen: UnreadObject[]): UnreadObject[] {
  const read = new Set(manifests.map((m) => `${m.kind}/${m.name}`));
  return seen.filter((o) => !read.has(`${o.kind}/${o.name}`));
}

const BROKEN = Symbol("broken document");
const MERGE_KEY = /^[ \t]*(?:- +)?<<[ \t]*:/m;
type ParsedDocument = unknown | typeof BROKEN;

interface Parsed {
  documents: ParsedDocument[];
  errors: Finding[];
  /** js-yaml read it, with no anchor or alias: positions can come from its events. */
  plain?: boolean;
  /** Plain scalars YAML 1.1 reads as booleans (yaml11.ts). */
  yaml11?: Yaml11Scalar[];
  /** Keys a mapping repeats, per document (the careful parser only). */
  duplicates?: Finding[][];
}

/**
 * js-yaml's load, in its two halves: events never expand aliases, so a file with anchors is sent
 * to the bounded parser before anything is built from it. The events are not kept: only files
 * with findings need positions, and those parse their text into events again (SourceFile.events).
 */
function parseFast(text: string): Parsed | undefined {
  // A `<<` merge key: js-yaml's core schema would keep it as a key; the careful parser merges it.
  if (MERGE_KEY.test(text)) return undefined;
  try {
    const events = jsyaml.parseEvents(text, {});
    if (hasAnchors(events)) return undefined;
    const documents = jsyaml.constructFromEvents(events, { source: text, schema: MANIFEST_SCHEMA });
    return { documents, errors: [], plain: true, yaml11: yaml11ScalarsOfEvents(events, text) };
  } catch {
    return undefined;
  }
}

function parseCareful(text: string, limits: LoadLimits): Parsed {
  const lineCounter = new YAML.LineCounter();
  // merge: `<<` keys merge their mapping in, as go-yaml (kubectl, the API machinery) reads them.
  // Keys are checked for uniqueness here, in one pass (the parser's own check is quadratic).
  const docs = YAML.parseAllDocuments(text, { lineCounter, uniqueKeys: false, prettyErrors: false, merge: true, customTags: withGoNumbers });
  const documents: ParsedDocument[] = [];
  const errors: Finding[] = [];
  const duplicates: Finding[][] = [];
  for (const doc of docs) {
    duplicates.push(duplicateKeys(doc, lineCounter));
    const docErrors = doc.errors.map((err) => yamlErrorFinding(err, lineCounter));
    docErrors.push(...collectionKeyErrors(doc, lineCounter));
    if (docErrors.length > 0) {
      errors.push(...docErrors);
      documents.push(BROKEN);
      continue;
    }
    try {
      documents.push(doc.toJS({ maxAliasCount: limits.maxAliasCount }));
    } catch (err) {
      const pos = lineCounter.linePos(doc.range[0]);
      const message = (err as Error).message;
      const bomb = /alias count/i.test(message);
      errors.push({
        rule: bomb ? "yaml/alias-limit" : "yaml/syntax",
        severity: "error",
        message: bomb
          ? `document expands more than ${limits.maxAliasCount} aliases (an anchor/alias bomb?); not read: ${message}`
          : `${message} (an alias names an anchor set before it in its own document; anchors do not reach across \`---\`, and \`<<\` merges mappings only); not read`,
        line: pos.line,
        column: pos.col,
      });
      documents.push(BROKEN);
    }
  }
  return { documents, errors, duplicates, yaml11: yaml11ScalarsOfDocuments(docs) };
}

function yamlErrorFinding(err: YAML.YAMLError, lineCounter: YAML.LineCounter): Finding {
  const pos = err.linePos?.[0] ?? lineCounter.linePos(err.pos[0]);
  const firstLine = err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  const tooDeep = /Maximum call stack size exceeded/.test(firstLine);
  return {
    rule: "yaml/syntax",
    message: tooDeep ? "the document nests too deeply to read (hundreds of levels); not read" : firstLine,
    severity: "error",
    line: pos.line,
    column: pos.col,
  };
}

/**
 * A key a mapping repeats: kubectl, Helm, Argo CD and `crossplane render` read YAML with
 * sigs.k8s.io/yaml (go-yaml v2), which keeps the last value, and so does this reader; kustomize
 * and Flux (kyaml, go-yaml v3) refuse the file. A warning where the values differ (which one the
 * author meant is a guess), an info where they are the same; an error in a file a kustomization
 * reads (`kustomizedDuplicates`). One pass with a set per mapping: linear in the document.
 */
function duplicateKeys(doc: YAML.Document.Parsed, lineCounter: YAML.LineCounter): Finding[] {
  const out: Finding[] = [];
  YAML.visit(doc, {
    Map(_, map) {
      const first = new Map<string, YAML.Pair>();
      for (const pair of map.items) {
        if (!YAML.isScalar(pair.key)) continue;
        const name = String(pair.key.value);
        const earlier = first.get(name);
        if (!earlier) {
          first.set(name, pair);
          continue;
        }
        const same =
          JSON.stringify(YAML.isNode(earlier.value) ? earlier.value.toJSON() : earlier.value) ===
          JSON.stringify(YAML.isNode(pair.value) ? pair.value.toJSON() : pair.value);
        const pos = lineCounter.linePos(pair.key.range?.[0] ?? 0);
        const firstLine = lineCounter.linePos((earlier.key as YAML.Scalar).range?.[0] ?? 0).line;
        out.push({
          rule: "yaml/duplicate-key",
          severity: same ? "info" : "warning",
          message: `duplicate mapping key \`${name}\` (first at line ${firstLine}${same ? ", with the same value" : ""}): kubectl, Helm, Argo CD and crossplane render keep the last value, kustomize and Flux refuse the file`,
          line: pos.line,
          column: pos.col,
        });
      }
      return undefined;
    },
  });
  return out;
}

/** `{{ .x }}: v` parses as a map whose key is a map: legal YAML, never a Kubernetes object. */
function collectionKeyErrors(doc: YAML.Document.Parsed, lineCounter: YAML.LineCounter): Finding[] {
  const errors: Finding[] = [];
  YAML.visit(doc, {
    Pair(_, pair) {
      if (!YAML.isCollection(pair.key)) return;
      const pos = lineCounter.linePos(pair.key.range?.[0] ?? 0);
      errors.push({ rule: "yaml/syntax", severity: "error", message: "a mapping key is itself a map or a list", line: pos.line, column: pos.col });
    },
  });
  return errors;
}

/** A file is a template when it does not parse and a failing line holds a `{{` action. */
function isTemplated(text: string, errors: Finding[]): boolean {
  if (errors.length === 0 || !(text.includes("{{") || text.includes("{%"))) return false;
  const lines = text.split("\n");
  const marked = (line: string | undefined) => line !== undefined && (line.includes("{{") || line.includes("{%"));
  return errors.some((e) => e.line !== undefined && [e.line - 2, e.line - 1, e.line].some((i) => marked(lines[i])));
}

/** A sample's `{your-docker-account}/image` on the line of a syntax error: a fill-in, not a fault. */
function hasFillInPlaceholders(text: string, errors: Finding[]): boolean {
  if (errors.length === 0 || !/\{[a-z][a-z0-9._-]*\}/i.test(text)) return false;
  const lines = text.split("\n");
  return errors.some((e) => e.line !== undefined && /:\s*\{[a-z][a-z0-9._-]*\}[^\s,}]/i.test(lines[e.line - 1] ?? ""));
}

/**
 * The objects of a document: itself, or a List's items. A document that has both apiVersion and
 * kind, one of them not a name (`apiVersion: 5`), a List item that is not an object, a document
 * with metadata and only one of apiVersion and kind, and an object whose API group is a typo of a
 * known one (object-shape.ts) are said (`problem`): the API server refuses them, and they would
 * otherwise pass unread or unchecked.
 */
function collectManifests(
  doc: unknown,
  source: SourceFile,
  docIndex: number,
  out: Manifest[],
  problem: (pointer: string, message: string, rule?: string) => void,
): void {
  if (!isKubeObject(doc)) {
    const o = doc as Record<string, unknown> | null;
    if (o && typeof o === "object" && !Array.isArray(o) && "apiVersion" in o && "kind" in o) {
      for (const key of ["apiVersion", "kind"]) {
        if (typeof o[key] !== "string" || o[key] === "")
          problem(`/${key}`, `\`${key}\` must be a non-empty string, not ${describe(o[key])}: the API server refuses the object`);
      }
    }
    const incomplete = incompleteObject(doc);
    if (incomplete) problem(incomplete.pointer, incomplete.message, incomplete.rule);
    return;
  }
  const typo = (object: { apiVersion: string }, at: string) => {
    const t = apiGroupTypo(object.apiVersion);
    if (t) problem(`${at}${t.pointer}`, t.message, t.rule);
  };
  if (doc.kind === "List" && Array.isArray(doc.items)) {
    doc.items.forEach((item, i) => {
      if (isKubeObject(item)) {
        typo(item, `/items/${i}`);
        out.push(new Manifest(item, source, docIndex, `/items/${i}`));
      } else problem(`/items/${i}`, `\`items[${i}]\` of a List must be an object with apiVersion and kind, not ${describe(item)}`);
    });
    return;
  }
  typo(doc, "");
  out.push(new Manifest(doc, source, docIndex));
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object without apiVersion and kind";
  return `${typeof v === "string" ? "an empty string" : `a ${typeof v}`} (${JSON.stringify(v)})`;
}

const LENIENT_MESSAGE =
  "a quoted string continues on lines indented no deeper than its key: YAML 1.2 forbids it, the Go YAML parsers kubectl uses accept it; read as they read it";

const ENVSUBST = /\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/;

/** `name: $CLAIM_NAME`: a shell-substituted template, which no API server would accept as it is. */
function hasEnvsubstName(m: Manifest): boolean {
  const meta = m.object.metadata;
  // `(join('-', [$x]))` is a chainsaw expression, not a shell variable.
  return (
    !!meta && [meta.name, meta.namespace, meta.generateName].some((v) => typeof v === "string" && v.includes("$") && !/^\(.*\)$/.test(v) && ENVSUBST.test(v))
  );
}

/**
 * A .json file is read as JSON: YAML would read JSON with comments or trailing commas as
 * something else (a comment line becomes part of a key) instead of failing.
 */
function strictJsonError(text: string): { message: string; line: number; column: number } | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : 0;
    const before = text.slice(0, offset).split("\n");
    return {
      message: `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, "").replace(/^JSON\.parse: /, "")}`,
      line: before.length,
      column: before[before.length - 1]!.length + 1,
    };
  }
}

/** A byte-order mark is not part of the text (editors on Windows write one). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A file that means to hold Kubernetes objects names an apiVersion and a kind somewhere. */
function looksLikeManifest(text: string): boolean {
  return /(^|[\s{,"'])apiVersion["']?\s*:/m.test(text) && /(^|[\s{,"'])kind["']?\s*:/m.test(text);
}

/**
 * One syntax error usually sets off a cascade (a missing quote, and every line after it is
 * misread): the first error of the file is reported, with a count of the rest.
 */
function firstSyntaxErrors(errors: Finding[]): Finding[] {
  const syntax = errors.filter((e, i) => e.rule === "yaml/syntax" && errors.findIndex((o) => o.rule === e.rule && o.message === e.message) === i);
  if (syntax.length <= 1) return syntax.length ? [syntax[0]!, ...errors.filter((e) => e.rule !== "yaml/syntax")] : errors;
  const rest = syntax.length - 1;
  const first = {
    ...syntax[0]!,
    message: `${syntax[0]!.message} (and ${rest} more syntax error${rest === 1 ? "" : "s"} after it, probably caused by this one)`,
  };
  return [first, ...errors.filter((e) => e.rule !== "yaml/syntax")];
}

function skipped(file: string, rule: string, severity: Finding["severity"], message: string): LoadedFile {
  return { manifests: [], findings: [{ rule, severity, message, file, line: 1, column: 1 }], documents: 0 };
}

function isBinary(bytes: Buffer): boolean {
  return bytes.includes(0);
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A file with a UTF-16 byte-order mark, decoded as YAML parsers (go-yaml, kubectl's) decode it;
 * undefined when there is no such mark, null when what follows it is not UTF-16.
 */
function decodeUtf16(bytes: Buffer): string | null | undefined {
  const le = bytes[0] === 0xff && bytes[1] === 0xfe;
  const be = bytes[0] === 0xfe && bytes[1] === 0xff;
  if (!le && !be) return undefined;
  try {
    return new TextDecoder(le ? "utf-16le" : "utf-16be", { fatal: true }).decode(bytes.subarray(2));
  } catch {
    return null;
  }
}

/** The text, or undefined when the bytes are not UTF-8 (Buffer.toString would replace them silently). */
function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Anchors and aliases are rare in manifests; files with them take the bounded parser. */

/** An object of a template file, known by name for references (`reference/unread`), never checked. */
function asUnread(m: Manifest): UnreadObject {
  return { group: m.group, kind: m.kind, name: m.name ?? "", file: m.file, line: m.locate("/kind").line, why: "a template" };
}
