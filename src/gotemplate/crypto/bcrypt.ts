/**
 * bcrypt ($2a$, as golang.org/x/crypto/bcrypt writes it) on Blowfish. The Blowfish initial state
 * is the hexadecimal expansion of pi; it is computed once, on first use.
 */

let initial: { p: Uint32Array; s: Uint32Array } | undefined;

/** The first `n` hexadecimal digits of pi's fraction (Machin's formula on fixed-point bigints). */
function piHexDigits(n: number): string {
  const bits = BigInt(n * 4 + 64);
  const one = 1n << bits;
  const arctanInv = (x: bigint) => {
    const x2 = x * x;
    let term = one / x;
    let sum = term;
    for (let k = 1n; term !== 0n; k++) {
      term /= x2;
      const t = term / (2n * k + 1n);
      sum = k % 2n === 1n ? sum - t : sum + t;
    }
    return sum;
  };
  const pi = 16n * arctanInv(5n) - 4n * arctanInv(239n);
  const frac = (pi - 3n * one) >> 64n;
  return frac.toString(16).padStart(n, "0").slice(0, n);
}

function initialState(): { p: Uint32Array; s: Uint32Array } {
  if (!initial) {
    const hex = piHexDigits(8 * (18 + 1024));
    const words = new Uint32Array(18 + 1024);
    for (let i = 0; i < words.length; i++) words[i] = parseInt(hex.slice(8 * i, 8 * i + 8), 16);
    initial = { p: words.slice(0, 18), s: words.slice(18) };
  }
  return initial;
}

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;

  constructor() {
    const init = initialState();
    this.p = init.p.slice();
    this.s = init.s.slice();
  }

  private f(x: number): number {
    const s = this.s;
    return (((s[x >>> 24] + s[256 + ((x >>> 16) & 0xff)]) ^ s[512 + ((x >>> 8) & 0xff)]) + s[768 + (x & 0xff)]) >>> 0;
  }

  encrypt(l: number, r: number): [number, number] {
    const p = this.p;
    l ^= p[0];
    for (let i = 1; i <= 16; i += 2) {
      r ^= this.f(l) ^ p[i];
      l ^= this.f(r) ^ p[i + 1];
    }
    r ^= p[17];
    return [r >>> 0, l >>> 0];
  }

  /** ExpandKey (salt = undefined) or expandKeyWithSalt. */
  expand(key: Uint8Array, salt?: Uint8Array): void {
    let j = 0;
    for (let i = 0; i < 18; i++) {
      let d = 0;
      for (let k = 0; k < 4; k++) {
        d = ((d << 8) | key[j]) >>> 0;
        j = (j + 1) % key.length;
      }
      this.p[i] = (this.p[i] ^ d) >>> 0;
    }
    let sj = 0;
    const next = () => {
      if (!salt) return 0;
      let w = 0;
      for (let k = 0; k < 4; k++) {
        w = ((w << 8) | salt[sj]) >>> 0;
        sj = (sj + 1) % salt.length;
      }
      return w;
    };
    let l = 0;
    let r = 0;
    const fill = (target: Uint32Array, count: number, offset: number) => {
      for (let i = 0; i < count; i += 2) {
        l = (l ^ next()) >>> 0;
        r = (r ^ next()) >>> 0;
        [l, r] = this.encrypt(l, r);
        target[offset + i] = l;
        target[offset + i + 1] = r;
      }
    };
    fill(this.p, 18, 0);
    fill(this.s, 1024, 0);
  }
}

const ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** bcrypt's base64 (its own alphabet, no padding). */
export function bcryptBase64(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const c1 = b[i];
    const c2 = b[i + 1];
    const c3 = b[i + 2];
    out += ALPHABET[c1 >> 2];
    out += ALPHABET[((c1 & 3) << 4) | ((c2 ?? 0) >> 4)];
    if (c2 === undefined) break;
    out += ALPHABET[((c2 & 15) << 2) | ((c3 ?? 0) >> 6)];
    if (c3 === undefined) break;
    out += ALPHABET[c3 & 63];
  }
  return out;
}

/** The bcrypt hash of `password` with a 16-byte salt, at `cost` (x/crypto's GenerateFromPassword). */
export function bcrypt(password: Uint8Array, salt: Uint8Array, cost = 10): string {
  if (password.length > 72) throw new Error("bcrypt: password length exceeds 72 bytes");
  const key = new Uint8Array(password.length + 1);
  key.set(password);
  const bf = new Blowfish();
  bf.expand(key, salt);
  for (let i = 0; i < 2 ** cost; i++) {
    bf.expand(key);
    bf.expand(salt);
  }
  const text = Buffer.from("OrpheanBeholderScryDoubt");
  const words = new Uint32Array(6);
  for (let i = 0; i < 6; i++) words[i] = text.readUInt32BE(4 * i);
  for (let n = 0; n < 64; n++) {
    for (let i = 0; i < 6; i += 2) [words[i], words[i + 1]] = bf.encrypt(words[i], words[i + 1]);
  }
  const out = Buffer.alloc(24);
  for (let i = 0; i < 6; i++) out.writeUInt32BE(words[i], 4 * i);
  return `$2a$${String(cost).padStart(2, "0")}$${bcryptBase64(salt)}${bcryptBase64(out.subarray(0, 23))}`;
}

/** Decodes bcrypt base64 (for tests and salts given as text). */
export function bcryptBase64Decode(s: string): Uint8Array {
  const out: number[] = [];
  const v = [...s].map((c) => ALPHABET.indexOf(c));
  for (let i = 0; i < v.length; i += 4) {
    out.push(((v[i] << 2) | (v[i + 1] >> 4)) & 255);
    if (i + 2 < v.length) out.push(((v[i + 1] << 4) | (v[i + 2] >> 2)) & 255);
    if (i + 3 < v.length) out.push(((v[i + 2] << 6) | v[i + 3]) & 255);
  }
  return Uint8Array.from(out);
}
