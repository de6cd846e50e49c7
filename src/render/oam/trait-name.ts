/**
 * Generated trait names: `<component>-<type>-<hash>`, where `<type>` is the first dot-segment of the
 * TraitDefinition's name, lowercased (`trait` when the trait has no definition, as the runtime's
 * dummy definition gives), and `<hash>` a stable hash of the ApplicationConfiguration's trait entry.
 *
 * The runtime hashes the Go struct with FNV-32a over a spew dump, which cannot be reproduced outside
 * Go. We hash the canonical JSON of the entry (keys sorted, no spaces) with the same FNV-32a and
 * encode the decimal digits the same way (Kubernetes' `rand.SafeEncodeString`), so names are stable
 * across runs and change exactly when the entry changes, but are not the runtime's names: give
 * traits an explicit `metadata.name` where the name matters.
 */

/** Kubernetes' alphabet without vowels and look-alikes (`k8s.io/apimachinery/pkg/util/rand`). */
const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

export function traitName(componentName: string, definitionName: string | undefined, traitEntry: unknown): string {
  const type = definitionName ? definitionName.split(".")[0]!.toLowerCase() : "trait";
  return `${componentName}-${type}-${traitHash(traitEntry)}`;
}

export function traitHash(traitEntry: unknown): string {
  return safeEncode(String(fnv1a32(canonicalJson(traitEntry))));
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function safeEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) out += SAFE_ALPHABET[byte % SAFE_ALPHABET.length];
  return out;
}
