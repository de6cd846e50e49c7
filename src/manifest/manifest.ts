import * as jsyaml from "js-yaml";
import { packEvents, positionLocator, type PackedEvents, type Position, type PositionLocator } from "./positions.js";
import type { Yaml11Scalar } from "./yaml11.js";

export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; [k: string]: unknown };
};

/** One file's text, shared by the manifests it holds; positions are computed on first use. */
export class SourceFile {
  private index?: PositionLocator;
  /** js-yaml read the file, and it has no anchor or alias: its positions come from js-yaml's events. */
  plain = false;
  /** The key of the file's bytes in the work store (cache/store.ts), when a store read it. */
  key?: string;
  /** Plain scalars YAML 1.1 reads as booleans and YAML 1.2 as strings (yaml11.ts); most files have none. */
  yaml11: readonly Yaml11Scalar[] = [];
  private yaml11Groups?: Map<string, Yaml11Scalar[]>;
  private packed?: PackedEvents;

  /** Those of one document, or of one item of a `kind: List` document (`/items/3`), with pointers inside it. */
  yaml11Of(docIndex: number, prefix: string): readonly Yaml11Scalar[] {
    if (this.yaml11.length === 0) return [];
    if (!this.yaml11Groups) {
      const groups = new Map<string, Yaml11Scalar[]>();
      const add = (key: string, s: Yaml11Scalar) => (groups.get(key) ?? groups.set(key, []).get(key)!).push(s);
      for (const s of this.yaml11) {
        add(String(s.docIndex), s);
        const item = /^\/items\/\d+(?=\/)/.exec(s.pointer);
        if (item) add(`${s.docIndex}${item[0]}`, { ...s, pointer: s.pointer.slice(item[0].length) });
      }
      this.yaml11Groups = groups;
    }
    return this.yaml11Groups.get(`${docIndex}${prefix}`) ?? [];
  }

  constructor(
    /** Repository-relative path with forward slashes, as findings print it. */
    readonly file: string,
    readonly text: string,
  ) {}

  /**
   * The parser events of a plain file, packed; undefined for the others (positions then come
   * from the `yaml` tree). They are parsed again from the text on first use rather than kept
   * from the load: most files never need a position, and keeping every file's events cost more
   * memory than parsing again the few files with findings costs time.
   */
  get events(): PackedEvents | undefined {
    if (!this.plain) return undefined;
    return (this.packed ??= packEvents(jsyaml.parseEvents(this.text, {})));
  }

  /** The packed events if a position was asked for (the work store keeps them then), or as kept. */
  get eventsIfParsed(): PackedEvents | undefined {
    return this.packed;
  }

  set eventsIfParsed(events: PackedEvents | undefined) {
    this.packed = events;
  }

  locate(docIndex: number, pointer: string): Position {
    this.index ??= positionLocator(this.text, this.events);
    return this.index.locate(docIndex, pointer);
  }
}

/** One Kubernetes object read from a file (a document, or an item of a `kind: List`). */
export class Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name?: string;
  readonly namespace?: string;

  constructor(
    readonly object: KubeObject,
    readonly source: SourceFile,
    readonly docIndex: number,
    /** Where the object sits inside its document: "" for a document, `/items/3` for a List item. */
    readonly pointerPrefix = "",
  ) {
    this.apiVersion = object.apiVersion;
    this.kind = object.kind;
    const meta = object.metadata;
    if (meta && typeof meta === "object") {
      if (typeof meta.name === "string") this.name = meta.name;
      else if (typeof meta.generateName === "string") this.name = meta.generateName;
      if (typeof meta.namespace === "string") this.namespace = meta.namespace;
    }
  }

  get file(): string {
    return this.source.file;
  }

  get group(): string {
    return groupOf(this.apiVersion);
  }

  get version(): string {
    return versionOf(this.apiVersion);
  }

  /** The object's plain scalars that YAML 1.1 reads as booleans, with pointers inside the object. */
  yaml11Scalars(): readonly Yaml11Scalar[] {
    return this.source.yaml11Of(this.docIndex, this.pointerPrefix);
  }

  /** Line and column (1-based) of the field at `pointer` (JSON pointer inside the object). */
  locate(pointer: string): Position {
    return this.source.locate(this.docIndex, this.pointerPrefix + pointer);
  }
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function isKubeObject(value: unknown): value is KubeObject {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.apiVersion === "string" && v.apiVersion !== "" && typeof v.kind === "string" && v.kind !== "";
}

/** An object's identity across trees and renders: apiVersion, kind, namespace and name. */
export function objectIdentity(o: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string {
  const meta = (o.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return `${String(o.apiVersion)}|${String(o.kind)}|${String(meta.namespace ?? "")}|${String(meta.name ?? "")}`;
}
