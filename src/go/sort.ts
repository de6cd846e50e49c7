/** Go's string order (bytes of UTF-8, i.e. code points), which JS's UTF-16 order differs from above U+FFFF. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800 && cb >= 0xd800) {
      ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
      cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
    }
    return ca < cb ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** A map's keys in Go's order (fmt, range and encoders sort string keys). */
export function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  return keys.length > 1 ? keys.sort(compareGoStrings) : keys;
}
