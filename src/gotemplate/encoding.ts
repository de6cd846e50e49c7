import { GoError } from "../go/values.js";

/** Go's encoding/base64 and encoding/base32 (standard alphabets, padded, strict on decode). */

const B64 = /^[A-Za-z0-9+/]$/;

/** base64.StdEncoding.DecodeString: newlines are skipped; anything else malformed is an error at its offset. */
export function decodeBase64(s: string): Buffer {
  const chars: { c: string; at: number }[] = [];
  for (let i = 0; i < s.length; i++) if (s[i] !== "\r" && s[i] !== "\n") chars.push({ c: s[i], at: i });
  let i = 0;
  for (; i < chars.length; i++) {
    const c = chars[i].c;
    if (c === "=") break;
    if (!B64.test(c)) throw corrupt(chars[i].at);
  }
  const dataLen = i;
  const rem = dataLen % 4;
  if (i < chars.length) {
    // padding: only where a quantum ends early, and exactly enough of it
    const pad = chars.length - i;
    if (rem < 2 || pad !== 4 - rem || chars.slice(i).some((x) => x.c !== "=")) throw corrupt(chars[rem < 2 ? i : Math.min(i + (4 - rem), chars.length - 1)].at);
  } else if (rem !== 0) {
    throw corrupt(s.length - (rem === 1 ? 1 : 0));
  }
  return Buffer.from(
    chars
      .slice(0, dataLen)
      .map((x) => x.c)
      .join(""),
    "base64",
  );
}

const corrupt = (at: number) => new GoError(`illegal base64 data at input byte ${at}`);

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function encodeBase32(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 5) {
    const chunk = b.subarray(i, i + 5);
    let bits = 0n;
    for (let j = 0; j < 5; j++) bits = (bits << 8n) | BigInt(chunk[j] ?? 0);
    const chars = [Math.ceil((chunk.length * 8) / 5)][0];
    for (let j = 0; j < 8; j++) out += j < chars ? B32[Number((bits >> BigInt(35 - 5 * j)) & 31n)] : "=";
  }
  return out;
}

export function decodeBase32(s: string): Buffer {
  const clean = s.replace(/[\r\n]/g, "");
  if (clean.length % 8 !== 0) throw new GoError(`illegal base32 data at input byte ${clean.length - (clean.length % 8)}`);
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 8) {
    const q = clean.slice(i, i + 8);
    const data = q.replace(/=+$/, "");
    const padLen = 8 - data.length;
    if (![0, 1, 3, 4, 6].includes(padLen) || data.includes("=")) throw new GoError(`illegal base32 data at input byte ${i + data.length}`);
    let bits = 0n;
    for (let j = 0; j < 8; j++) {
      const c = j < data.length ? B32.indexOf(data[j]) : 0;
      if (c < 0) throw new GoError(`illegal base32 data at input byte ${i + j}`);
      bits = (bits << 5n) | BigInt(c);
    }
    const bytes = { 0: 5, 1: 4, 3: 3, 4: 2, 6: 1 }[padLen as 0 | 1 | 3 | 4 | 6];
    for (let j = 0; j < bytes; j++) out.push(Number((bits >> BigInt(32 - 8 * j)) & 255n));
    if (padLen > 0 && i + 8 < clean.length) throw new GoError(`illegal base32 data at input byte ${i + 8}`);
  }
  return Buffer.from(out);
}
