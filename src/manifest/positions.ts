import * as YAML from "yaml";
import { pointerSegments } from "./pointer.js";

export interface Position {
  line: number;
  column: number;
}

/**
 * Maps JSON pointers to line and column in one file. Built lazily from the `yaml` package's
 * document tree, because only documents with findings ever need a position.
 */
export class PositionIndex {
  private readonly lineCounter = new YAML.LineCounter();
  private readonly docs: YAML.Document.Parsed[];

  constructor(text: string) {
    this.docs = YAML.parseAllDocuments(text, { lineCounter: this.lineCounter, uniqueKeys: false }) as YAML.Document.Parsed[];
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
