import { chargeChars } from "./budget.js";
import { GoError } from "../go/values.js";

/** Go's strings and unicode behaviour where it differs from JavaScript's (runes, bytes, simple case mapping). */

export const GO_SPACE = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
const SPACE_SET = new Set(GO_SPACE);

export const isGoSpace = (ch: string) => SPACE_SET.has(ch);

const ASCII = /^[\x00-\x7f]*$/;

export const isAscii = (s: string) => ASCII.test(s);

/** strings.TrimSpace */
export function trimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && SPACE_SET.has(s[a])) a++;
  while (b > a && SPACE_SET.has(s[b - 1])) b--;
  return s.slice(a, b);
}

/** strings.Trim(s, cutset) */
export function trimCutset(s: string, cutset: string): string {
  if (s === "" || cutset === "") return s;
  const set = new Set(cutset);
  const runes = [...s];
  let a = 0;
  let b = runes.length;
  while (a < b && set.has(runes[a])) a++;
  while (b > a && set.has(runes[b - 1])) b--;
  return runes.slice(a, b).join("");
}

function mapRunes(s: string, f: (ch: string) => string): string {
  let out = "";
  for (const ch of s) out += f(ch);
  return out;
}

/** unicode.ToUpper of one rune (simple case mapping: one rune in, one rune out). */
export function runeUpper(ch: string): string {
  const u = ch.toUpperCase();
  return u.length === ch.length || [...u].length === 1 ? u : ch;
}

export function runeLower(ch: string): string {
  if (ch === "\u0130") return "i";
  const l = ch.toLowerCase();
  return l.length === ch.length || [...l].length === 1 ? l : ch;
}

/** strings.ToUpper */
export function toUpper(s: string): string {
  return isAscii(s) ? s.toUpperCase() : mapRunes(s, runeUpper);
}

/** strings.ToLower */
export function toLower(s: string): string {
  return isAscii(s) ? s.toLowerCase() : mapRunes(s, runeLower);
}

export const isUpper = (ch: string) => /^\p{Lu}$/u.test(ch);
export const isLower = (ch: string) => /^\p{Ll}$/u.test(ch);
export const isTitle = (ch: string) => /^\p{Lt}$/u.test(ch);
export const isLetter = (ch: string) => /^\p{L}$/u.test(ch);
export const isDigit = (ch: string) => /^\p{Nd}$/u.test(ch);
export const isNumber = (ch: string) => /^\p{N}$/u.test(ch);
export const isPunct = (ch: string) => /^\p{P}$/u.test(ch);

/** strings.Title */
export function title(s: string): string {
  let prev = " ";
  return mapRunes(s, (r) => {
    const sep = isSeparator(prev);
    prev = r;
    return sep ? runeUpper(r) : r;
  });
}

function isSeparator(r: string): boolean {
  const c = r.codePointAt(0)!;
  if (c <= 0x7f) return !/[0-9a-zA-Z_]/.test(r);
  if (isLetter(r) || isDigit(r)) return false;
  return isGoSpace(r);
}

/** strings.Repeat */
export function repeat(s: string, count: number): string {
  if (count < 0) throw new GoError("strings: negative Repeat count");
  chargeChars(s.length * count, `a string of ${s.length * count} characters`);
  return s.repeat(count);
}

/** strings.Replace(s, old, new, -1) */
export function replaceAll(s: string, old: string, repl: string): string {
  if (old === "") return repl + [...s].join(repl) + (s === "" ? "" : repl);
  return s.split(old).join(repl);
}

/** strings.Split */
export function split(s: string, sep: string): string[] {
  return sep === "" ? [...s] : s.split(sep);
}

/** strings.SplitN */
export function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (n < 0) return split(s, sep);
  if (sep === "") {
    const runes = [...s];
    if (runes.length <= n) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join("")];
  }
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** A Go string's bytes. */
export function bytesOf(s: string): Buffer {
  return Buffer.from(s, "utf8");
}

/** s[a:b] on bytes, as Go slices strings (invalid UTF-8 pieces decode to U+FFFD). */
export function sliceBytes(s: string, a: number, b?: number): string {
  if (isAscii(s)) {
    const end = b ?? s.length;
    if (a < 0 || end > s.length || a > end) throw sliceError(a, end, s.length);
    return s.slice(a, end);
  }
  const bytes = bytesOf(s);
  const end = b ?? bytes.length;
  if (a < 0 || end > bytes.length || a > end) throw sliceError(a, end, bytes.length);
  return bytes.subarray(a, end).toString("utf8");
}

function sliceError(a: number, b: number, len: number): GoError {
  if (b > len) return new GoError(`runtime error: slice bounds out of range [:${b}] with length ${len}`);
  if (a > len) return new GoError(`runtime error: slice bounds out of range [${a}:${len}]`);
  return new GoError(`runtime error: slice bounds out of range [${a}:${b}]`);
}

/** len(s) in bytes */
export function byteLen(s: string): number {
  return isAscii(s) ? s.length : Buffer.byteLength(s, "utf8");
}
