/** Go's strconv quoting: Quote, QuoteToASCII, CanBackquote, QuoteRune, Unquote, UnquoteChar. */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function isPrint(ch: string): boolean {
  return PRINTABLE.test(ch);
}

const SHORT_ESCAPES: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
};

function escapeRune(ch: string, quote: string, asciiOnly: boolean): string {
  if (ch === quote || ch === "\\") return "\\" + ch;
  const cp = ch.codePointAt(0)!;
  if (asciiOnly ? cp < 0x80 && isPrint(ch) : isPrint(ch)) return ch;
  const short = SHORT_ESCAPES[ch];
  if (short) return short;
  if (cp < 0x20 || cp === 0x7f) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp === 0xfffd && ch.length === 1) return asciiOnly ? "\\ufffd" : ch;
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** strconv.Quote */
export function quoteGo(s: string, asciiOnly = false): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch, '"', asciiOnly);
  return out + '"';
}

/** strconv.QuoteRune */
export function quoteRune(cp: number, asciiOnly = false): string {
  const ch = cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ? "\ufffd" : String.fromCodePoint(cp);
  return "'" + escapeRune(ch, "'", asciiOnly) + "'";
}

/** strconv.CanBackquote */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    if (ch === "\ufeff") return false;
    const cp = ch.codePointAt(0)!;
    if ((cp < 0x20 && ch !== "\t") || ch === "`" || cp === 0x7f) return false;
  }
  return true;
}

export class SyntaxError_ extends Error {
  constructor() {
    super("invalid syntax");
  }
}

const HEX = /^[0-9a-fA-F]+$/;

/**
 * strconv.Unquote of a Go string literal ("...", `...` or '...'). Bytes written with \x or octal
 * escapes are collected and decoded as UTF-8 (JS strings cannot hold invalid UTF-8).
 */
export function unquoteGo(lit: string): string {
  if (lit.length < 2) throw new SyntaxError_();
  const q = lit[0];
  if (q !== lit[lit.length - 1]) throw new SyntaxError_();
  const body = lit.slice(1, -1);
  if (q === "`") {
    if (body.includes("`")) throw new SyntaxError_();
    return body.replace(/\r/g, "");
  }
  if (q !== '"' && q !== "'") throw new SyntaxError_();
  if (body.includes("\n")) throw new SyntaxError_();
  if (!body.includes("\\") && !body.includes(q)) {
    if (q === '"') return body;
    if ([...body].length === 1) return body;
  }
  const bytes: number[] = [];
  let out = "";
  const flush = () => {
    if (bytes.length) {
      out += Buffer.from(bytes).toString("utf8");
      bytes.length = 0;
    }
  };
  let i = 0;
  let runes = 0;
  while (i < body.length) {
    const [piece, isByte, next] = unquoteChar(body, i, q);
    if (isByte) bytes.push(piece as number);
    else {
      flush();
      out += piece as string;
    }
    i = next;
    runes++;
    if (q === "'" && runes > 1) throw new SyntaxError_();
  }
  flush();
  if (q === "'" && runes !== 1) throw new SyntaxError_();
  return out;
}

/** One character of a quoted literal at `i`: [rune string | byte, isByte, next index]. */
export function unquoteChar(s: string, i: number, quote: string): [string | number, boolean, number] {
  const c = s[i];
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError_();
  if (c !== "\\") {
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    return [ch, false, i + ch.length];
  }
  const e = s[i + 1];
  if (e === undefined) throw new SyntaxError_();
  const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };
  if (simple[e] !== undefined) return [simple[e], false, i + 2];
  if (e === "'" || e === '"') {
    if (e !== quote) throw new SyntaxError_();
    return [e, false, i + 2];
  }
  if (e === "x" || e === "u" || e === "U") {
    const n = e === "x" ? 2 : e === "u" ? 4 : 8;
    const hex = s.slice(i + 2, i + 2 + n);
    if (hex.length !== n || !HEX.test(hex)) throw new SyntaxError_();
    const v = parseInt(hex, 16);
    if (e === "x") return [v, true, i + 2 + n];
    if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) throw new SyntaxError_();
    return [String.fromCodePoint(v), false, i + 2 + n];
  }
  if (e >= "0" && e <= "7") {
    const oct = s.slice(i + 1, i + 4);
    if (!/^[0-7]{3}$/.test(oct)) throw new SyntaxError_();
    const v = parseInt(oct, 8);
    if (v > 255) throw new SyntaxError_();
    return [v, true, i + 4];
  }
  throw new SyntaxError_();
}
