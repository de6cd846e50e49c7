import { createCipheriv, createDecipheriv, createHmac, scryptSync } from "node:crypto";
import { isIP } from "node:net";
import { charge, COSTS } from "../budget.js";
import { bcrypt } from "../crypto/bcrypt.js";
import { decodePem } from "../crypto/der.js";
import { ByteStream, generateKey, keyPem, parseKeyPem, type KeyType, type PrivateKey } from "../crypto/keys.js";
import { createCertificate, parseCertificate, type Issuer } from "../crypto/x509.js";
import { decodeBase64 } from "../encoding.js";
import { formatValue } from "../../go/fmt.js";
import { GoError, GoStruct, SLICE_ANY, T, type CallContext, type GoType, type Value } from "../../go/values.js";
import { fn } from "./cast.js";
import { randomBytes } from "./random.js";

/**
 * sprig's crypto.go. Everything random (salts, IVs, keys, serial numbers, ECDSA nonces) comes
 * from the execution's seeded generator: keys and certificates are real and valid, and the same
 * render makes the same ones. Validity starts at the execution's clock.
 */

const S = T.string;

const SEED = "com.lyndir.masterpassword";
const TEMPLATES: Record<string, string[]> = {
  maximum: ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
  long: [
    "CvcvnoCvcvCvcv",
    "CvcvCvcvnoCvcv",
    "CvcvCvcvCvcvno",
    "CvccnoCvcvCvcv",
    "CvccCvcvnoCvcv",
    "CvccCvcvCvcvno",
    "CvcvnoCvccCvcv",
    "CvcvCvccnoCvcv",
    "CvcvCvccCvcvno",
    "CvcvnoCvcvCvcc",
    "CvcvCvcvnoCvcc",
    "CvcvCvcvCvccno",
    "CvccnoCvccCvcv",
    "CvccCvccnoCvcv",
    "CvccCvccCvcvno",
    "CvcvnoCvccCvcc",
    "CvcvCvccnoCvcc",
    "CvcvCvccCvccno",
    "CvccnoCvcvCvcc",
    "CvccCvcvnoCvcc",
    "CvccCvcvCvccno",
  ],
  medium: ["CvcnoCvc", "CvcCvcno"],
  short: ["Cvcn"],
  basic: ["aaanaaan", "aannaaan", "aaannaaa"],
  pin: ["nnnn"],
};
const CHARS: Record<string, string> = {
  V: "AEIOU",
  C: "BCDFGHJKLMNPQRSTVWXYZ",
  v: "aeiou",
  c: "bcdfghjklmnpqrstvwxyz",
  A: "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
  a: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
  n: "0123456789",
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
};

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** The Master Password algorithm (scrypt N=32768 r=8 p=2, then HMAC-SHA256). */
function derivePassword(counter: number, type: string, password: string, user: string, site: string): string {
  const templates = TEMPLATES[type];
  if (!templates) return `cannot find password template ${type}`;
  const userBytes = Buffer.from(user, "utf8");
  const salt = Buffer.concat([Buffer.from(SEED), u32(userBytes.length), userBytes]);
  charge(COSTS.scrypt, "derivePassword");
  const key = scryptSync(Buffer.from(password, "utf8"), salt, 64, { N: 32768, r: 8, p: 2, maxmem: 64 * 1024 * 1024 });
  const siteBytes = Buffer.from(site, "utf8");
  const seed = createHmac("sha256", key)
    .update(Buffer.concat([Buffer.from(SEED), u32(siteBytes.length), siteBytes, u32(counter)]))
    .digest();
  const temp = templates[seed[0] % templates.length];
  let out = "";
  for (let i = 0; i < temp.length; i++) {
    const chars = CHARS[temp[i]];
    out += chars[seed[i + 1] % chars.length];
  }
  return out;
}

/** AES-256-CBC with the password's first 32 bytes (zero-padded) as key, PKCS#7 padding, the IV first. */
function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, "utf8").copy(key, 0, 0, 32);
  return key;
}

function encryptAES(password: string, plaintext: string, ctx: CallContext): string {
  if (plaintext === "") return "";
  const iv = randomBytes(16, ctx);
  const cipher = createCipheriv("aes-256-cbc", aesKey(password), iv);
  return Buffer.concat([iv, cipher.update(plaintext, "utf8"), cipher.final()]).toString("base64");
}

function decryptAES(password: string, crypt64: string): string {
  if (crypt64 === "") return "";
  const crypt = decodeBase64(crypt64);
  if (crypt.length < 16) throw new GoError(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`);
  const body = crypt.subarray(16);
  if (body.length % 16 !== 0) throw new GoError("crypto/cipher: input not full blocks");
  if (body.length === 0) throw new GoError("runtime error: index out of range [-1]");
  const decipher = createDecipheriv("aes-256-cbc", aesKey(password), crypt.subarray(0, 16));
  decipher.setAutoPadding(false);
  const out = Buffer.concat([decipher.update(body), decipher.final()]);
  const pad = out[out.length - 1];
  if (pad > out.length) throw new GoError(`runtime error: slice bounds out of range [:${out.length - pad}]`);
  return out.subarray(0, out.length - pad).toString("utf8");
}

function bcryptString(input: string, ctx: CallContext): string {
  charge(COSTS.bcryptRound * 2 ** 10, "bcrypt");
  try {
    return bcrypt(input, randomBytes(16, ctx));
  } catch (err) {
    return `failed to encrypt string with bcrypt: ${(err as Error).message}`;
  }
}

const KEY_TYPES: Record<string, KeyType> = { "": "rsa", rsa: "rsa", dsa: "dsa", ecdsa: "ecdsa", ed25519: "ed25519" };

function genPrivateKey(type: string, ctx: CallContext): string {
  const t = Object.hasOwn(KEY_TYPES, type) ? KEY_TYPES[type] : undefined;
  if (!t) return "Unknown type " + type;
  ctx.secret?.("private keys");
  return keyPem(generateKey(t, randomBytes(32, ctx), 4096));
}

const CERTIFICATE: GoType = { name: "sprig.certificate", kind: "struct", fields: ["Cert", "Key"] };
const certificate = (cert: string, key: string) => new GoStruct(CERTIFICATE, { Cert: cert, Key: key });

function netIPs(ips: Value): Buffer[] {
  if (ips === null || ips === undefined) return [];
  return (ips as Value[]).map((ip) => {
    if (typeof ip !== "string") throw new GoError(`error parsing ip: ${formatValue(ip ?? null)} is not a string`);
    const v = isIP(ip);
    if (v === 4) return Buffer.from(ip.split(".").map(Number));
    if (v === 6) return ipv6Bytes(ip);
    throw new GoError(`error parsing ip: ${ip}`);
  });
}

/** The 16 bytes of an IPv6 address (already checked by isIP). */
function ipv6Bytes(ip: string): Buffer {
  const groups = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (!g.includes(".")) return [parseInt(g, 16)];
          const b = g.split(".").map(Number);
          return [(b[0] << 8) | b[1], (b[2] << 8) | b[3]];
        });
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, 2 * i));
  return out;
}

function dnsNames(names: Value): string[] {
  if (names === null || names === undefined) return [];
  return (names as Value[]).map((n) => {
    if (typeof n !== "string") throw new GoError(`error processing alternate dns name: ${formatValue(n ?? null)} is not a string`);
    return n;
  });
}

function parsedKey(pem: string): PrivateKey {
  try {
    return parseKeyPem(pem);
  } catch (err) {
    throw new GoError(`parsing private key: ${(err as Error).message}`);
  }
}

interface CertRequest {
  cn: string;
  ips: Value;
  dns: Value;
  days: number;
  isCA: boolean;
  key: PrivateKey;
  issuer: Issuer | "self";
}

function makeCertificate(r: CertRequest, ctx: CallContext): GoStruct {
  const template = {
    commonName: r.cn,
    ips: netIPs(r.ips),
    dnsNames: dnsNames(r.dns),
    notBefore: ctx.now(),
    notAfter: ctx.now() + r.days * 86400000,
    isCA: r.isCA,
    serial: 0n,
  };
  const stream = new ByteStream(randomBytes(32, ctx));
  template.serial = stream.bigint(128);
  try {
    return certificate(createCertificate(template, r.key, r.issuer, stream), keyPem(r.key));
  } catch (err) {
    throw new GoError(`error creating certificate: ${(err as Error).message}`);
  }
}

function issuerOf(ca: Value): Issuer {
  const fields = (ca as GoStruct).fields;
  const block = decodePem(String(fields.Cert ?? ""));
  if (!block) throw new GoError("unable to decode certificate");
  let parsed;
  try {
    parsed = parseCertificate(block.der);
  } catch (err) {
    throw new GoError(`error parsing certificate: decodedSignerCert.Bytes: ${(err as Error).message}`);
  }
  let key: PrivateKey;
  try {
    key = parseKeyPem(String(fields.Key ?? ""));
  } catch (err) {
    throw new GoError(`error parsing private key: ${(err as Error).message}`);
  }
  return { name: parsed.name, subjectKeyId: parsed.subjectKeyId, key };
}

function buildCustomCert(b64cert: string, b64key: string): GoStruct {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = decodeBase64(b64cert);
  } catch {
    throw new GoError("unable to decode base64 certificate");
  }
  try {
    key = decodeBase64(b64key);
  } catch {
    throw new GoError("unable to decode base64 private key");
  }
  const block = decodePem(cert.toString("latin1"));
  if (!block) throw new GoError("unable to decode certificate");
  try {
    parseCertificate(block.der);
  } catch (err) {
    throw new GoError(`error parsing certificate: decodedCert.Bytes: ${(err as Error).message}`);
  }
  try {
    parseKeyPem(key.toString("latin1"));
  } catch (err) {
    throw new GoError(`error parsing private key: ${(err as Error).message}`);
  }
  return certificate(cert.toString("utf8"), key.toString("utf8"));
}

const rsaKey = (ctx: CallContext) => (ctx.secret?.("certificates' private keys"), generateKey("rsa", randomBytes(32, ctx), 2048));

const num = (v: Value) => (typeof v === "number" ? v : (v as { value: number }).value);

const I = T.int;

export const cryptoFuncs = {
  bcrypt: fn([S], S, ([s], ctx) => bcryptString(s as string, ctx)),
  htpasswd: fn([S, S], S, ([u, p], ctx) => ((u as string).includes(":") ? `invalid username: ${u}` : `${u}:${bcryptString(p as string, ctx)}`)),
  genPrivateKey: fn([S], S, ([t], ctx) => genPrivateKey(t as string, ctx)),
  buildCustomCert: fn([S, S], CERTIFICATE, ([c, k]) => buildCustomCert(c as string, k as string), { error: true }),
  genCA: fn(
    [S, I],
    CERTIFICATE,
    ([cn, d], ctx) => makeCertificate({ cn: cn as string, ips: null, dns: null, days: num(d), isCA: true, key: rsaKey(ctx), issuer: "self" }, ctx),
    {
      error: true,
    },
  ),
  genCAWithKey: fn(
    [S, I, S],
    CERTIFICATE,
    ([cn, d, k], ctx) =>
      makeCertificate({ cn: cn as string, ips: null, dns: null, days: num(d), isCA: true, key: parsedKey(k as string), issuer: "self" }, ctx),
    { error: true },
  ),
  genSelfSignedCert: fn(
    [S, SLICE_ANY, SLICE_ANY, I],
    CERTIFICATE,
    ([cn, ips, dns, d], ctx) => makeCertificate({ cn: cn as string, ips, dns, days: num(d), isCA: false, key: rsaKey(ctx), issuer: "self" }, ctx),
    { error: true },
  ),
  genSelfSignedCertWithKey: fn(
    [S, SLICE_ANY, SLICE_ANY, I, S],
    CERTIFICATE,
    ([cn, ips, dns, d, k], ctx) => makeCertificate({ cn: cn as string, ips, dns, days: num(d), isCA: false, key: parsedKey(k as string), issuer: "self" }, ctx),
    { error: true },
  ),
  genSignedCert: fn(
    [S, SLICE_ANY, SLICE_ANY, I, CERTIFICATE],
    CERTIFICATE,
    ([cn, ips, dns, d, ca], ctx) => {
      const issuer = issuerOf(ca);
      return makeCertificate({ cn: cn as string, ips, dns, days: num(d), isCA: false, key: rsaKey(ctx), issuer }, ctx);
    },
    { error: true },
  ),
  genSignedCertWithKey: fn(
    [S, SLICE_ANY, SLICE_ANY, I, CERTIFICATE, S],
    CERTIFICATE,
    ([cn, ips, dns, d, ca, k], ctx) => {
      const issuer = issuerOf(ca);
      return makeCertificate({ cn: cn as string, ips, dns, days: num(d), isCA: false, key: parsedKey(k as string), issuer }, ctx);
    },
    { error: true },
  ),
  encryptAES: fn([S, S], S, ([p, t], ctx) => encryptAES(p as string, t as string, ctx), { error: true }),
  decryptAES: fn([S, S], S, ([p, c]) => decryptAES(p as string, c as string), { error: true }),
  derivePassword: fn([T.uint32, S, S, S, S], S, ([c, t, p, u, s]) => derivePassword(num(c), t as string, p as string, u as string, s as string)),
};
