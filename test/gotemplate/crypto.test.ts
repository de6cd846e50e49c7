import { X509Certificate, createPrivateKey, createPublicKey, verify } from "node:crypto";
import { compareSync, decodeBase64 } from "bcryptjs";
import { describe, expect, it } from "vitest";
import { bcrypt } from "../../src/gotemplate/crypto/bcrypt.js";
import { p256PrivateKey, signP256 } from "../../src/gotemplate/crypto/p256.js";
import { Template, callContext } from "../../src/gotemplate/index.js";
import { sprigFuncs } from "../../src/gotemplate/sprig/index.js";

/**
 * The sprig crypto primitives against published answers: bcrypt's test vectors and RFC 6979's
 * P-256 ones. Each expected value below is copied from the source named beside it, not from
 * this code's output.
 */

const funcs = sprigFuncs();
const render = (template: string, seed?: number) => new Template("t").funcs(funcs).parse(template).execute(null, callContext({ seed }));
const saltOf = (hash: string) => Uint8Array.from(decodeBase64(hash.slice(7, 29), 16));
const costOf = (hash: string) => Number(hash.slice(4, 6));

describe("bcrypt (bcryptjs, in golang.org/x/crypto/bcrypt's $2a$ form)", () => {
  // Openwall crypt_blowfish's wrapper.c vectors (also in PHP's and John the Ripper's suites); the
  // ones with non-ASCII bytes are left out: a template's string is UTF-8, and those are not
  const OPENWALL: [string, string][] = [
    ["U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"],
    ["U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"],
    ["U*U*U", "$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a"],
    ["", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"],
    // openwall.info/wiki/john/sample-hashes
    ["password", "$2a$05$bvIG6Nmid91Mu9RcmmWZfO5HJIMCT8riNW0hEp8f6/FuA2/mHZFpe"],
  ];
  // jBCrypt's TestBCrypt.java (Damien Miller), the costs up to 10
  const JBCRYPT: [string, string][] = [
    ["", "$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s."],
    ["", "$2a$08$HqWuK6/Ng6sg9gQzbLrgb.Tl.ZHfXLhvt/SgVyWhQqgqcZ7ZuUtye"],
    ["", "$2a$10$k1wbIrmNyFAPwPVPSVa/zecw2BCEnBwVS2GbrmgzxFUOqW9dk4TCW"],
    ["a", "$2a$06$m0CrhHm10qJ3lXRY.5zDGO3rS2KdeeWLuGmsfGlMfOxih58VYVfxe"],
    ["a", "$2a$08$cfcvVd2aQ8CMvoMpP2EBfeodLEkkFJ9umNEfPD18.hUF62qqlC/V."],
    ["a", "$2a$10$k87L/MF28Q673VKh8/cPi.SUl7MU/rWuSiIDDFayrKk/1tBsSQu4u"],
    ["abc", "$2a$06$If6bvum7DFjUnE9p2uDeDu0YHzrHM6tf.iqN8.yx.jNN1ILEf7h0i"],
    ["abc", "$2a$08$Ro0CUfOqk6cXEKf3dyaM7OhSCvnwM9s4wIX9JeLapehKK5YdLxKcm"],
    ["abc", "$2a$10$WvvTPHKwdBJ3uk0Z37EMR.hLA2W6N9AEBhEgrAOljy2Ae5MtaSIUi"],
    ["abcdefghijklmnopqrstuvwxyz", "$2a$06$.rCVZVOThsIa97pEDOxvGuRRgzG64bvtJ0938xuqzv18d3ZpQhstC"],
    ["abcdefghijklmnopqrstuvwxyz", "$2a$08$aTsUwsyowQuzRrDqFflhgekJ8d9/7Z3GV3UcgvzQW3J5zMyrTvlz."],
    ["abcdefghijklmnopqrstuvwxyz", "$2a$10$fVH8e28OQRj9tqiDXs1e1uxpsjN0c7II7YPKXua2NAKYvM6iQk7dq"],
    ["~!@#$%^&*()      ~!@#$%^&*()PNBFRD", "$2a$06$fPIsBO8qRqkjj273rfaOI.HtSV9jLDpTbZn782DC6/t7qT67P6FfO"],
    ["~!@#$%^&*()      ~!@#$%^&*()PNBFRD", "$2a$08$Eq2r4G/76Wv39MzSX262huzPz612MZiYHVUJe/OcOql2jo4.9UxTW"],
    ["~!@#$%^&*()      ~!@#$%^&*()PNBFRD", "$2a$10$LgfYWkbzEvQ4JakH7rOvHe0y8pHKF9OaFgwUZ2q7W2FFZmZzJYlfS"],
  ];
  // UTF-8 input: the vector from stackoverflow.com/a/12761326 (in BouncyCastle's and favre's bcrypt suites)
  const UTF8: [string, string][] = [["ππππππππ", "$2a$10$.TtQJ4Jr6isd4Hp.mVfZeuh6Gws4rOQ/vdBczhDx.19NFK0Y84Dle"]];

  for (const [password, hash] of [...OPENWALL, ...JBCRYPT, ...UTF8]) {
    it(`${JSON.stringify(password)} with salt ${hash.slice(0, 29)}`, () => {
      expect(bcrypt(password, saltOf(hash), costOf(hash))).toBe(hash);
      expect(compareSync(password, hash)).toBe(true);
    });
  }

  it("golang.org/x/crypto/bcrypt's own answers (TestBcryptingIsCorrect, TestTooLongPasswordsWork): salt bytes in, $2a$10$ out", () => {
    const salt = Uint8Array.from([101, 201, 101, 75, 19, 227, 199, 20, 239, 236, 133, 32, 30, 109, 243, 30]);
    expect(bcrypt("allmine", salt)).toBe("$2a$10$XajjQvNhvvRt5GSeFk1xFeyqRrsxkhBkUiQeg0dt.wU1qD4aFDcga");
    expect(bcrypt("012345678901234567890123456789012345678901234567890123456", salt)).toBe("$2a$10$XajjQvNhvvRt5GSeFk1xFe5l47dONXg781AmZtd869sO8zfsHuw7C");
  });

  it("refuses more than 72 bytes as Go's GenerateFromPassword does; Openwall's vector past 72 is its first 72 bytes' hash", () => {
    const long = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored";
    const hash = "$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui";
    expect(() => bcrypt(long, saltOf(hash), 5)).toThrow("bcrypt: password length exceeds 72 bytes");
    expect(bcrypt(long.slice(0, 72), saltOf(hash), 5)).toBe(hash);
    // bytes, not characters: 37 two-byte characters are 74 bytes
    expect(() => bcrypt("ü".repeat(37), saltOf(hash), 5)).toThrow("exceeds 72 bytes");
  });

  it("sprig's bcrypt and htpasswd: $2a$10$ hashes that bcryptjs verifies, Go's message past 72 bytes", () => {
    const [a, b, h] = render(`{{ bcrypt "abc" }}|{{ bcrypt "päss wörd" }}|{{ htpasswd "user" "secret" }}`).split("|");
    for (const hash of [a, b, h.slice("user:".length)]) expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(compareSync("abc", a)).toBe(true);
    expect(compareSync("abd", a)).toBe(false);
    expect(compareSync("päss wörd", b)).toBe(true);
    expect(h.startsWith("user:")).toBe(true);
    expect(compareSync("secret", h.slice(5))).toBe(true);
    expect(a.slice(7, 29)).not.toBe(b.slice(7, 29));
    expect(render(`{{ bcrypt (repeat 73 "x") }}`)).toBe("failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes");
    expect(compareSync("x".repeat(72), render(`{{ bcrypt (repeat 72 "x") }}`))).toBe(true);
  });

  it("the salt comes from the execution's seeded generator: the same seed, the same hash", () => {
    const t = `{{ bcrypt "abc" }}`;
    expect(render(t, 7)).toBe(render(t, 7));
    expect(render(t, 7)).not.toBe(render(t, 8));
  });
});

describe("ECDSA P-256 (@noble/curves), RFC 6979 A.2.5", () => {
  const X = "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721";
  const UX = "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6";
  const UY = "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299";
  const SHA256: Record<string, { r: string; s: string }> = {
    sample: { r: "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716", s: "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8" },
    test: { r: "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367", s: "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083" },
  };
  const d = Buffer.from(X, "hex");
  /** A DER INTEGER of a positive 32-byte value, by hand (a leading zero when the top bit is set). */
  const derInt = (hex: string) => {
    const v = hex.replace(/^(00)+/, "").toLowerCase();
    const body = parseInt(v.slice(0, 2), 16) & 0x80 ? "00" + v : v;
    return "02" + (body.length / 2).toString(16).padStart(2, "0") + body;
  };
  const derSig = (r: string, s: string) => {
    const body = derInt(r) + derInt(s);
    return "30" + (body.length / 2).toString(16).padStart(2, "0") + body;
  };

  it("the key: public point U = xG", () => {
    const jwk = createPublicKey(p256PrivateKey(d)).export({ format: "jwk" });
    expect(Buffer.from(jwk.x!, "base64url").toString("hex").toUpperCase()).toBe(UX);
    expect(Buffer.from(jwk.y!, "base64url").toString("hex").toUpperCase()).toBe(UY);
  });

  it("the key as Go's x509.MarshalECPrivateKey writes it (SEC 1: version 1, 32-byte scalar, namedCurve P-256, uncompressed point)", () => {
    const sec1 = p256PrivateKey(d).export({ type: "sec1", format: "der" }).toString("hex").toUpperCase();
    expect(sec1).toBe(`30770201010420${X}A00A06082A8648CE3D030107A14403420004${UX}${UY}`);
  });

  for (const [message, { r, s }] of Object.entries(SHA256)) {
    it(`with SHA-256, message "${message}": r and s as published, DER-encoded as Go's ecdsa.SignASN1`, () => {
      const sig = signP256(Buffer.from(message), d);
      expect(sig.toString("hex")).toBe(derSig(r, s).toLowerCase());
      expect(verify("sha256", Buffer.from(message), { key: createPublicKey(p256PrivateKey(d)), dsaEncoding: "der" }, sig)).toBe(true);
    });
  }

  it("a hedged signature (entropy from the seeded stream) is another valid one, the same for the same entropy", () => {
    const pub = createPublicKey(p256PrivateKey(d));
    const message = Buffer.from("sample");
    const entropy = Buffer.alloc(32, 7);
    const sig = signP256(message, d, entropy);
    expect(sig.equals(signP256(message, d, entropy))).toBe(true);
    expect(sig.equals(signP256(message, d))).toBe(false);
    expect(sig.equals(signP256(message, d, Buffer.alloc(32, 8)))).toBe(false);
    expect(verify("sha256", message, { key: pub, dsaEncoding: "der" }, sig)).toBe(true);
    expect(verify("sha256", Buffer.from("other"), { key: pub, dsaEncoding: "der" }, sig)).toBe(false);
  });
});

describe("sprig's ECDSA keys and certificates", () => {
  it('genPrivateKey "ecdsa": an "EC PRIVATE KEY" PEM that Node parses, in MarshalECPrivateKey\'s layout, the same for the same seed', () => {
    const pem = render(`{{ genPrivateKey "ecdsa" }}`);
    expect(pem).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END EC PRIVATE KEY-----\n$/);
    const key = createPrivateKey(pem);
    expect(key.asymmetricKeyType).toBe("ec");
    expect(key.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const jwk = key.export({ format: "jwk" });
    const hex = (v: string | undefined) => Buffer.from(v!, "base64url").toString("hex");
    const body = Buffer.from(pem.split("\n").slice(1, -2).join(""), "base64").toString("hex");
    expect(body).toBe(`30770201010420${hex(jwk.d)}a00a06082a8648ce3d030107a14403420004${hex(jwk.x)}${hex(jwk.y)}`);
    expect(render(`{{ genPrivateKey "ecdsa" }}`)).toBe(pem);
    expect(render(`{{ genPrivateKey "ecdsa" }}`, 2)).not.toBe(pem);
  });

  it("a key's signature made by the code verifies with node:crypto", () => {
    const key = createPrivateKey(render(`{{ genPrivateKey "ecdsa" }}`));
    const d = Buffer.from(key.export({ format: "jwk" }).d!, "base64url");
    const message = Buffer.from("a message");
    expect(verify("sha256", message, { key: createPublicKey(key), dsaEncoding: "der" }, signP256(message, d, Buffer.alloc(32)))).toBe(true);
  });

  const ECDSA_WITH_SHA256 = "300a06082a8648ce3d040302";
  const count = (hay: Buffer, needle: string) => hay.toString("hex").split(needle).length - 1;

  it("certificates signed with ECDSA keys: ecdsa-with-SHA256, verified by Node, the same on every render", () => {
    const template = [
      `{{- $ca := genPrivateKey "ecdsa" | genCAWithKey "foo" 365 }}`,
      `{{- $cert := genPrivateKey "ecdsa" | genSignedCertWithKey "foo.com" (list "10.0.0.1") (list "bar.com") 365 $ca }}`,
      `{{- $self := genPrivateKey "ecdsa" | genSelfSignedCertWithKey "self.com" nil nil 30 }}`,
      `{{ $ca.Cert }}|{{ $cert.Cert }}|{{ $self.Cert }}`,
    ].join("");
    const out = render(template);
    const [ca, leaf, self] = out.split("|").map((pem) => new X509Certificate(pem));
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(self.publicKey)).toBe(false);
    expect(self.verify(self.publicKey)).toBe(true);
    // the algorithm in the TBS and beside the signature, with no parameters (RFC 5758 3.2)
    for (const c of [ca, leaf, self]) expect(count(c.raw, ECDSA_WITH_SHA256)).toBe(2);
    expect(render(template)).toBe(out);
    expect(render(template, 5)).not.toBe(out);
  });

  it("an ECDSA CA signs an Ed25519 leaf, and an Ed25519 CA an ECDSA leaf", () => {
    const out = render(
      [
        `{{- $ec := genPrivateKey "ecdsa" | genCAWithKey "ec" 365 }}`,
        `{{- $ed := genPrivateKey "ed25519" | genCAWithKey "ed" 365 }}`,
        `{{- $a := genPrivateKey "ed25519" | genSignedCertWithKey "a" nil nil 365 $ec }}`,
        `{{- $b := genPrivateKey "ecdsa" | genSignedCertWithKey "b" nil nil 365 $ed }}`,
        `{{ $ec.Cert }}|{{ $ed.Cert }}|{{ $a.Cert }}|{{ $b.Cert }}`,
      ].join(""),
    );
    const [ec, ed, a, b] = out.split("|").map((pem) => new X509Certificate(pem));
    expect(a.verify(ec.publicKey)).toBe(true);
    expect(b.verify(ed.publicKey)).toBe(true);
    expect(count(a.raw, ECDSA_WITH_SHA256)).toBe(2);
    expect(count(b.raw, ECDSA_WITH_SHA256)).toBe(0);
  });
});
