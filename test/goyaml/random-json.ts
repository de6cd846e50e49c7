/**
 * Seeded random JSON documents for the property test of toGoYaml. Changing anything here changes
 * the documents, so random.json (Go's outputs for them) must then be made again.
 */

/** mulberry32: a small PRNG that gives the same numbers on every platform. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "a",
  "word",
  "lorem",
  "ipsum",
  "bucket-one-long-name",
  "Unready",
  "resources:",
  "crossplane",
  "I'm",
  'say"hi"',
  "a\\b",
  "<html>&",
  "50%",
  "a,b",
  "[x]",
  "{y}",
  "k=v",
  "foo:bar",
  "http://x.io/a?b=c#d",
  "~",
  "!",
  "&",
  "*",
  "|",
  ">",
  "@",
  "`",
  "%",
  "?",
  "-",
  ":",
  "#",
  ",",
  "'",
  '"',
  "---",
  "...",
  "null",
  "true",
  "no",
  "Yes",
  "ON",
  "y",
  "0",
  "1",
  "-1",
  "+1",
  "1.5",
  ".5",
  "1e3",
  "0x1F",
  "0o17",
  "0b101",
  "017",
  "1_000",
  "12:30",
  "2024-01-01",
  "2024-02-30",
  "2024-01-01T10:00:00Z",
  "2024-1-2 3:04:05",
  ".inf",
  "-.Inf",
  ".nan",
  "NaN",
  "1e",
  "1.2.3",
  "0b-101",
  "08",
  "99999999999999999999",
  "1e400",
  "é",
  "naïve",
  "日本語",
  "ß",
  "\u00a0",
  "\t",
  "\r",
  "\u0001",
  "\u001b",
  "\u2028",
  "\u0085",
  "😀",
  "\ufeff",
  "\ud7ff",
  "\ufffd",
  "\\",
  "\ud800",
];
const SEPARATORS = [" ", " ", " ", " ", "  ", "   ", "\n", "\n\n", " \n", "\n ", ": ", " #", ", ", "-", "", "\t"];
const KEY_PARTS = [
  "a",
  "b",
  "A",
  "Z",
  "z",
  "_",
  "-",
  ".",
  "/",
  "~",
  "1",
  "01",
  "2",
  "9",
  "10",
  "100",
  "0",
  "x1",
  "x01",
  "x10",
  "x2",
  "item",
  "name",
  "spec",
  "é",
  "Ä",
  "日",
  "٣",
  "α",
  "a b",
  "a: b",
  "#",
  "-x",
  "?",
  "'",
  "y",
  "no",
  "true",
  "null",
  "😀",
  "12345678901234567890",
];

/**
 * 10^k for k in -25..24 as the documents in random.json were made with it (Node 24's Math.pow): the double
 * nearest 10^k, which is what the decimal text reads as in every engine, except 10^23, halfway between two
 * doubles: Math.pow gave the upper one, the text "1e23" reads as the lower (even) one. Math.pow's last bit
 * differs from one V8 version to another (Node 20's 10 ** -5 is 0.000009999999999999999), so it is not used.
 */
const pow10 = (k: number): number => (k === 23 ? 1.0000000000000001e23 : Number(`1e${k}`));

/** 2^n, exactly: the bits of a double whose exponent field is 1023 + n and whose fraction is 0. */
const pow2 = (n: number): number => new Float64Array(BigUint64Array.of(BigInt(1023 + n) << 52n).buffer)[0];

export function randomDocuments(seed: number, count: number): unknown[] {
  const random = prng(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: T[]): T => list[int(list.length)];
  const chance = (p: number) => random() < p;

  function text(maxWords: number): string {
    const n = int(maxWords) + 1;
    let s = chance(0.1) ? pick(SEPARATORS) : "";
    for (let i = 0; i < n; i++) {
      s += chance(0.3) ? "x".repeat(int(25)) : pick(WORDS);
      if (i < n - 1) s += chance(0.8) ? " " : pick(SEPARATORS);
    }
    if (chance(0.1)) s += pick(SEPARATORS);
    if (chance(0.04)) s += "\n".repeat(int(3) + 1);
    if (chance(0.01)) s += pick(["\u007f", "\u0090", "\uffff", "\u0085--- "]);
    return s;
  }

  /** Text around the 80-column folding width. */
  function longText(): string {
    let s = "";
    const target = 50 + int(120);
    while (s.length < target) {
      const sep = s === "" ? "" : chance(0.9) ? " " : pick(["  ", "   ", " ' ", ": ", " #", "\n", "\t"]);
      s += sep + (chance(0.1) ? pick(WORDS) : "w".repeat(int(12) + 1));
    }
    if (chance(0.15)) s = pick(["'", '"', " ", "#", "- ", "@", "é", "\ufeff"]) + s;
    if (chance(0.1)) s += pick([" ", ":", "\n"]);
    return s;
  }

  function key(): string {
    if (chance(0.04)) return text(3);
    if (chance(0.02)) return "k".repeat(100 + int(60)) + pick(["", "é".repeat(20), " x y"]);
    if (chance(0.01)) return "line1\nline2";
    let k = "";
    for (let i = int(3); i >= 0; i--) k += pick(KEY_PARTS);
    return k;
  }

  function number(): number {
    switch (int(7)) {
      case 0:
        return int(100) - 50;
      case 1:
        return Math.floor((random() - 0.5) * pow2(int(70) + 1));
      case 2:
        return (random() - 0.5) * pow10(int(50) - 25);
      case 3:
        return Number((random() * 1000).toFixed(int(6)));
      case 4:
        return pick([0, -0, 0.1, 1e21, 1e20, 1e-6, 1e-7, 123456789.125, 9007199254740992, 9223372036854775808, 18446744073709551616, 1e6, 999999.5, 5e-324]);
      case 5:
        return Number((random() * pow10(int(25))).toPrecision(int(17) + 1));
      default:
        return random() * 100;
    }
  }

  function value(depth: number): unknown {
    const r = random();
    if (depth > 0 && r < 0.25) return map(depth - 1);
    if (depth > 0 && r < 0.4) return list(depth - 1);
    if (r < 0.52) return number();
    if (r < 0.57) return pick([true, false, null]);
    if (r < 0.7) return longText();
    return text(5);
  }

  function map(depth: number): Record<string, unknown> {
    const m: Record<string, unknown> = {};
    const n = chance(0.08) ? 0 : int(5) + 1;
    for (let i = 0; i < n; i++) m[key()] = value(depth);
    return m;
  }

  function list(depth: number): unknown[] {
    const n = chance(0.08) ? 0 : int(4) + 1;
    return Array.from({ length: n }, () => value(depth));
  }

  return Array.from({ length: count }, () => (chance(0.1) ? list(2) : map(2)));
}
