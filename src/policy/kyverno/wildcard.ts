const SURROGATE = /[\uD800-\uDFFF]/;

/** Kyverno's wildcards (go-wildcard v1): `*` any run of characters, `?` any one character. */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (!pattern.includes("*") && !pattern.includes("?")) return pattern === text;
  // Iterative matching with backtracking to the last star: linear in practice, never exponential.
  const p = SURROGATE.test(pattern) ? [...pattern] : pattern;
  const t = SURROGATE.test(text) ? [...text] : text;
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < t.length) {
    if (i < p.length && (p[i] === "?" || p[i] === t[j])) {
      i++;
      j++;
    } else if (i < p.length && p[i] === "*") {
      star = i++;
      mark = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (i < p.length && p[i] === "*") i++;
  return i === p.length;
}

export function hasWildcard(s: string): boolean {
  return s.includes("*") || s.includes("?");
}
