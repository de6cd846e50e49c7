import { createHash, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { charge, COSTS } from "../budget.js";
import { bitString, children, decodePem, integer, oid, pem, sequence, toBigInt } from "./der.js";
import { p256PrivateKey } from "./p256.js";

/**
 * Private keys as sprig makes them (RSA, ECDSA P-256, Ed25519, DSA), generated deterministically
 * from a seed: the same seed gives the same key, so renders repeat. A key is derived from a
 * SHA-256 counter stream over the seed; RSA and DSA primes are searched in that stream.
 */

export type KeyType = "rsa" | "ecdsa" | "ed25519" | "dsa";

export interface PrivateKey {
  type: KeyType;
  key: KeyObject;
  /** DSA keys are kept as numbers (Node cannot import a DSA private key from its parts; `key` is the public key). */
  dsa?: { p: bigint; q: bigint; g: bigint; y: bigint; x: bigint };
}

/** A deterministic byte stream: SHA-256(seed || counter). */
export class ByteStream {
  private counter = 0;
  private buf = Buffer.alloc(0);

  constructor(private readonly seed: Uint8Array) {}

  bytes(n: number): Buffer {
    while (this.buf.length < n) {
      const c = Buffer.alloc(4);
      c.writeUInt32BE(this.counter++);
      this.buf = Buffer.concat([this.buf, createHash("sha256").update(this.seed).update(c).digest()]);
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return Buffer.from(out);
  }

  bigint(bits: number): bigint {
    const b = this.bytes(Math.ceil(bits / 8));
    return toBigInt(b) >> BigInt(b.length * 8 - bits);
  }
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [((a % m) + m) % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
}

const SMALL_PRIMES: number[] = (() => {
  const limit = 20000;
  const sieve = new Uint8Array(limit);
  const out: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (sieve[i]) continue;
    out.push(i);
    for (let j = i * i; j < limit; j += 2 * i) sieve[j] = 1;
  }
  return out;
})();

function millerRabin(n: bigint, rounds: number, stream: ByteStream): boolean {
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  const bits = n.toString(2).length;
  for (let i = 0; i < rounds; i++) {
    const a = i === 0 ? 2n : (stream.bigint(bits) % (n - 3n)) + 2n;
    let x = modPow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    let composite = true;
    for (let r = 1; r < s; r++) {
      x = (x * x) % n;
      if (x === n - 1n) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

/** The first prime p >= start with p ≡ 1 (mod step) when step is given, searched with a sieve. */
function nextPrime(start: bigint, stream: ByteStream, step = 2n, accept: (p: bigint) => boolean = () => true): bigint {
  let p = start;
  for (;;) {
    const residues = SMALL_PRIMES.map((q) => Number(p % BigInt(q)));
    const stepResidues = SMALL_PRIMES.map((q) => Number(step % BigInt(q)));
    for (let k = 0; k < 4096; k++) {
      let ok = true;
      for (let i = 0; i < SMALL_PRIMES.length; i++) {
        if ((residues[i] + k * stepResidues[i]) % SMALL_PRIMES[i] === 0) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const candidate = p + BigInt(k) * step;
      if (millerRabin(candidate, 1, stream) && accept(candidate) && millerRabin(candidate, 24, stream)) return candidate;
    }
    p += 4096n * step;
  }
}

function randomPrime(bits: number, stream: ByteStream): bigint {
  const top = 3n << BigInt(bits - 2);
  const start = stream.bigint(bits) | top | 1n;
  return nextPrime(start, stream);
}

const b64u = (v: bigint | Uint8Array) => {
  const buf = typeof v === "bigint" ? Buffer.from(v.toString(16).padStart(2 * Math.ceil(v.toString(16).length / 2), "0"), "hex") : Buffer.from(v);
  return buf.toString("base64url");
};

const cache = new Map<string, PrivateKey>();

/** A private key of `type` from a 32-byte seed (RSA of `bits`). */
export function generateKey(type: KeyType, seed: Uint8Array, bits = 2048): PrivateKey {
  const id = `${type}:${bits}:${Buffer.from(seed).toString("hex")}`;
  const hit = cache.get(id);
  if (hit) return hit;
  // Charged before the work: a template that asks for a hundred RSA keys stops at the first one over budget.
  charge(type === "rsa" ? (bits > 2048 ? COSTS.rsa4096 : COSTS.rsa2048) : type === "dsa" ? COSTS.rsa2048 : COSTS.ecKey, `generating a key (${type})`);
  const stream = new ByteStream(seed);
  let key: PrivateKey;
  switch (type) {
    case "rsa": {
      const e = 65537n;
      let p: bigint;
      let q: bigint;
      do {
        p = randomPrime(bits / 2, stream);
        q = randomPrime(bits / 2, stream);
      } while (p === q || (p - 1n) % e === 0n || (q - 1n) % e === 0n);
      if (p < q) [p, q] = [q, p];
      const n = p * q;
      const d = modInverse(e, (p - 1n) * (q - 1n));
      const jwk = {
        kty: "RSA",
        n: b64u(n),
        e: b64u(e),
        d: b64u(d),
        p: b64u(p),
        q: b64u(q),
        dp: b64u(d % (p - 1n)),
        dq: b64u(d % (q - 1n)),
        qi: b64u(modInverse(q, p)),
      };
      key = { type, key: createPrivateKey({ key: jwk, format: "jwk" }) };
      break;
    }
    case "ecdsa": {
      const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
      const d = (stream.bigint(256) % (n - 1n)) + 1n;
      key = { type, key: p256PrivateKey(Buffer.from(d.toString(16).padStart(64, "0"), "hex")) };
      break;
    }
    case "ed25519": {
      const prefix = Buffer.from("302e020100300506032b657004220420", "hex");
      key = { type, key: createPrivateKey({ key: Buffer.concat([prefix, stream.bytes(32)]), format: "der", type: "pkcs8" }) };
      break;
    }
    case "dsa": {
      const q = randomPrime(256, stream);
      const kStart = (stream.bigint(2048) | (3n << 2046n)) / (2n * q);
      const p = nextPrime(2n * q * kStart + 1n, stream, 2n * q, (c) => c.toString(2).length === 2048);
      let g = 1n;
      for (let h = 2n; g === 1n; h++) g = modPow(h, (p - 1n) / q, p);
      const x = (stream.bigint(256) % (q - 1n)) + 1n;
      const y = modPow(g, x, p);
      // Node cannot hold a DSA private key made from its parts: the public key stands in, the numbers are kept
      key = { type, key: createPublicKeyFromDsa(p, q, g, y), dsa: { p, q, g, y, x } };
      break;
    }
  }
  cache.set(id, key);
  return key;
}

function createPublicKeyFromDsa(p: bigint, q: bigint, g: bigint, y: bigint): KeyObject {
  const algorithm = sequence(oid("1.2.840.10040.4.1"), sequence(integer(p), integer(q), integer(g)));
  return createPublicKey({ key: sequence(algorithm, bitString(integer(y))), format: "der", type: "spki" });
}

/** pemBlockForKey: RSA as PKCS#1, ECDSA as SEC 1, DSA in Go's DSAKeyFormat, Ed25519 as PKCS#8. */
export function keyPem(k: PrivateKey): string {
  switch (k.type) {
    case "rsa":
      return k.key.export({ type: "pkcs1", format: "pem" }) as string;
    case "ecdsa":
      return k.key.export({ type: "sec1", format: "pem" }) as string;
    case "ed25519":
      return k.key.export({ type: "pkcs8", format: "pem" }) as string;
    case "dsa": {
      const { p, q, g, y, x } = k.dsa!;
      return pem("DSA PRIVATE KEY", sequence(integer(0n), integer(p), integer(q), integer(g), integer(y), integer(x)));
    }
  }
}

/** parsePrivateKeyPEM, with Go's error messages. */
export function parseKeyPem(text: string): PrivateKey {
  const block = decodePem(text);
  if (!block) throw new Error("no PEM data in input");
  const importAs = (type: "pkcs8" | "pkcs1" | "sec1", what: string): KeyObject => {
    try {
      return createPrivateKey({ key: block.der, format: "der", type });
    } catch (err) {
      throw new Error(`${what}: ${(err as Error).message}`);
    }
  };
  const typeOf = (k: KeyObject): KeyType => (k.asymmetricKeyType === "ec" ? "ecdsa" : (k.asymmetricKeyType as KeyType));
  if (block.type === "PRIVATE KEY") {
    const k = importAs("pkcs8", "decoding PEM as PKCS#8");
    return { type: typeOf(k), key: k };
  }
  if (!block.type.endsWith(" PRIVATE KEY")) throw new Error(`no private key data in PEM block of type ${block.type}`);
  switch (block.type.slice(0, -12)) {
    case "RSA":
      return { type: "rsa", key: importAs("pkcs1", "parsing RSA private key from PEM") };
    case "EC":
      return { type: "ecdsa", key: importAs("sec1", "parsing EC private key from PEM") };
    case "DSA": {
      let parts;
      try {
        parts = children(children(block.der)[0].content).map((e) => toBigInt(e.content));
      } catch (err) {
        throw new Error(`parsing DSA private key from PEM: ${(err as Error).message}`);
      }
      const [, p, q, g, y, x] = parts;
      return { type: "dsa", key: createPublicKeyFromDsa(p, q, g, y), dsa: { p, q, g, y, x } };
    }
    default:
      throw new Error(`invalid private key type ${block.type}`);
  }
}

/** The public key as SubjectPublicKeyInfo DER. */
export function publicKeyDer(k: PrivateKey): Buffer {
  const pub = k.type === "dsa" ? k.key : createPublicKey(k.key);
  return pub.export({ type: "spki", format: "der" }) as Buffer;
}
