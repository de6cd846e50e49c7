import { applyReplacements } from "./apply-replacements.js";
import { setAnnotations } from "./set-annotations.js";
import { setLabels } from "./set-labels.js";
import { setNamespace } from "./set-namespace.js";
import type { BuiltinFunction } from "./types.js";

/** The catalog functions composition-ci runs in-process, by the image's last path segment. */
export const KPT_BUILTINS: Record<string, BuiltinFunction> = {
  "set-labels": setLabels,
  "set-annotations": setAnnotations,
  "set-namespace": setNamespace,
  "apply-replacements": applyReplacements,
};

/** Registries and paths the catalog's images are published under (built-ins answer for them). */
export const CATALOG_PREFIXES = ["ghcr.io/kptdev/krm-functions-catalog/", "gcr.io/kpt-fn/", "ghcr.io/googlecontainertools/kpt-functions-catalog/"];

export type { BuiltinFunction, ResourceList, KrmResult } from "./types.js";
