import type { Finding } from "../core/finding.js";
import type { UnreadObject } from "./glimpse.js";
import type { Manifest, SourceFile } from "./manifest.js";

/** One file as the loader leaves it (load.ts), and as the work store keeps it (stored.ts). */

export interface LoadedFile {
  source?: SourceFile;
  manifests: Manifest[];
  findings: Finding[];
  /** YAML documents read, empty ones included. */
  documents: number;
  /** Set when the file's objects are not meant to be applied (see roles.ts): it yields no manifests. */
  role?: FileRole;
  /** A kustomization file's document (it may have no apiVersion and kind, so it is no manifest). */
  kustomization?: unknown;
  /** Objects seen in the file but not read (a template, a document with a YAML error): glimpse.ts. */
  unread?: UnreadObject[];
}

export type FileRole = "test-assertion" | "test-template" | "render-output" | "kustomize-patch" | "addon-template";
