import { createHash } from "node:crypto";
import { quoteGo } from "../../go/quote.js";
import { compareGoStrings } from "../../go/sort.js";
import {
  byteLen,
  bytesOf,
  isGoSpace,
  isLower,
  isNumber,
  isPunct,
  isTitle,
  isUpper,
  isLetter,
  repeat,
  replaceAll,
  runeLower,
  runeUpper,
  sliceBytes,
  split,
  splitN,
  title,
  toLower,
  toUpper,
  trimCutset,
  trimSpace,
} from "../strings.js";
import { formatValue } from "../../go/fmt.js";
import { GoNum, MAP_STRING, SLICE_STRING, T, typed, type Value } from "../../go/values.js";
import { fn, strval } from "./cast.js";

/** sprig's string functions (strings.go, with goutils and xstrings behaviour). */

const S = T.string;
const I = T.int;
const A = T.any;
const n = (v: Value) => (v instanceof GoNum ? v.value : (v as number));

/** goutils.AbbreviateFull */
function abbreviateFull(str: string, offset: number, maxWidth: number): string {
  if (str === "") return "";
  const len = byteLen(str);
  if (len <= maxWidth) return str;
  if (offset > len) offset = len;
  if (len - offset < maxWidth - 3) offset = len - (maxWidth - 3);
  if (offset <= 4) return sliceBytes(str, 0, maxWidth - 3) + "...";
  if (maxWidth < 7) return "";
  if (offset + maxWidth - 3 < len) return "..." + abbreviateFull(sliceBytes(str, offset), 0, maxWidth - 3);
  return "..." + sliceBytes(str, len - (maxWidth - 3));
}

/** goutils.WrapCustom (on bytes, as goutils does). */
function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLongWords: boolean): string {
  if (str === "") return "";
  if (newLine === "") newLine = "\n";
  if (wrapLength < 1) wrapLength = 1;
  const s = str;
  const len = byteLen(s);
  let offset = 0;
  let out = "";
  while (len - offset > wrapLength) {
    if (sliceBytes(s, offset, offset + 1) === " ") {
      offset++;
      continue;
    }
    const end = Math.min(wrapLength + offset + 1, len);
    const window = sliceBytes(s, offset, end);
    const lastSpace = window.lastIndexOf(" ");
    const spaceToWrapAt = lastSpace < 0 ? offset - 1 : byteLen(window.slice(0, lastSpace)) + offset;
    if (spaceToWrapAt >= offset) {
      out += sliceBytes(s, offset, spaceToWrapAt) + newLine;
      offset = spaceToWrapAt + 1;
    } else if (wrapLongWords) {
      out += sliceBytes(s, offset, wrapLength + offset) + newLine;
      offset += wrapLength;
    } else {
      const e = wrapLength + offset;
      const rest = sliceBytes(s, e);
      const idx = rest.indexOf(" ");
      if (idx === -1) {
        out += sliceBytes(s, offset);
        offset = len;
      } else {
        const at = byteLen(rest.slice(0, idx)) + e;
        out += sliceBytes(s, offset, at) + newLine;
        offset = at + 1;
      }
    }
  }
  return out + sliceBytes(s, offset);
}

/** goutils.DeleteWhiteSpace: byte by byte, each byte taken as a rune (as goutils does). */
function deleteWhiteSpace(str: string): string {
  const bytes = bytesOf(str);
  let out = "";
  let count = 0;
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    if (!isGoSpace(ch)) {
      out += ch;
      count++;
    }
  }
  return count === bytes.length ? str : out;
}

/** goutils.Initials: byte by byte, as goutils does. */
function initials(str: string): string {
  let out = "";
  let lastWasGap = true;
  for (const b of bytesOf(str)) {
    const ch = String.fromCharCode(b);
    if (isGoSpace(ch)) lastWasGap = true;
    else if (lastWasGap) {
      out += ch;
      lastWasGap = false;
    }
  }
  return out;
}

/** goutils.Uncapitalize */
function uncapitalize(str: string): string {
  let out = "";
  let next = true;
  for (const ch of str) {
    if (isGoSpace(ch)) {
      next = true;
      out += ch;
    } else if (next) {
      out += runeLower(ch);
      next = false;
    } else out += ch;
  }
  return out;
}

/** goutils.SwapCase (title case after a space and upper case elsewhere are one mapping here). */
function swapCase(str: string): string {
  let out = "";
  for (const ch of str) {
    if (isUpper(ch) || isTitle(ch)) out += runeLower(ch);
    else if (isLower(ch)) out += runeUpper(ch);
    else out += ch;
  }
  return out;
}

const isConnector = (r: string) => r === "-" || r === "_" || isGoSpace(r);

function isAlphabet(r: string): boolean {
  if (!isLetter(r)) return false;
  const c = r.codePointAt(0)!;
  if (c < 0x3400) return true;
  if (c >= 0x4e00 && c <= 0x9fcc) return false;
  if (c >= 0x3400 && c <= 0x4d85) return false;
  if (c >= 0x20000 && c <= 0x2b81d) return false;
  return true;
}

/** xstrings.ToCamelCase (v1.4; sprig's camelcase is upper camel case). */
function toPascalCase(str: string): string {
  const runes = [...str];
  if (runes.length === 0) return "";
  let out = "";
  let i = 0;
  let r0 = "";
  for (; i < runes.length; ) {
    r0 = runes[i++];
    if (!isConnector(r0)) {
      r0 = runeUpper(r0);
      break;
    }
    out += r0;
  }
  if (i >= runes.length) return isConnector(r0) ? out : out + r0;
  while (i < runes.length) {
    const r1 = r0;
    r0 = runes[i++];
    if (isConnector(r0) && isConnector(r1)) {
      out += r1;
      continue;
    }
    if (isConnector(r1)) r0 = runeUpper(r0);
    else out += r1;
  }
  return out + r0;
}

const enum W {
  Invalid,
  Number,
  Upper,
  Alphabet,
  Connector,
  Punct,
  Other,
}

/** xstrings' nextWord over runes. */
function nextWord(runes: string[], start: number): [W, number, number] {
  if (start >= runes.length) return [W.Invalid, start, start];
  let i = start;
  const r = runes[i++];
  let wt: W;
  if (isConnector(r)) {
    wt = W.Connector;
    while (i < runes.length && isConnector(runes[i])) i++;
  } else if (isPunct(r)) {
    wt = W.Punct;
    while (i < runes.length && isPunct(runes[i])) i++;
  } else if (isUpper(r)) {
    wt = W.Upper;
    if (i < runes.length) {
      const r2 = runes[i];
      if (isUpper(r2)) {
        i++;
        while (i < runes.length && isUpper(runes[i])) i++;
        if (i < runes.length && isAlphabet(runes[i])) i--;
      } else if (isAlphabet(r2)) {
        i++;
        while (i < runes.length && isAlphabet(runes[i]) && !isUpper(runes[i])) i++;
      }
    }
  } else if (isAlphabet(r)) {
    wt = W.Alphabet;
    while (i < runes.length && isAlphabet(runes[i]) && !isUpper(runes[i])) i++;
  } else if (isNumber(r)) {
    wt = W.Number;
    while (i < runes.length && isNumber(runes[i])) i++;
  } else {
    wt = W.Other;
    while (i < runes.length) {
      const c = runes[i];
      if (isConnector(c) || isAlphabet(c) || isNumber(c) || isPunct(c)) break;
      i++;
    }
  }
  return [wt, start, i];
}

/** xstrings' camelCaseToLowerCase (ToSnakeCase, ToKebabCase). */
function camelCaseToLowerCase(str: string, connector: string): string {
  const runes = [...str];
  if (runes.length === 0) return "";
  let out = "";
  const lower = (wt: W, a: number, b: number) => {
    const word = runes.slice(a, b);
    if (wt !== W.Upper && wt !== W.Connector) {
      out += word.join("");
      return;
    }
    for (const c of word) out += isConnector(c) ? connector : isUpper(c) ? runeLower(c) : c;
  };
  let [wt, a, b] = nextWord(runes, 0);
  while (b < runes.length) {
    if (wt !== W.Connector) lower(wt, a, b);
    const prev = wt;
    const [la, lb] = [a, b];
    [wt, a, b] = nextWord(runes, b);
    switch (prev) {
      case W.Number:
        while (wt === W.Alphabet || wt === W.Number) {
          lower(wt, a, b);
          [wt, a, b] = nextWord(runes, b);
        }
        if (wt !== W.Invalid && wt !== W.Punct && wt !== W.Connector) out += connector;
        break;
      case W.Connector:
        lower(prev, la, lb);
        break;
      case W.Punct:
        break;
      default: {
        if (wt !== W.Number) {
          if (wt !== W.Connector && wt !== W.Punct) out += connector;
          break;
        }
        if (b >= runes.length) break;
        const [lastA, lastB] = [a, b];
        [wt, a, b] = nextWord(runes, b);
        if (wt !== W.Alphabet) {
          lower(W.Number, lastA, lastB);
          if (wt !== W.Connector && wt !== W.Punct) out += connector;
          break;
        }
        out += connector;
        lower(W.Number, lastA, lastB);
        while (wt === W.Alphabet || wt === W.Number) {
          lower(wt, a, b);
          [wt, a, b] = nextWord(runes, b);
        }
        if (wt !== W.Invalid && wt !== W.Connector && wt !== W.Punct) out += connector;
      }
    }
  }
  lower(wt, a, b);
  return out;
}

/** sprig's strslice (toStrings, join): nils dropped, elements through strval. */
export function strslice(v: Value): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(strval);
  if (v instanceof Uint8Array) return [...v].map((b) => String(b));
  return [strval(v)];
}

function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const byte of bytesOf(s)) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const hash = (alg: string) => (s: string) => createHash(alg).update(s, "utf8").digest("hex");

function shuffle(s: string, random: () => number): string {
  const runes = [...s];
  for (let i = runes.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [runes[i], runes[j]] = [runes[j], runes[i]];
  }
  return runes.join("");
}

function splitMap(parts: string[]): Value {
  const out: Record<string, Value> = {};
  parts.forEach((p, i) => (out[`_${i}`] = p));
  return typed(out, MAP_STRING);
}

/** strconv.Atoi: base 10, optional sign; 0 on error (sprig's atoi). */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) return 0;
  const v = Number(s);
  return Math.abs(v) < 9.223372036854776e18 ? v : 0;
}

export const stringFuncs = {
  hello: fn([], S, () => "Hello!"),
  abbrev: fn([I, S], S, ([w, s]) => (n(w) < 4 ? s : abbreviateFull(s as string, 0, n(w)))),
  abbrevboth: fn([I, I, S], S, ([l, r, s]) => {
    const left = n(l);
    const right = n(r);
    if (right < 4 || (left > 0 && right < 7)) return s;
    return abbreviateFull(s as string, left, right);
  }),
  trunc: fn([I, S], S, ([c, s]) => {
    const str = s as string;
    const count = n(c);
    const len = byteLen(str);
    if (count < 0 && len + count > 0) return sliceBytes(str, len + count);
    if (count >= 0 && len > count) return sliceBytes(str, 0, count);
    return str;
  }),
  trim: fn([S], S, ([s]) => trimSpace(s as string)),
  upper: fn([S], S, ([s]) => toUpper(s as string)),
  lower: fn([S], S, ([s]) => toLower(s as string)),
  title: fn([S], S, ([s]) => title(s as string)),
  untitle: fn([S], S, ([s]) => uncapitalize(s as string)),
  substr: fn([I, I, S], S, ([a, b, s]) => {
    const str = s as string;
    const start = n(a);
    const end = n(b);
    if (start < 0) return sliceBytes(str, 0, end);
    if (end < 0 || end > byteLen(str)) return sliceBytes(str, start);
    return sliceBytes(str, start, end);
  }),
  repeat: fn([I, S], S, ([c, s]) => repeat(s as string, n(c))),
  trimall: fn([S, S], S, ([a, b]) => trimCutset(b as string, a as string)),
  trimAll: fn([S, S], S, ([a, b]) => trimCutset(b as string, a as string)),
  trimSuffix: fn([S, S], S, ([a, b]) => ((b as string).endsWith(a as string) && a !== "" ? (b as string).slice(0, -(a as string).length) : b)),
  trimPrefix: fn([S, S], S, ([a, b]) => ((b as string).startsWith(a as string) ? (b as string).slice((a as string).length) : b)),
  nospace: fn([S], S, ([s]) => deleteWhiteSpace(s as string)),
  initials: fn([S], S, ([s]) => initials(s as string)),
  swapcase: fn([S], S, ([s]) => swapCase(s as string)),
  shuffle: fn([S], S, ([s], ctx) => shuffle(s as string, ctx.random)),
  snakecase: fn([S], S, ([s]) => camelCaseToLowerCase(s as string, "_")),
  camelcase: fn([S], S, ([s]) => toPascalCase(s as string)),
  kebabcase: fn([S], S, ([s]) => camelCaseToLowerCase(s as string, "-")),
  wrap: fn([I, S], S, ([l, s]) => wrapCustom(s as string, n(l), "", false)),
  wrapWith: fn([I, S, S], S, ([l, sep, s]) => wrapCustom(s as string, n(l), sep as string, true)),
  contains: fn([S, S], T.bool, ([sub, s]) => (s as string).includes(sub as string)),
  hasPrefix: fn([S, S], T.bool, ([p, s]) => (s as string).startsWith(p as string)),
  hasSuffix: fn([S, S], T.bool, ([p, s]) => (s as string).endsWith(p as string)),
  quote: fn(
    [],
    S,
    (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => quoteGo(strval(a)))
        .join(" "),
    { variadic: A },
  ),
  squote: fn(
    [],
    S,
    (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => `'${formatValue(a)}'`)
        .join(" "),
    { variadic: A },
  ),
  cat: fn(
    [],
    S,
    (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => formatValue(a))
        .join(" "),
    { variadic: A },
  ),
  indent: fn([I, S], S, ([c, v]) => {
    const pad = repeat(" ", n(c));
    return pad + replaceAll(v as string, "\n", "\n" + pad);
  }),
  nindent: fn([I, S], S, ([c, v]) => {
    const pad = repeat(" ", n(c));
    return "\n" + pad + replaceAll(v as string, "\n", "\n" + pad);
  }),
  replace: fn([S, S, S], S, ([o, nw, src]) => replaceAll(src as string, o as string, nw as string)),
  plural: fn([S, S, I], S, ([one, many, c]) => (n(c) === 1 ? one : many)),
  sha1sum: fn([S], S, ([s]) => hash("sha1")(s as string)),
  sha256sum: fn([S], S, ([s]) => hash("sha256")(s as string)),
  sha512sum: fn([S], S, ([s]) => hash("sha512")(s as string)),
  adler32sum: fn([S], S, ([s]) => String(adler32(s as string))),
  toString: fn([A], S, ([v]) => strval(v)),
  atoi: fn([S], I, ([s]) => atoi(s as string)),
  split: fn([S, S], MAP_STRING, ([sep, s]) => splitMap(split(s as string, sep as string))),
  splitList: fn([S, S], SLICE_STRING, ([sep, s]) => typed(split(s as string, sep as string), SLICE_STRING)),
  splitn: fn([S, I, S], MAP_STRING, ([sep, c, s]) => splitMap(splitN(s as string, sep as string, n(c)))),
  toStrings: fn([A], SLICE_STRING, ([v]) => typed(strslice(v), SLICE_STRING)),
  join: fn([S, A], S, ([sep, v]) => strslice(v).join(sep as string)),
  sortAlpha: fn([A], SLICE_STRING, ([v]) => {
    if (Array.isArray(v) || v instanceof Uint8Array) return typed(strslice(v).sort(compareGoStrings), SLICE_STRING);
    return typed([strval(v === undefined ? null : v)], SLICE_STRING);
  }),
};
