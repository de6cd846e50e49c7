/** ASN.1 DER: the encoder certificates and keys need, and a reader for the parts read back. */

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

export const sequence = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items));
export const explicit = (n: number, content: Uint8Array) => tlv(0xa0 + n, content);
export const contextPrimitive = (n: number, content: Uint8Array) => tlv(0x80 + n, content);
export const octetString = (b: Uint8Array) => tlv(0x04, b);
export const bitString = (b: Uint8Array, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
export const nullValue = () => Buffer.from([0x05, 0x00]);
export const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
export const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
export const printableString = (s: string) => tlv(0x13, Buffer.from(s, "ascii"));
export const ia5String = (s: string) => tlv(0x16, Buffer.from(s, "ascii"));

export function integer(v: bigint): Buffer {
  if (v === 0n) return tlv(0x02, Buffer.from([0]));
  let hex = (v < 0n ? -v : v).toString(16);
  if (hex.length % 2) hex = "0" + hex;
  let bytes = Buffer.from(hex, "hex");
  if (v > 0n && bytes[0] & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  if (v < 0n) throw new Error("negative integers are not encoded here");
  return tlv(0x02, bytes);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const out: number[] = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const bytes: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) bytes.unshift((v & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280), from milliseconds since the epoch. */
export function time(ms: number): Buffer {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const body = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  const y = d.getUTCFullYear();
  if (y >= 1950 && y < 2050) return tlv(0x17, Buffer.from(p(y % 100) + body, "ascii"));
  return tlv(0x18, Buffer.from(p(y, 4) + body, "ascii"));
}

export interface Element {
  tag: number;
  /** The whole element, header included. */
  raw: Buffer;
  content: Buffer;
}

/** The elements of a DER buffer, one level deep. */
export function children(der: Uint8Array): Element[] {
  const b = Buffer.from(der);
  const out: Element[] = [];
  let i = 0;
  while (i < b.length) {
    const start = i;
    const tag = b[i++];
    let len = b[i++];
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + b[i++];
    }
    if (i + len > b.length) throw new Error("asn1: syntax error: data truncated");
    out.push({ tag, raw: b.subarray(start, i + len), content: b.subarray(i, i + len) });
    i += len;
  }
  return out;
}

export const toBigInt = (content: Uint8Array) => (content.length ? BigInt("0x" + Buffer.from(content).toString("hex")) : 0n);

export function pem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${type}-----\n${b64}${b64.endsWith("\n") ? "" : "\n"}-----END ${type}-----\n`;
}

/** pem.Decode: the first block's type and bytes. */
export function decodePem(text: string): { type: string; der: Buffer } | undefined {
  const m = /-----BEGIN ([^-\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2]
    .split(/\r?\n/)
    .filter((l) => !l.includes(":"))
    .join("");
  return { type: m[1], der: Buffer.from(body, "base64") };
}
