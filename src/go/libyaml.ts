/**
 * The character classes and escapes of libyaml's emitter, as both go-yaml v2 and v3 port them
 * (yamlh.go, emitterc.go). A caller passes what its library iterates: v2's writer UTF-16 units,
 * v3's encoder code points; a character beyond the BMP is not printable either way.
 */

/** is_printable: LF, printable ASCII, and the BMP from 0xA0 but surrogates and the BOM. */
export function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

/** is_break: LF, CR, NEL, LS, PS. */
export function isBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

const SHORT_ESCAPES: Record<number, string> = {
  0x00: "0",
  0x07: "a",
  0x08: "b",
  0x09: "t",
  0x0a: "n",
  0x0b: "v",
  0x0c: "f",
  0x0d: "r",
  0x1b: "e",
  0x22: '"',
  0x5c: "\\",
  0x85: "N",
  0xa0: "_",
  0x2028: "L",
  0x2029: "P",
};

/** yaml_emitter_write_double_quoted_scalar's escape of one character. */
export function escapeCharacter(c: number): string {
  const short = SHORT_ESCAPES[c];
  if (short !== undefined) return `\\${short}`;
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (c <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\U${hex.padStart(8, "0")}`;
}
