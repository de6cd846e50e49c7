import type { Manifest } from "../manifest/manifest.js";
import type { RenderedSource } from "./source.js";
import { SecretMasker } from "../secrets/mask.js";

/** The secret values a run found in the repository's objects (validateRepo), under the secret fields it looked for. */
export interface KnownSecrets {
  fields: readonly string[];
  values: WeakMap<object, readonly string[]>;
}

/** Where an object's secret values are kept across runs (the work store's KnownClean), by the object's place and content. */
export interface SecretValuesMemo {
  secretValues(m: Manifest, fields: readonly string[]): readonly string[] | undefined;
  keepSecretValues(m: Manifest, fields: readonly string[], values: readonly string[]): void;
}

/** The secret values of each object, found once (or taken from `memo`) for every masker of the run. */
export function knownSecrets(manifests: Manifest[], fields: readonly string[], memo?: SecretValuesMemo): KnownSecrets {
  const finder = new SecretMasker(fields);
  const values = new WeakMap<object, readonly string[]>();
  for (const m of manifests) {
    let found = memo?.secretValues(m, fields);
    if (!found) {
      found = finder.valuesIn(m.object);
      memo?.keepSecretValues(m, fields, found);
    }
    values.set(m.object, found);
  }
  return { fields, values };
}

/**
 * The masker of a run: it knows the secret values of the repository's manifests (at every tree a
 * run reads; what `known` found in them where it looked for the same fields), of what they
 * rendered, and the connection details the functions produced.
 */
export function maskerFor(
  manifests: { object: unknown }[],
  sources: RenderedSource[] = [],
  secretFields: readonly string[] = [],
  known: KnownSecrets[] = [],
): SecretMasker {
  const masker = new SecretMasker(secretFields);
  const usable = known.filter((k) => sameFields(k.fields, secretFields));
  for (const m of manifests) {
    const values = typeof m.object === "object" && m.object !== null ? usable.map((k) => k.values.get(m.object as object)).find(Boolean) : undefined;
    if (values) masker.learnValues(values);
    else masker.learn(m.object);
  }
  for (const s of sources) {
    for (const o of s.objects) masker.learn(o);
    for (const details of s.connectionDetails ?? []) masker.learnConnectionDetails(details);
  }
  return masker;
}

function sameFields(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((f) => set.has(f));
}
