import * as jsyaml from "js-yaml";
import * as YAML from "yaml";
import { plainKeyName, withGoNumbers } from "./go-numbers.js";
import { pointerSegments } from "./pointer.js";

export interface Position {
  line: number;
  column: number;
}

/** Maps JSON pointers to line and column in one file; only files with findings ever build one. */
export interface PositionLocator {
  locate(docIndex: number, pointer: string): Position;
}

/**
 * The locator for a file: js-yaml's parser events (offsets only, no tree: several times cheaper
 * than a `yaml` document) for a file js-yaml read without anchors or aliases; otherwise the
 * `yaml` document tree. Both give the position of the last key or item the pointer reaches
 * (tested to agree on the whole corpus).
 */
export function positionLocator(text: string, events: PackedEvents | undefined): PositionLocator {
  return events ? new EventPositionIndex(text, events) : new PositionIndex(text);
}

/** Positions from the `yaml` package's document tree (resolves aliases). */
export class PositionIndex implements PositionLocator {
  private readonly lineCounter = new YAML.LineCounter();
  private readonly docs: YAML.Document.Parsed[];

  constructor(text: string) {
    this.docs = YAML.parseAllDocuments(text, { lineCounter: this.lineCounter, uniqueKeys: false, customTags: withGoNumbers }) as YAML.Document.Parsed[];
  }

  locate(docIndex: number, pointer: string): Position {
    const doc = this.docs[docIndex];
    if (!doc) return { line: 1, column: 1 };
    let node: unknown = doc.contents;
    let offset = rangeStart(node) ?? doc.range[0];
    for (const segment of pointerSegments(pointer)) {
      if (YAML.isAlias(node)) node = node.resolve(doc);
      if (YAML.isMap(node)) {
        const pair = node.items.find((p) => keyText(p.key) === segment);
        if (!pair) break;
        offset = rangeStart(pair.key) ?? offset;
        node = pair.value;
      } else if (YAML.isSeq(node)) {
        const item = node.items[Number(segment)];
        if (item === undefined || !/^\d+$/.test(segment)) break;
        offset = rangeStart(item) ?? offset;
        node = item;
      } else break;
    }
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : undefined;
}

function keyText(key: unknown): string | undefined {
  if (YAML.isScalar(key)) return String(key.value);
  return key === null || key === undefined ? undefined : String(key);
}

const { DOCUMENT, MAPPING, SEQUENCE, SCALAR, ALIAS, POP } = jsyaml.EVENT_ID;

/**
 * js-yaml's parser events packed 6 numbers each (type, start, end, style, chomping, indent): a
 * fraction of the memory of the event objects, kept for as long as the file's positions are.
 */
export type PackedEvents = Int32Array;
const STRIDE = 6;

/**
 * Whether an event carries an anchor or is an alias: such files take the bounded parser (events
 * never expand aliases, so nothing was built yet).
 */
export function hasAnchors(events: jsyaml.Event[]): boolean {
  for (const e of events) {
    if (e.type === ALIAS) return true;
    if ((e.type === MAPPING || e.type === SEQUENCE || e.type === SCALAR) && e.anchorStart !== -1) return true;
  }
  return false;
}

/** Packs the events of a file, or returns undefined when one carries an anchor or is an alias. */
export function packEvents(events: jsyaml.Event[]): PackedEvents | undefined {
  const packed = allocate(events.length * STRIDE);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const at = i * STRIDE;
    packed[at] = e.type;
    if (e.type === MAPPING || e.type === SEQUENCE) {
      if (e.anchorStart !== -1) return undefined;
      packed[at + 1] = e.start;
    } else if (e.type === SCALAR) {
      if (e.anchorStart !== -1) return undefined;
      packed[at + 1] = e.valueStart;
      packed[at + 2] = e.valueEnd;
      packed[at + 3] = e.style;
      packed[at + 4] = e.chomping;
      packed[at + 5] = e.indent;
    } else if (e.type === ALIAS) return undefined;
  }
  return packed;
}

/**
 * Packed events are carved out of shared slabs: one ArrayBuffer per file makes many small
 * external allocations, each tracked by the garbage collector. A slab lives as long as any
 * file's events in it.
 */
const SLAB_INTS = 256 * 1024;
let slab = new Int32Array(0);
let slabUsed = 0;

function allocate(length: number): Int32Array {
  if (length > SLAB_INTS / 4) return new Int32Array(length);
  if (slabUsed + length > slab.length) {
    slab = new Int32Array(SLAB_INTS);
    slabUsed = 0;
  }
  const view = slab.subarray(slabUsed, slabUsed + length);
  slabUsed += length;
  return view;
}

/** Positions from js-yaml's events: a pointer is followed by skipping sibling subtrees. */
export class EventPositionIndex implements PositionLocator {
  private readonly events: PackedEvents;
  private readonly count: number;
  private readonly docStarts: number[] = [];
  private lineStarts?: number[];
  /** For what events do not place as the tree does (empty documents, block scalars). */
  private tree?: PositionIndex;

  constructor(
    private readonly text: string,
    events?: PackedEvents,
  ) {
    const packed = events ?? packEvents(jsyaml.parseEvents(text, {}));
    if (!packed) throw new Error("the file has anchors: its positions come from the yaml tree");
    this.events = packed;
    this.count = this.events.length / STRIDE;
    let depth = 0;
    for (let i = 0; i < this.count; i++) {
      const t = this.type(i);
      if (t === DOCUMENT && depth === 0) this.docStarts.push(i);
      if (t === DOCUMENT || t === MAPPING || t === SEQUENCE) depth++;
      else if (t === POP) depth--;
    }
  }

  locate(docIndex: number, pointer: string): Position {
    const start = this.docStarts[docIndex];
    if (start === undefined) return { line: 1, column: 1 };
    let node = start + 1;
    let offset = this.startOf(node);
    for (const segment of pointerSegments(pointer)) {
      if (offset === undefined) break;
      const next = this.child(node, segment);
      if (next === undefined) break;
      offset = this.startOf(next.at);
      node = next.node;
    }
    if (offset === undefined) return (this.tree ??= new PositionIndex(this.text)).locate(docIndex, pointer);
    return this.position(offset);
  }

  private type(i: number): number | undefined {
    return i < this.count ? this.events[i * STRIDE] : undefined;
  }

  /** The key (or item) a segment names in the collection at `node`, and the node it leads to. */
  private child(node: number, segment: string): { at: number; node: number } | undefined {
    const t = this.type(node);
    if (t === MAPPING) return this.entries(node).get(segment);
    if (t === SEQUENCE && /^\d+$/.test(segment)) {
      const j = this.items(node)[Number(segment)];
      return j === undefined ? undefined : { at: j, node: j };
    }
    return undefined;
  }

  /**
   * A collection's children, found once: a file with many findings in one long list (a `kind:
   * List` of thousands of items) would otherwise walk the list again for each, quadratically.
   */
  private readonly childCache = new Map<number, number[] | Map<string, { at: number; node: number }>>();

  private items(node: number): number[] {
    let items = this.childCache.get(node) as number[] | undefined;
    if (!items) {
      items = [];
      for (let j = node + 1; j < this.count && this.type(j) !== POP; j = this.skip(j)) items.push(j);
      this.childCache.set(node, items);
    }
    return items;
  }

  private entries(node: number): Map<string, { at: number; node: number }> {
    let entries = this.childCache.get(node) as Map<string, { at: number; node: number }> | undefined;
    if (!entries) {
      entries = new Map();
      for (let j = node + 1; j < this.count && this.type(j) !== POP; ) {
        const value = this.skip(j);
        const key = this.keyText(j);
        if (key !== undefined && !entries.has(key)) entries.set(key, { at: j, node: value });
        j = this.skip(value);
      }
      this.childCache.set(node, entries);
    }
    return entries;
  }

  /** The index just after the subtree that starts at `i`. */
  private skip(i: number): number {
    const t = this.type(i);
    if (t !== MAPPING && t !== SEQUENCE) return i + 1;
    let depth = 0;
    for (let j = i; j < this.count; j++) {
      const u = this.type(j);
      if (u === MAPPING || u === SEQUENCE) depth++;
      else if (u === POP && --depth === 0) return j + 1;
    }
    return this.count;
  }

  /** A key as the object built from the file names it (plain null, booleans and numbers as JS prints them). */
  private keyText(i: number): string | undefined {
    if (this.type(i) !== SCALAR) return undefined;
    const e = this.events;
    const at = i * STRIDE;
    const style = e[at + 3]! as jsyaml.ScalarEvent["style"];
    const raw = jsyaml.getScalarValue(this.text, {
      type: SCALAR,
      valueStart: e[at + 1]!,
      valueEnd: e[at + 2]!,
      anchorStart: -1,
      anchorEnd: -1,
      tagStart: -1,
      tagEnd: -1,
      style,
      chomping: e[at + 4]! as jsyaml.ScalarEvent["chomping"],
      indent: e[at + 5]!,
      fast: false,
    });
    return style === jsyaml.SCALAR_STYLE_PLAIN ? plainKeyName(raw) : raw;
  }

  /** Where the tree's range of a node starts; undefined where events place it differently. */
  private startOf(i: number): number | undefined {
    const t = this.type(i);
    const at = i * STRIDE;
    if (t === MAPPING || t === SEQUENCE) return this.events[at + 1];
    if (t !== SCALAR) return undefined;
    const [valueStart, style] = [this.events[at + 1]!, this.events[at + 3]!];
    if (style === jsyaml.SCALAR_STYLE_LITERAL_BLOCK || style === jsyaml.SCALAR_STYLE_FOLDED_BLOCK) return undefined;
    if (valueStart < 0) return undefined; // an empty node has no place of its own
    const quoted = style === jsyaml.SCALAR_STYLE_SINGLE_QUOTED || style === jsyaml.SCALAR_STYLE_DOUBLE_QUOTED;
    return quoted ? valueStart - 1 : valueStart;
  }

  private position(offset: number): Position {
    const starts = (this.lineStarts ??= lineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}
