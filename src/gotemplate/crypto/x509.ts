import { X509Certificate, createHash, sign } from "node:crypto";
import * as der from "./der.js";
import { publicKeyDer, type ByteStream, type PrivateKey } from "./keys.js";
import { signP256 } from "./p256.js";

/**
 * x509.CreateCertificate for sprig's templates: version 3, a random 128-bit serial, subject CN,
 * validity from now, key usages, basic constraints, subject/authority key ids for CAs, and
 * subject alternative names (DNS names, then IP addresses), in Go's extension order.
 */

export interface CertTemplate {
  commonName: string;
  dnsNames: string[];
  ips: Buffer[];
  notBefore: number;
  notAfter: number;
  isCA: boolean;
  serial: bigint;
}

export interface Issuer {
  /** The issuer's Name, as DER. */
  name: Buffer;
  subjectKeyId?: Buffer;
  key: PrivateKey;
}

const KEY_USAGE_DIGITAL_SIGNATURE = 1 << 0;
const KEY_USAGE_KEY_ENCIPHERMENT = 1 << 2;
const KEY_USAGE_CERT_SIGN = 1 << 5;

function reverseBits(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 1 << (7 - i);
  return r;
}

function keyUsage(ku: number): Buffer {
  const bytes = [reverseBits(ku & 0xff), reverseBits((ku >> 8) & 0xff)];
  const content = Buffer.from(bytes[1] !== 0 ? bytes : [bytes[0]]);
  const last = content[content.length - 1];
  let unused = 0;
  while (unused < 8 && !(last & (1 << unused))) unused++;
  return der.bitString(content, unused);
}

const extension = (oid: string, critical: boolean, value: Buffer) =>
  der.sequence(der.oid(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(value));

export function nameOf(commonName: string): Buffer {
  if (commonName === "") return der.sequence();
  const value = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(commonName) ? der.printableString(commonName) : der.utf8String(commonName);
  return der.sequence(der.set(der.sequence(der.oid("2.5.4.3"), value)));
}

function signatureAlgorithm(key: PrivateKey): Buffer {
  switch (key.type) {
    case "rsa":
      return der.sequence(der.oid("1.2.840.113549.1.1.11"), der.nullValue());
    case "ecdsa":
      return der.sequence(der.oid("1.2.840.10045.4.3.2"));
    case "ed25519":
      return der.sequence(der.oid("1.3.101.112"));
    default:
      throw new Error("x509: only RSA, ECDSA and Ed25519 keys supported");
  }
}

function signWith(key: PrivateKey, tbs: Buffer, stream: ByteStream): Buffer {
  switch (key.type) {
    case "rsa":
      return sign("sha256", tbs, key.key);
    case "ed25519":
      return sign(null, tbs, key.key);
    case "ecdsa": {
      const raw = Buffer.from((key.key.export({ format: "jwk" }) as { d: string }).d, "base64url");
      const d = Buffer.concat([Buffer.alloc(Math.max(0, 32 - raw.length)), raw]);
      // The nonce's hedge comes from the certificate's seeded stream: the same render signs the same way
      return signP256(tbs, d, stream.bytes(32));
    }
    default:
      throw new Error("x509: only RSA, ECDSA and Ed25519 keys supported");
  }
}

/** The key bits of a SubjectPublicKeyInfo (what key ids hash). */
function keyBits(spki: Buffer): Buffer {
  const [, bits] = der.children(der.children(spki)[0].content);
  return bits.content.subarray(1);
}

export function createCertificate(t: CertTemplate, subjectKey: PrivateKey, issuer: Issuer | "self", stream: ByteStream): string {
  if (subjectKey.type === "dsa") throw new Error("x509: unsupported public key type: *dsa.PublicKey");
  const signer = issuer === "self" ? subjectKey : issuer.key;
  const algorithm = signatureAlgorithm(signer);
  const spki = publicKeyDer(subjectKey);
  const subject = nameOf(t.commonName);
  const issuerName = issuer === "self" ? subject : issuer.name;
  const ku = KEY_USAGE_KEY_ENCIPHERMENT | KEY_USAGE_DIGITAL_SIGNATURE | (t.isCA ? KEY_USAGE_CERT_SIGN : 0);
  const extensions: Buffer[] = [
    extension("2.5.29.15", true, keyUsage(ku)),
    extension("2.5.29.37", false, der.sequence(der.oid("1.3.6.1.5.5.7.3.1"), der.oid("1.3.6.1.5.5.7.3.2"))),
    extension("2.5.29.19", true, t.isCA ? der.sequence(der.boolean(true)) : der.sequence()),
  ];
  const subjectKeyId = t.isCA ? createHash("sha256").update(keyBits(spki)).digest().subarray(0, 20) : undefined;
  if (subjectKeyId) extensions.push(extension("2.5.29.14", false, der.octetString(subjectKeyId)));
  if (issuer !== "self" && issuer.subjectKeyId && !issuerName.equals(subject)) {
    extensions.push(extension("2.5.29.35", false, der.sequence(der.contextPrimitive(0, issuer.subjectKeyId))));
  }
  if (t.dnsNames.length + t.ips.length > 0) {
    const names = [...t.dnsNames.map((n) => der.contextPrimitive(2, Buffer.from(n, "ascii"))), ...t.ips.map((ip) => der.contextPrimitive(7, ip))];
    extensions.push(extension("2.5.29.17", t.commonName === "", der.sequence(...names)));
  }
  const tbs = der.sequence(
    der.explicit(0, der.integer(2n)),
    der.integer(t.serial),
    algorithm,
    issuerName,
    der.sequence(der.time(t.notBefore), der.time(t.notAfter)),
    subject,
    spki,
    der.explicit(3, der.sequence(...extensions)),
  );
  const signature = signWith(signer, tbs, stream);
  return der.pem("CERTIFICATE", der.sequence(tbs, algorithm, der.bitString(signature)));
}

/** x509.ParseCertificate for a signer: its subject Name and subject key id. */
export function parseCertificate(bytes: Buffer): { name: Buffer; subjectKeyId?: Buffer } {
  try {
    new X509Certificate(bytes);
  } catch (err) {
    throw new Error((err as Error).message);
  }
  const tbs = der.children(der.children(bytes)[0].content)[0];
  const fields = der.children(tbs.content);
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  const name = fields[offset + 4].raw;
  let subjectKeyId: Buffer | undefined;
  const exts = fields.find((f) => f.tag === 0xa3);
  if (exts) {
    for (const e of der.children(der.children(exts.content)[0].content)) {
      const [id, ...rest] = der.children(e.content);
      if (id.content.equals(der.oid("2.5.29.14").subarray(2))) {
        subjectKeyId = der.children(rest[rest.length - 1].content)[0].content;
      }
    }
  }
  return { name: Buffer.from(name), subjectKeyId: subjectKeyId && Buffer.from(subjectKeyId) };
}
