/** Go's strings package where CEL's string library follows it. */

export class ReplaceTooLarge extends Error {}

/** strings.Replace(s, old, replacement, n): the first n non-overlapping occurrences (all when n < 0); an empty `old` matches before each code point and at the end. */
export function goReplace(s: string, old: string, replacement: string, n: number, maxLength = Infinity): string {
  if (old === replacement || n === 0) return s;
  const starts = occurrences(s, old, n < 0 ? Infinity : n);
  if (starts.length === 0) return s;
  const length = s.length + starts.length * (replacement.length - old.length);
  if (length > maxLength) throw new ReplaceTooLarge(`over the cost budget: replace built a string of ${length} characters`);
  const parts: string[] = [];
  let from = 0;
  for (const at of starts) {
    parts.push(s.slice(from, at), replacement);
    from = at + old.length;
  }
  parts.push(s.slice(from));
  return parts.join("");
}

function occurrences(s: string, old: string, limit: number): number[] {
  const found: number[] = [];
  if (old === "") {
    for (let i = 0; found.length < limit; ) {
      found.push(i);
      if (i >= s.length) break;
      i += (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    }
    return found;
  }
  for (let at = s.indexOf(old); at !== -1 && found.length < limit; at = s.indexOf(old, at + old.length)) found.push(at);
  return found;
}
