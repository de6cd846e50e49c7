import type { RenderedSource } from "./source.js";
import { SecretMasker } from "../secrets/mask.js";

/**
 * The masker of a run: it knows the secret values of the repository's manifests (at every tree a
 * run reads), of what they rendered, and the connection details the functions produced.
 */
export function maskerFor(manifests: { object: unknown }[], sources: RenderedSource[] = [], secretFields: readonly string[] = []): SecretMasker {
  const masker = new SecretMasker(secretFields);
  for (const m of manifests) masker.learn(m.object);
  for (const s of sources) {
    for (const o of s.objects) masker.learn(o);
    for (const details of s.connectionDetails ?? []) masker.learnConnectionDetails(details);
  }
  return masker;
}
