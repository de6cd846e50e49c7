import { groupBy } from "../core/group.js";
import { objectIdentity, type Manifest } from "./manifest.js";

/**
 * Each head object's version at base, as an update would meet it: the object of the same identity
 * (apiVersion, kind, namespace, name), when each tree holds one; else the one in the same file.
 * Where copies of one object sit in several files (examples, test fixtures holding versions of
 * one object), which copy the cluster holds is not known: a copy is paired only with the copy in
 * its own file, never with another file's.
 */
export function previousVersions(base: readonly Manifest[], head: readonly Manifest[]): Map<Manifest, Manifest> {
  const byIdentity = (manifests: readonly Manifest[]) => groupBy(manifests, (m) => objectIdentity(m.object));
  const [before, after] = [byIdentity(base), byIdentity(head)];
  const pairs = new Map<Manifest, Manifest>();
  for (const [identity, heads] of after) {
    const bases = before.get(identity);
    if (!bases) continue;
    if (bases.length === 1 && heads.length === 1) {
      pairs.set(heads[0]!, bases[0]!);
      continue;
    }
    const [basesIn, headsIn] = [groupBy(bases, (m) => m.file), groupBy(heads, (m) => m.file)];
    for (const m of heads) {
      const sameFile = basesIn.get(m.file);
      if (sameFile?.length === 1 && headsIn.get(m.file)?.length === 1) pairs.set(m, sameFile[0]!);
    }
  }
  return pairs;
}
