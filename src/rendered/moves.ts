import { groupBy } from "../core/group.js";
import type { Finding } from "../core/finding.js";
import type { Manifest } from "../manifest/manifest.js";

/**
 * Objects a change only moved to another file or renamed in place, so that a finding that moved
 * with its object is unchanged, not new and fixed (a renamed Composition keeps its old error, and
 * `--fail-on-new` does not count it). Only what is certain counts as a move: an object alone under
 * its identity in both trees, found in another file; or, in one file, the only object of its kind
 * that left the file and the only one that came into it; or a file gone at head whose objects a
 * new file holds, when no other file gone or new holds the same.
 */
export class ObjectMoves {
  private readonly objects = new Map<string, { file: string; name: string } | null>();
  private readonly files = new Map<string, string>();

  constructor(base: readonly Manifest[], head: readonly Manifest[]) {
    const [inBase, inHead] = [byIdentity(base), byIdentity(head)];
    const moved = new Set<Manifest>();
    for (const [identity, [from, ...others]] of inBase) {
      const to = inHead.get(identity);
      if (!from || others.length > 0 || to?.length !== 1 || to[0]!.file === from.file) continue;
      this.add(from, to[0]!);
      moved.add(from).add(to[0]!);
    }
    // Findings name their file: a rename is looked for file by file, whatever other files hold.
    const [fileBase, fileHead] = [new Set(base.map(fileIdentityOf)), new Set(head.map(fileIdentityOf))];
    const vanished = byPlace(base.filter((m) => !moved.has(m) && !fileHead.has(fileIdentityOf(m))));
    const appeared = byPlace(head.filter((m) => !moved.has(m) && !fileBase.has(fileIdentityOf(m))));
    for (const [place, [from, ...others]] of vanished) {
      const to = appeared.get(place);
      if (from && others.length === 0 && to?.length === 1) this.add(from, to[0]!);
    }
    this.addFiles(base, head);
    // A finding names no namespace: where two objects of a tree share a place, whose finding it is is not known.
    const crowded = sharedPlaces(head);
    for (const place of sharedPlaces(base)) this.objects.set(place, null);
    for (const [from, to] of [...this.objects]) {
      const [, apiVersion, kind] = from.split("\u0000");
      if (to && crowded.has(placeOf(to.file, apiVersion, kind, to.name))) this.objects.set(from, null);
    }
  }

  /** The base finding as it reads at head, where its object (or file) moved; else the finding itself. */
  atHead(f: Finding): Finding {
    const object = f.name !== undefined ? this.objects.get(placeOf(f.file, f.apiVersion, f.kind, f.name)) : undefined;
    if (object) return { ...f, ...object };
    const file = f.file !== undefined ? this.files.get(f.file) : undefined;
    return file !== undefined ? { ...f, file } : f;
  }

  /** Where a base object is at head when the change moved or renamed it. */
  objectAtHead(m: Manifest): { file: string; name: string } | undefined {
    const moved = m.name !== undefined ? this.objects.get(placeOf(m.file, m.apiVersion, m.kind, m.name)) : undefined;
    if (moved) return moved;
    const file = this.files.get(m.file);
    return file !== undefined && m.name !== undefined ? { file, name: m.name } : undefined;
  }

  private add(from: Manifest, to: Manifest): void {
    const place = placeOf(from.file, from.apiVersion, from.kind, from.name);
    // Two objects at one place (namespaces are not in a finding): neither is certain.
    this.objects.set(place, this.objects.has(place) ? null : { file: to.file, name: to.name! });
  }

  /** A file gone at head and one new at head holding the same objects: the file moved (git mv, edited or not). */
  private addFiles(base: readonly Manifest[], head: readonly Manifest[]): void {
    const [baseFiles, headFiles] = [groupBy(base, (m) => m.file), groupBy(head, (m) => m.file)];
    const gone = bySignature([...baseFiles].filter(([file]) => !headFiles.has(file)));
    const added = bySignature([...headFiles].filter(([file]) => !baseFiles.has(file)));
    for (const [signature, [from, ...others]] of gone) {
      const to = added.get(signature);
      if (from !== undefined && others.length === 0 && to?.length === 1) this.files.set(from, to[0]!);
    }
  }
}

function identityOf(m: Manifest): string {
  return [m.apiVersion, m.kind, m.namespace ?? "", m.name].join("\u0000");
}

function fileIdentityOf(m: Manifest): string {
  return `${m.file}\u0000${identityOf(m)}`;
}

function placeOf(file: string | undefined, apiVersion: string | undefined, kind: string | undefined, name: string | undefined): string {
  return [file, apiVersion, kind, name].join("\u0000");
}

function byIdentity(manifests: readonly Manifest[]): Map<string, Manifest[]> {
  return groupNamed(manifests, identityOf);
}

/** Objects by file, kind and namespace: where a rename in place is looked for. */
function byPlace(manifests: readonly Manifest[]): Map<string, Manifest[]> {
  return groupNamed(manifests, (m) => [m.file, m.apiVersion, m.kind, m.namespace ?? ""].join("\u0000"));
}

function groupNamed(manifests: readonly Manifest[], key: (m: Manifest) => string): Map<string, Manifest[]> {
  return groupBy(
    manifests.filter((m) => m.name !== undefined),
    key,
  );
}

/** Files by the objects they hold (their identities, sorted). */
function bySignature(files: [string, Manifest[]][]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [file, objects] of files) {
    const signature = objects.map(identityOf).sort().join("\u0001");
    const group = groups.get(signature);
    if (group) group.push(file);
    else groups.set(signature, [file]);
  }
  return groups;
}

/** Places (file, apiVersion, kind, name) that more than one object of the tree holds. */
function sharedPlaces(manifests: readonly Manifest[]): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const m of manifests) {
    const place = placeOf(m.file, m.apiVersion, m.kind, m.name);
    if (seen.has(place)) shared.add(place);
    seen.add(place);
  }
  return shared;
}
