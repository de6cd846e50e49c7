import * as jsyaml from "js-yaml";
import * as YAML from "yaml";
import { plainKeyName } from "./go-numbers.js";
import { toPointer } from "./pointer.js";

/**
 * Plain scalars that YAML 1.1 reads as booleans and YAML 1.2 as strings: `yes`, `no`, `on`, `off`,
 * `y`, `n` in their three casings (go-yaml v2's table). composition-ci reads files as YAML 1.2, as
 * kustomize and Flux do; kubectl, Helm, Argo CD and `crossplane render` read them through
 * sigs.k8s.io/yaml (go-yaml v2, YAML 1.1), so the same file means two things. The loader notes each
 * such scalar; validation then tells which reading the schema refuses (validate/yaml11.ts).
 */
const YAML11_BOOLEANS = new Map<string, boolean>([
  ...["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"].map((t) => [t, true] as const),
  ...["n", "N", "no", "No", "NO", "off", "Off", "OFF"].map((t) => [t, false] as const),
]);

/** One such scalar: where it is in its document, its text, and whether it is a mapping key. */
export interface Yaml11Scalar {
  docIndex: number;
  /** JSON pointer to the value (for a key: to the entry it names). */
  pointer: string;
  text: string;
  key: boolean;
}

/** The boolean YAML 1.1 reads from a plain scalar's text, if it reads one where YAML 1.2 reads a string. */
export function yaml11Boolean(text: string): boolean | undefined {
  return YAML11_BOOLEANS.get(text);
}

const { DOCUMENT, MAPPING, SEQUENCE, SCALAR, POP } = jsyaml.EVENT_ID;
const PLAIN = jsyaml.SCALAR_STYLE.PLAIN;
/** First characters of the words above: y Y n N o O. */
const FIRST = new Set([121, 89, 110, 78, 111, 79]);

function isCandidate(e: jsyaml.ScalarEvent, text: string): boolean {
  const length = e.valueEnd - e.valueStart;
  return (
    e.style === PLAIN &&
    e.tagStart === -1 &&
    length > 0 &&
    length <= 3 &&
    FIRST.has(text.charCodeAt(e.valueStart)) &&
    YAML11_BOOLEANS.has(text.slice(e.valueStart, e.valueEnd))
  );
}

/** The scalars of a file read by js-yaml's events (one quick pass; paths only for files that have one). */
export function yaml11ScalarsOfEvents(events: jsyaml.Event[], text: string): Yaml11Scalar[] {
  let any = false;
  for (const e of events) if (e.type === SCALAR && isCandidate(e, text)) any = true;
  return any ? withPointers(events, text) : [];
}

interface Frame {
  mapping: boolean;
  /** A mapping's key just read (its value comes next), as the built object names it. */
  key?: string;
  /** A sequence's next index. */
  index: number;
  /** A key that is itself a collection: nothing below it is addressable. */
  opaque: boolean;
}

function withPointers(events: jsyaml.Event[], text: string): Yaml11Scalar[] {
  const found: Yaml11Scalar[] = [];
  const path: string[] = [];
  const stack: Frame[] = [];
  let docIndex = -1;
  const top = () => stack[stack.length - 1];
  /** The segment of the node that comes next in the top collection, or undefined where none applies. */
  const nextSegment = (): string | undefined => {
    const t = top();
    if (!t || t.opaque) return undefined;
    return t.mapping ? t.key : String(t.index);
  };
  const consumed = () => {
    const t = top();
    if (!t) return;
    if (t.mapping) t.key = undefined;
    else t.index++;
  };
  for (const e of events) {
    if (e.type === DOCUMENT) {
      docIndex++;
      stack.length = 0;
      path.length = 0;
    } else if (e.type === MAPPING || e.type === SEQUENCE) {
      const t = top();
      const asKey = t !== undefined && t.mapping && t.key === undefined;
      const segment = asKey ? undefined : nextSegment();
      path.push(segment ?? "");
      stack.push({ mapping: e.type === MAPPING, index: 0, opaque: asKey || t?.opaque === true });
    } else if (e.type === SCALAR) {
      const t = top();
      if (t?.mapping && t.key === undefined) {
        const key = keyOf(e, text);
        if (!t.opaque && isCandidate(e, text)) found.push({ docIndex, pointer: toPointer([...path.slice(1), key]), text: key, key: true });
        t.key = key;
        continue;
      }
      const segment = nextSegment();
      if (segment !== undefined && isCandidate(e, text))
        found.push({ docIndex, pointer: toPointer([...path.slice(1), segment]), text: text.slice(e.valueStart, e.valueEnd), key: false });
      consumed();
    } else if (e.type === POP) {
      if (stack.length === 0) continue; // the document's end
      stack.pop();
      path.pop();
      consumed();
    } else {
      consumed(); // an alias: the loader sends such files to the other parser, but keep counting
    }
  }
  return found;
}

/** A key as the built object names it. */
function keyOf(e: jsyaml.ScalarEvent, text: string): string {
  const raw = jsyaml.getScalarValue(text, e);
  return e.style === PLAIN ? plainKeyName(raw) : raw;
}

/** The scalars of documents read by the `yaml` library (files with anchors, merge keys or errors). */
export function yaml11ScalarsOfDocuments(docs: YAML.Document.Parsed[]): Yaml11Scalar[] {
  const found: Yaml11Scalar[] = [];
  docs.forEach((doc, docIndex) => {
    YAML.visit(doc, {
      Scalar(key, node, ancestors) {
        if (node.type !== "PLAIN" || node.tag !== undefined || typeof node.source !== "string" || !YAML11_BOOLEANS.has(node.source)) return;
        const segments = segmentsOf([...ancestors, node]);
        if (segments === undefined) return;
        found.push({ docIndex, pointer: toPointer(segments), text: node.source, key: key === "key" });
      },
    });
  });
  return found;
}

/** JSON pointer segments of the last node of an ancestor chain; undefined inside keys, merges or aliases. */
function segmentsOf(chain: readonly unknown[]): string[] | undefined {
  const segments: string[] = [];
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (YAML.isSeq(parent)) segments.push(String(parent.items.indexOf(child as never)));
    else if (YAML.isPair(parent)) {
      // A merge key (`<<`, a Symbol once read with merges on): its values land elsewhere, or nowhere.
      if (!YAML.isScalar(parent.key) || typeof parent.key.value === "symbol" || parent.key.value === "<<") return undefined;
      segments.push(parent.key.value === null ? "null" : String(parent.key.value));
    }
  }
  return segments;
}
