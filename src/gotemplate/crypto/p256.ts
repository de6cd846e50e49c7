import { createPrivateKey, type KeyObject } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";

/**
 * ECDSA P-256 with @noble/curves. Node's signer draws its own nonce, so certificates signed with
 * an ECDSA key would differ on every render; noble derives the nonce per RFC 6979 from the key and
 * the message, hedged with entropy the caller supplies (the execution's seeded stream), so the
 * same render signs the same way.
 */

/** The private key with scalar `d` (32 bytes, big-endian), its public point computed by noble. */
export function p256PrivateKey(d: Uint8Array): KeyObject {
  const pub = p256.getPublicKey(d, false);
  const b64u = (b: Uint8Array) => Buffer.from(b).toString("base64url");
  const jwk = { kty: "EC", crv: "P-256", d: b64u(d), x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33, 65)) };
  return createPrivateKey({ key: jwk, format: "jwk" });
}

/**
 * ECDSA-with-SHA256 of `message` by scalar `d`, as Go's ecdsa.SignASN1 writes it: DER
 * SEQUENCE { r INTEGER, s INTEGER }, s not normalized to the lower half (Go leaves it as it falls).
 * Without `extraEntropy` the nonce is RFC 6979's deterministic one.
 */
export function signP256(message: Uint8Array, d: Uint8Array, extraEntropy?: Uint8Array): Buffer {
  return Buffer.from(p256.sign(message, d, { prehash: true, lowS: false, format: "der", extraEntropy: extraEntropy ?? false }));
}
