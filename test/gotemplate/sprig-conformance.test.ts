import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { compareSync } from "bcryptjs";
import { DEFAULT_NOW, Template, type Value } from "../../src/gotemplate/index.js";
import { timeValue } from "../../src/gotemplate/timevalue.js";
import { UTC } from "../../src/go/time.js";
import { sprigFuncs } from "../../src/gotemplate/sprig/index.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";

/** sprig v3.3.0's template tests, run through the engine with the function map function-go-templating registers. */

interface Case {
  name: string;
  template: string;
  vars: Value;
  want: string | null;
  wantErr?: boolean;
  wantErrContains?: string;
  nondeterministic?: boolean;
  goOnly?: boolean;
  goOnlyReason?: string;
  excludedInGoTemplating?: boolean;
  check?: string;
}

function certificate(out: string): X509Certificate {
  return new X509Certificate(out.trim());
}

function expectSelfSigned(out: string): void {
  const c = certificate(out);
  expect(c.subject).toBe("CN=foo.com");
  expect(c.ca).toBe(false);
  expect(c.subjectAltName).toBe("DNS:bar.com, DNS:bat.com, IP Address:10.0.0.1, IP Address:10.0.0.2");
  expect(BigInt("0x" + c.serialNumber)).toBeGreaterThan(0n);
}

/** What a nondeterministic case's Go test asserts, checked on this engine's (seeded) output. */
const CHECKS: Record<string, (out: string, c: Case) => void> = {
  TestRandomInt: (out, c) => {
    const [, min, max] = /randInt (\d+) (\d+)/.exec(c.template)!.map(Number);
    expect(Number(out)).toBeGreaterThanOrEqual(min);
    expect(Number(out)).toBeLessThan(max);
  },
  // "now" is the execution's clock: 2025-01-01T00:00:00Z unless the caller sets another
  TestDateInZone: (out) => expect(out).toBe("01 Jan 25 00:00 +0000"),
  TestHtpasswd: (out, c) => {
    const { Username, Password } = c.vars as { Username: string; Password: string };
    if (Username.includes(":")) return expect(out).toBe(`invalid username: ${Username}`);
    expect(out.startsWith(`${Username}:$2a$10$`)).toBe(true);
    const hash = out.slice(Username.length + 1);
    expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    // bcryptjs, not this engine, checks the hash
    expect(compareSync(Password, hash)).toBe(true);
    expect(compareSync(Password + "x", hash)).toBe(false);
  },
  TestBcrypt: (out) => {
    expect(out).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(compareSync("abc", out)).toBe(true);
    expect(compareSync("abd", out)).toBe(false);
  },
  TestGenPrivateKey: (out, c) => {
    // Go's test checks only the first; the others are checked here for the key each type makes
    const pem = c.template.includes("b64enc") ? Buffer.from(out, "base64").toString("utf8") : out;
    const block = /^-----BEGIN ([A-Z ]+)-----\n/.exec(pem)?.[1];
    const type = /genPrivateKey "(\w*)"/.exec(c.template)![1];
    if (type === "bad") return expect(out).toBe("Unknown type bad");
    const want: Record<string, [string, string | undefined]> = {
      "": ["RSA PRIVATE KEY", "rsa"],
      rsa: ["RSA PRIVATE KEY", "rsa"],
      dsa: ["DSA PRIVATE KEY", undefined],
      ecdsa: ["EC PRIVATE KEY", "ec"],
      ed25519: ["PRIVATE KEY", "ed25519"],
    };
    expect(block).toBe(want[type][0]);
    // Node cannot import a DSA private key; the others must parse as the type asked for
    if (want[type][1]) expect(createPrivateKey(pem).asymmetricKeyType).toBe(want[type][1]);
  },
  TestBuildCustomCert: (out, c) => {
    const embedded = Buffer.from(/buildCustomCert "([^"]+)"/.exec(c.template)![1], "base64").toString("utf8");
    if (c.name === "TestBuildCustomCert/1") expect(out).toBe(embedded);
    else expect(out).not.toBe(embedded);
  },
  TestGenCA: (out) => {
    expect(certificate(out).subject).toBe("CN=foo-ca");
    expect(certificate(out).ca).toBe(true);
  },
  TestGenCAWithKey: (out) => {
    const c = certificate(out);
    expect(c.subject).toBe("CN=foo-ca");
    expect(c.ca).toBe(true);
    // self-signed with the given (ECDSA or Ed25519) key: Node checks the signature
    expect(c.verify(c.publicKey)).toBe(true);
  },
  TestGenSelfSignedCert: expectSelfSigned,
  TestGenSelfSignedCertWithKey: expectSelfSigned,
  TestGenSignedCert: (out) => {
    const c = certificate(out);
    expect(c.issuer).toBe("CN=foo");
    expect(c.subject).toBe("CN=foo.com");
    expect(c.subjectAltName).toBe("DNS:bar.com, DNS:bat.com, IP Address:10.0.0.1, IP Address:10.0.0.2");
  },
  TestGenSignedCertWithKey: (out) => {
    const c = certificate(out);
    expect(c.issuer).toBe("CN=foo");
    expect(c.subjectAltName).toBe("DNS:bar.com, DNS:bat.com, IP Address:10.0.0.1, IP Address:10.0.0.2");
  },
  TestRandomString: (out) => expect([...out]).toHaveLength(5),
  TestUUIDGeneration: (out) => expect(out).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
  TestRandBytes: (out) => expect(Buffer.from(out, "base64")).toHaveLength(12),
  TestShuffle: (out) => expect([...out].sort().join("")).toBe([..."Hello World"].sort().join("")),
};

/** Cases this engine does not run, with the reason (listed in docs/gotemplate.md). */
const SKIPPED: Record<string, string> = {
  "TestEnv/1": "env is not in function-go-templating's map (excludedInGoTemplating)",
  "TestExpandEnv/1": "expandenv is not in function-go-templating's map (excludedInGoTemplating)",
  "TestGetHostByName/1": "needs DNS; a local render has no network (getHostByName fails with a message saying so)",
};

const at = (ms: number): Value => timeValue({ sec: Math.floor(ms / 1000), nsec: (ms % 1000) * 1e6, zone: UTC });
const JUNE_2019 = Date.UTC(2019, 5, 13, 20, 39, 39);

/**
 * goOnly cases whose Go values this engine has: time.Time (relative to the execution's clock for
 * `ago`) and the fields of a struct. Their expected outputs are Go's.
 */
const GO_VARS: Record<string, Value> = {
  "TestUnixEpoch/1": { Time: at(JUNE_2019) },
  "TestDateInZone/1": { Time: at(JUNE_2019) },
  "TestDateInZone/2": { Time: at(JUNE_2019) },
  "TestDateInZone/7": { Time: at(JUNE_2019) },
  "TestAgo/1": { Time: at(DEFAULT_NOW - 125_000) },
  "TestAgo/2": { Time: at(DEFAULT_NOW - (2 * 3600 + 34 * 60 + 17) * 1000) },
  "TestAgo/3": { Time: at(DEFAULT_NOW + 5_000) },
  "TestHtpasswd/1": { Username: "myUser", Password: "myPassword" },
  "TestHtpasswd/2": { Username: "special'o79Cv_*qFe,)<user", Password: "special<j7+3p#6-.Jx2U:m8G;kGypassword" },
  "TestHtpasswd/3": { Username: "wrongus:er", Password: "doesn'tmatter" },
};

const cases: Case[] = HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(SHARED, "conformance/go-template-engine/sprig.json"), "utf8")) : [];

const funcs = sprigFuncs();

function run(c: Case): string {
  return new Template("test").funcs(funcs).parse(c.template).execute(c.vars);
}

describeShared("sprig v3.3.0 template tests (../shared/conformance/go-template-engine/sprig.json)", () => {
  for (const c of cases) {
    const test = c.name.split("/")[0];
    if (GO_VARS[c.name] !== undefined) c.vars = GO_VARS[c.name];
    const skip = c.goOnly && GO_VARS[c.name] === undefined ? `goOnly: ${c.goOnlyReason}` : SKIPPED[c.name];
    if (skip) {
      it.skip(`${c.name} (${skip})`, () => {});
      continue;
    }
    if (c.nondeterministic && !CHECKS[test] && GO_VARS[c.name] === undefined) {
      it.skip(`${c.name} (nondeterministic, not checked yet: ${c.check})`, () => {});
      continue;
    }
    it(c.name, () => {
      if (c.wantErr) {
        expect(() => run(c)).toThrow(c.wantErrContains ?? "");
        return;
      }
      if (c.name === "TestBuildCustomCert/2") {
        // "fail" is no PEM: sprig returns this error (Go's test ignores it and sees an empty output)
        expect(() => run(c)).toThrow("unable to decode certificate");
        return;
      }
      const out = run(c);
      if (c.nondeterministic && (c.want === null || GO_VARS[c.name] === undefined)) CHECKS[test](out, c);
      else expect(out).toBe(c.want);
    });
  }
});
