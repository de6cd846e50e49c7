import * as jsyaml from "js-yaml";
import type * as YAML from "yaml";
import { goNumber } from "../goyaml/index.js";

/**
 * Plain numbers as go-yaml reads them, for reading manifests: kubectl, Helm, Argo CD, kustomize,
 * Flux and `crossplane render` all read `defaultMode: 0644` as 420 (octal, YAML 1.1) and `1_000`
 * as 1000, where YAML 1.2's core schema reads 644 and a string. Only the numbers change; every
 * other plain scalar reads as the core schema reads it (yes/no/on/off: yaml11.ts).
 */
const goNumbers = jsyaml.defineScalarTag("tag:yaml.org,2002:int", {
  implicit: true,
  implicitFirstChars: ["+", "-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
  // Floats that start with a digit or a sign too: go-yaml's and the core schema's agree on them, underscores aside.
  resolve: (source) => goNumber(source) ?? jsyaml.NOT_RESOLVED,
  identify: (data) => typeof data === "number" && Number.isInteger(data),
});

/** js-yaml's core schema with go-yaml's numbers (`.5`, `.inf` and `.nan` stay the core schema's floats). */
export const MANIFEST_SCHEMA = jsyaml.CORE_SCHEMA.withTags(goNumbers);

/** A plain key as the object built with MANIFEST_SCHEMA names it (`0644` is "420", `~` is "null"). */
export function plainKeyName(raw: string): string {
  return String(MANIFEST_SCHEMA.resolveImplicitScalarTag(raw).value);
}

/** The same for the `yaml` library (files with anchors or errors): a tag tried before the core schema's. */
const goNumberTag: YAML.ScalarTag = {
  tag: "tag:yaml.org,2002:int",
  default: true,
  identify: (value) => typeof value === "number",
  // Starts as go-yaml's number cases do; `.5` and `.inf` are left to the core schema, as in MANIFEST_SCHEMA.
  test: /^[-+]?[0-9_][0-9_a-fA-FxXoObB.eE+-]*$/,
  resolve: (source) => goNumber(source) ?? source,
};

export function withGoNumbers(tags: YAML.Tags): YAML.Tags {
  return [goNumberTag, ...tags];
}
