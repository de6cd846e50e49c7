import type { Finding } from "../core/finding.js";
import type { UnreadObject } from "./glimpse.js";
import type { FileRole, LoadedFile } from "./loaded.js";
import { Manifest, SourceFile, type KubeObject } from "./manifest.js";
import type { Yaml11Scalar } from "./yaml11.js";
import type { PackedEvents } from "./positions.js";

/**
 * A loaded file as plain data for the work store (cache/store.ts), and back: the text and the
 * parsed objects; positions are computed from the text when a finding needs one, as for a file
 * parsed in this run.
 */
export interface StoredLoad {
  /** `text` is absent when it is the file's bytes as UTF-8 (without a byte-order mark): read back from them. */
  source?: { file: string; text?: string; plain: boolean; yaml11: readonly Yaml11Scalar[]; events?: PackedEvents };
  manifests: { object: KubeObject; docIndex: number; pointerPrefix: string }[];
  findings: Finding[];
  documents: number;
  role?: FileRole;
  kustomization?: unknown;
  unread?: UnreadObject[];
}

/** With `asText` (the file's bytes as text), the text is left out when it is that. */
export function toStored(loaded: LoadedFile, asText?: string): StoredLoad {
  const { source, manifests, ...rest } = loaded;
  return {
    ...rest,
    ...(source
      ? {
          source: {
            file: source.file,
            ...(asText === source.text ? {} : { text: source.text }),
            plain: source.plain,
            yaml11: source.yaml11,
            ...(source.eventsIfParsed ? { events: source.eventsIfParsed } : {}),
          },
        }
      : {}),
    manifests: manifests.map((m) => ({ object: m.object, docIndex: m.docIndex, pointerPrefix: m.pointerPrefix })),
  };
}

export function fromStored(stored: StoredLoad, asText: string): LoadedFile {
  const { source: kept, manifests, ...rest } = stored;
  const source = kept ? new SourceFile(kept.file, kept.text ?? asText) : undefined;
  if (source && kept) {
    source.plain = kept.plain;
    source.yaml11 = kept.yaml11;
    source.eventsIfParsed = kept.events;
  }
  return {
    ...rest,
    ...(source ? { source } : {}),
    manifests: manifests.map((m) => new Manifest(m.object, source!, m.docIndex, m.pointerPrefix)),
  };
}
