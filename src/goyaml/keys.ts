/**
 * go-yaml v2's map key order (sorter.go keyList.Less) for string keys, a "natural" order: at the
 * first differing rune, two letters compare by code point, a non-letter sorts before a letter, and
 * otherwise the digit runs starting there compare as numbers (int64 arithmetic, wrapping), then
 * by run length, then by code point. A string that is a prefix of another sorts first.
 *
 * The relation is not always transitive ("9" < "10" < "1a" < "9"); for such key sets Go's
 * output depends on its random map order, and ours is one of the possible orders.
 */
export function sortKeys<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0));
}

export function keyLess(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && i < b.length) {
    const ra = a.codePointAt(i)!;
    const rb = b.codePointAt(i)!;
    if (ra === rb) {
      i += ra > 0xffff ? 2 : 1;
      continue;
    }
    const al = isLetter(ra);
    const bl = isLetter(rb);
    if (al && bl) return ra < rb;
    if (al || bl) return bl;
    return digitsLess(a, b, i, ra, rb);
  }
  return a.length < b.length;
}

/** The non-letter case of keyList.Less at index i, where the runes ra and rb differ. */
function digitsLess(a: string, b: string, i: number, ra: number, rb: number): boolean {
  // Go starts both numbers at 1 when a '0' follows non-zero digits of the common prefix.
  const start = (ra === 0x30 || rb === 0x30) && nonZeroDigitBefore(a, i) ? 1 : 0;
  const x = digitRun(a, i, start);
  const y = digitRun(b, i, start);
  if (!sameValue(x.value, y.value)) return x.value < y.value;
  if (x.runes !== y.runes) return x.runes < y.runes;
  return ra < rb;
}

function nonZeroDigitBefore(s: string, i: number): boolean {
  for (let j = i; j > 0; ) {
    const r = runeBefore(s, j);
    if (!isDigit(r)) return false;
    if (r !== 0x30) return true;
    j -= r > 0xffff ? 2 : 1;
  }
  return false;
}

function runeBefore(s: string, j: number): number {
  const low = s.charCodeAt(j - 1);
  return j >= 2 && low >= 0xdc00 && low <= 0xdfff ? s.codePointAt(j - 2)! : low;
}

/** Below this, value * 10 + digit (a digit's code point - '0' is under 2^17) stays exact as a double. */
const INT64_SAFE = 2 ** 46;

/** The value of the digit run at i (Go: n = n*10 + int64(r-'0'), wrapping) and its length in runes. */
function digitRun(s: string, i: number, start: number): { value: bigint | number; runes: number } {
  let value: bigint | number = start;
  let runes = 0;
  for (let j = i; j < s.length; runes++) {
    const r = s.codePointAt(j)!;
    if (!isDigit(r)) break;
    value = typeof value === "number" && value < INT64_SAFE ? value * 10 + (r - 0x30) : wrapInt64(value, r - 0x30);
    j += r > 0xffff ? 2 : 1;
  }
  return { value, runes };
}

function wrapInt64(value: bigint | number, digit: number): bigint {
  return BigInt.asIntN(64, BigInt(value) * 10n + BigInt(digit));
}

function sameValue(x: bigint | number, y: bigint | number): boolean {
  return typeof x === typeof y ? x === y : BigInt(x) === BigInt(y);
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

function isLetter(r: number): boolean {
  if (r < 0x80) return (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a);
  return LETTER.test(String.fromCodePoint(r));
}

function isDigit(r: number): boolean {
  if (r < 0x80) return r >= 0x30 && r <= 0x39;
  return DIGIT.test(String.fromCodePoint(r));
}
