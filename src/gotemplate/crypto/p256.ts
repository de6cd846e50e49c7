import { integer, sequence } from "./der.js";
import { modInverse } from "./keys.js";

/**
 * ECDSA P-256 signing with a nonce the caller supplies, so that certificates signed with an
 * ECDSA key come out the same on every render (Node's signer draws its own nonce).
 */

const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const GX = 0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296n;
const GY = 0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5n;

type Jacobian = [bigint, bigint, bigint];

const mod = (a: bigint) => ((a % P) + P) % P;

function double([x, y, z]: Jacobian): Jacobian {
  if (y === 0n || z === 0n) return [0n, 1n, 0n];
  const ysq = mod(y * y);
  const s = mod(4n * x * ysq);
  const zsq = mod(z * z);
  const m = mod(3n * (x - zsq) * (x + zsq));
  const nx = mod(m * m - 2n * s);
  const ny = mod(m * (s - nx) - 8n * ysq * ysq);
  const nz = mod(2n * y * z);
  return [nx, ny, nz];
}

function add(a: Jacobian, b: Jacobian): Jacobian {
  if (a[2] === 0n) return b;
  if (b[2] === 0n) return a;
  const z1z1 = mod(a[2] * a[2]);
  const z2z2 = mod(b[2] * b[2]);
  const u1 = mod(a[0] * z2z2);
  const u2 = mod(b[0] * z1z1);
  const s1 = mod(a[1] * b[2] * z2z2);
  const s2 = mod(b[1] * a[2] * z1z1);
  if (u1 === u2) return s1 === s2 ? double(a) : [0n, 1n, 0n];
  const h = mod(u2 - u1);
  const r = mod(s2 - s1);
  const hh = mod(h * h);
  const hhh = mod(h * hh);
  const v = mod(u1 * hh);
  const x = mod(r * r - hhh - 2n * v);
  const y = mod(r * (v - x) - s1 * hhh);
  const z = mod(h * a[2] * b[2]);
  return [x, y, z];
}

function multiply(k: bigint): bigint {
  let result: Jacobian = [0n, 1n, 0n];
  let addend: Jacobian = [GX, GY, 1n];
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) result = add(result, addend);
    addend = double(addend);
  }
  const zinv = modInverse(result[2], P);
  return mod(result[0] * zinv * zinv);
}

/** An ECDSA signature (DER) of a SHA-256 digest with private scalar d and nonce source. */
export function signP256(digest: Uint8Array, d: bigint, nonce: () => bigint): Buffer {
  const z = BigInt("0x" + Buffer.from(digest).toString("hex"));
  for (;;) {
    const k = (nonce() % (N - 1n)) + 1n;
    const r = multiply(k) % N;
    if (r === 0n) continue;
    const s = (modInverse(k, N) * (z + r * d)) % N;
    if (s === 0n) continue;
    return sequence(integer(r), integer(s));
  }
}
