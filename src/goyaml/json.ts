/**
 * What a JS string becomes on its way through encoding/json and yaml.v2's parser (JSONToYAML reads
 * the JSON text as YAML), and the strings that make that parser fail:
 *
 * - a lone surrogate: JSON.stringify writes \udXXX and Go reads U+FFFD;
 * - U+007F, U+0080..U+009F except U+0085, U+FFFE and U+FFFF: encoding/json writes them raw and
 *   the YAML reader rejects them ("control characters are not allowed");
 * - U+0085 (NEL), also written raw, is a line break to YAML, so the double-quoted scalar folds it:
 *   one NEL with the spaces around it becomes a space, n NELs become n-1 newlines. A NEL at the
 *   start of "--- " or "... " is a document marker (an error), and a key with a NEL spans two
 *   lines, which a flow mapping key may not;
 * - a key whose quoted JSON text is longer than 1024 characters is too long for a YAML implicit
 *   key (the ':' must come within 1024 characters of the key's start).
 */

const NEEDS_CARE = /[\ud800-\udfff\x7f-\x9f\ufffe\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NOT_ALLOWED = /[\x7f-\x84\x86-\x9f\ufffe\uffff]/;
const MARKER_AFTER_NEL = /\x85(?:---|\.\.\.)[ \x85]/;
const NEL = 0x85;

export function decodeString(s: string): string {
  if (!NEEDS_CARE.test(s)) return s;
  const text = s.replace(LONE_SURROGATE, "\ufffd");
  if (NOT_ALLOWED.test(text)) throw new Error("yaml: control characters are not allowed");
  if (!text.includes("\x85")) return text;
  if (MARKER_AFTER_NEL.test(text)) throw new Error("yaml: found unexpected document indicator (after U+0085)");
  return foldNextLines(text);
}

export function decodeKey(key: string): string {
  const text = decodeString(key);
  if (key.includes("\x85")) throw new Error("yaml: did not find expected ',' or '}' (a map key with U+0085)");
  // A UTF-16 unit takes at most 6 characters of JSON, so up to 170 units always fit.
  if (text.length > 170 && jsonLength(text) > 1022) {
    throw new Error("yaml: did not find expected ',' or '}' (a map key whose quoted JSON is over 1024 characters)");
  }
  return text;
}

/** Folds each run of spaces and NELs that holds a NEL as a YAML double-quoted scalar does. */
function foldNextLines(s: string): string {
  let out = "";
  let start = 0;
  for (let i = s.indexOf("\x85"); i >= 0; i = s.indexOf("\x85", start)) {
    let first = i;
    while (first > start && s.charCodeAt(first - 1) === 0x20) first--;
    let end = i;
    let breaks = 0;
    for (; end < s.length && (s.charCodeAt(end) === 0x20 || s.charCodeAt(end) === NEL); end++) {
      if (s.charCodeAt(end) === NEL) breaks++;
    }
    out += s.slice(start, first) + (breaks === 1 ? " " : "\n".repeat(breaks - 1));
    start = end;
  }
  return out + s.slice(start);
}

/** The length of encoding/json's quoted text without the quotes, in characters (Go 1.22+ escapes). */
function jsonLength(s: string): number {
  let length = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) continue;
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) length += 2;
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) length += 6;
    else length += 1;
  }
  return length;
}
