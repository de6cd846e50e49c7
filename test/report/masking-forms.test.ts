import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { runCli, tempRepo } from "../helpers.js";
import { maskValue, SecretMasker } from "../../src/secrets/mask.js";

/**
 * Every form the tool itself may print a secret in: glued to a prefix or a suffix, inside base64
 * of a longer text (HTTP basic auth), base64 twice, percent-encoded, JSON- and YAML-escaped,
 * truncated, trimmed. The decoded value is what is masked, wherever and however it shows; ordinary
 * words and short values stay visible inside other words.
 */

const b64 = (s: string) => Buffer.from(s).toString("base64");
const b64url = (s: string) => Buffer.from(s).toString("base64url");
const MASK = /<masked sha256:[0-9a-f]{8}>/;

function knowing(stringData: Record<string, string>): SecretMasker {
  const masker = new SecretMasker();
  masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "default" }, stringData });
  return masker;
}

function expectHidden(masker: SecretMasker, secret: string, text: string, pieces: string[] = [secret]): string {
  const out = masker.redact(text);
  for (const p of pieces) expect(out, `${JSON.stringify(p)} in ${out}`).not.toContain(p);
  expect(out).toMatch(MASK);
  return out;
}

describe("a secret glued to a prefix or a suffix", () => {
  const secret = "S3cr3t-Passw0rd";
  const masker = knowing({ password: secret });

  it("is masked inside a longer token (a Format `Bearer%s`, a URL's user info), the rest stays", () => {
    expect(masker.redact(`Authorization: Bearer${secret}`)).toBe(`Authorization: Bearer${maskValue(secret)}`);
    expect(masker.redact(`postgres://app:${secret}@db.internal:5432/orders`)).toBe(`postgres://app:${maskValue(secret)}@db.internal:5432/orders`);
    expect(masker.redact(`x${secret}y and ${secret}_suffix`)).toBe(`x${maskValue(secret)}y and ${maskValue(secret)}_suffix`);
    expectHidden(masker, secret, `TOKEN=${secret.toUpperCase()}X`, [secret.toUpperCase()]);
  });

  it("long or random values are hunted inside words; short ones and plain words only as whole tokens", () => {
    const m = knowing({ a: "hunter2", b: "changeme", c: "production", d: "aB3xY9", e: "12345678" });
    const text = "hunter2s changemenow productionDb xaB3xY9y 1234567890";
    expect(m.redact(text)).toBe(`hunter2s changemenow productionDb x${maskValue("aB3xY9")}y 1234567890`);
    // As whole tokens they are masked, as before.
    expect(m.redact("hunter2 changeme production 12345678")).toBe(["hunter2", "changeme", "production", "12345678"].map(maskValue).join(" "));
  });
});

describe("a secret encoded, escaped or cut", () => {
  it("base64 of a text holding it (HTTP basic auth), at every alignment, in both alphabets, is masked whole", () => {
    const secret = "S3cr3t-Passw0rd";
    const masker = knowing({ password: secret });
    for (const user of ["a", "ab", "abc", "admin", "user@example.org"]) {
      const basic = b64(`${user}:${secret}`);
      expect(masker.redact(`Authorization: Basic ${basic}`), user).toBe(`Authorization: Basic ${maskValue(secret)}`);
      const url = b64url(`${user}:${secret}?x`);
      expect(masker.redact(`"auth":"${url}"`), user).toBe(`"auth":"${maskValue(secret)}"`);
    }
    // The token around it is masked, not the parameter it is the value of.
    expect(masker.redact(`https://x.example.org/?auth=${b64(`u:${secret}`)}&next=1`)).toBe(`https://x.example.org/?auth=${maskValue(secret)}&next=1`);
    // A docker config's auth: base64 inside JSON inside base64.
    const dockerconfig = b64(JSON.stringify({ auths: { "ghcr.io": { username: "bot", password: secret, auth: b64(`bot:${secret}`) } } }));
    expect(masker.redact(`data: {.dockerconfigjson: ${dockerconfig}}`)).toBe(`data: {.dockerconfigjson: ${maskValue(secret)}}`);
  });

  it("base64 twice", () => {
    const secret = "S3cr3t-Passw0rd";
    const masker = knowing({ password: secret });
    expectHidden(masker, secret, `value: ${b64(b64(secret))}`, [b64(b64(secret)), b64(b64(secret)).replace(/=+$/, "")]);
    // A Secret's data is base64 already: its value, encoded once more by a transform.
    const fromData = new SecretMasker();
    fromData.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "d" }, data: { token: b64("ghp_Tok3nValue123") } });
    expectHidden(fromData, "ghp_Tok3nValue123", `encoded: ${b64(b64(b64("ghp_Tok3nValue123")))}`, [b64(b64(b64("ghp_Tok3nValue123")))]);
  });

  it("percent-encoded (encodeURIComponent, form encoding, lower-case hex)", () => {
    const secret = "p@ss/w0rd&más=1 ok";
    const masker = knowing({ password: secret });
    const forms = [
      encodeURIComponent(secret),
      new URLSearchParams({ p: secret }).toString().slice(2),
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    ];
    for (const form of forms) expectHidden(masker, secret, `https://db.example.org/?password=${form}&sslmode=require`, [form, "w0rd"]);
  });

  it("JSON- and YAML-escaped: quotes, backslashes, line breaks, control characters", () => {
    const secret = "pa\"ss\\w0rd's\nsecond-line";
    const masker = knowing({ password: secret });
    const json = JSON.stringify({ password: secret });
    expectHidden(masker, secret, `the object ${json} is invalid`, [JSON.stringify(secret).slice(1, -1), "w0rd"]);
    expectHidden(masker, secret, `sarif: ${JSON.stringify(json)}`, ["w0rd"]);
    const oneLine = "pa\"ss\\w0rd's-S3cr3t\t\u0001";
    const yamlMasker = knowing({ password: oneLine });
    for (const type of ["QUOTE_DOUBLE", "QUOTE_SINGLE", "PLAIN"] as const) {
      const yaml = YAML.stringify({ password: oneLine }, { defaultStringType: type, lineWidth: 0 });
      expect(yamlMasker.redact(yaml), `${type}: ${yaml}`).not.toContain("w0rd");
    }
  });

  it("cut by a message: a prefix of 16 characters or more is masked with all of it that shows", () => {
    const key = `sk_live_${crypto.createHash("sha256").update("k").digest("hex")}`;
    const masker = knowing({ apiKey: key });
    for (const shown of [16, 17, 30, 60]) {
      const out = masker.redact(`value "${key.slice(0, shown)}…" is too long`);
      expect(out, String(shown)).toBe(`value "${maskValue(key)}…" is too long`);
    }
    // JSON of a long value, cut at 200 characters as a test's differences show it.
    const pem = `-----BEGIN PRIVATE KEY-----\n${crypto
      .randomBytes(300)
      .toString("base64")
      .replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
    const withPem = knowing({ "tls.key": pem });
    const shown = JSON.stringify(pem).slice(0, 199);
    const out = withPem.redact(`data.tls\\.key: want ${shown}…, got "x"`);
    expect(out).not.toContain(JSON.stringify(pem).slice(40, 80));
    // Its base64, cut.
    expectHidden(withPem, pem, `data: ${b64(pem).slice(0, 120)}...`, [b64(pem).slice(20, 120)]);
    expect(masker.redact(`value ${key.slice(0, 20)}... cut`)).toBe(`value ${maskValue(key)}... cut`);
    // 15 characters are not enough to tell a secret from a coincidence.
    expect(masker.redact(`prefix ${key.slice(0, 15)}…`)).toBe(`prefix ${key.slice(0, 15)}…`);
    // Nor is a prefix that is not cut there: a Secret holding a kubeconfig does not hide every kubeconfig's first lines.
    const kubeconfig =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: https://k8s.internal}\nusers:\n- name: ci\n  user: {token: eyJhbGciOiJSUzI1NiIsImtpZCI6Ij}\n";
    const withKubeconfig = knowing({ kubeconfig });
    const yaml = "apiVersion: v1\nkind: Config\nclusters: []\n";
    expect(withKubeconfig.redact(yaml)).toBe(yaml);
    expect(withKubeconfig.redact(`${kubeconfig.slice(0, 40)}…`)).toBe(`${maskValue(kubeconfig)}…`);
  });

  it("trimmed: a Secret's value with a line break at its end (echo | base64) is masked without it", () => {
    const masker = new SecretMasker();
    masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { password: b64("S3cr3t-Passw0rd\n") } });
    masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "t" }, stringData: { token: "  ghp_Tok3nValue123  " } });
    expectHidden(masker, "S3cr3t-Passw0rd", 'password "S3cr3t-Passw0rd" is too short');
    expectHidden(masker, "ghp_Tok3nValue123", "token ghp_Tok3nValue123.");
    expect(masker.values()).toEqual(expect.arrayContaining(["S3cr3t-Passw0rd", "ghp_Tok3nValue123"]));
  });

  it("the lines of a multi-line secret (a key's body) are masked where a message shows one", () => {
    const body = crypto
      .randomBytes(96)
      .toString("base64")
      .match(/.{1,64}/g)!;
    const pem = `-----BEGIN PRIVATE KEY-----\n${body.join("\n")}\n-----END PRIVATE KEY-----\n`;
    const masker = knowing({ "tls.key": pem });
    const out = expectHidden(masker, pem, `line 2: ${body[1]}`, [body[1]!]);
    expect(masker.redact("-----BEGIN PRIVATE KEY----- is expected")).toBe("-----BEGIN PRIVATE KEY----- is expected");
    expect(out.startsWith("line 2: ")).toBe(true);
  });

  it("a base64 value of a Secret that decodes to an ordinary word does not hide that word", () => {
    const masker = new SecretMasker();
    masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { enabled: b64("true"), level: b64("error") } });
    expect(masker.values()).not.toContain("true");
    expect(masker.values()).not.toContain("error");
    expect(masker.redact("severity error: enabled is true")).toBe("severity error: enabled is true");
  });

  it("the log masks hold the encoded forms too, never ordinary words", () => {
    const secret = "p@ss/w0rd&más=1";
    const masker = knowing({ password: secret, enabled: "true" });
    expect(masker.values()).toEqual(expect.arrayContaining([secret, encodeURIComponent(secret), b64(secret), b64(b64(secret))]));
    expect(masker.values()).not.toContain("true");
  });
});

describe("what is masked, against a naive reference", () => {
  it("random secrets and texts: every occurrence the rules name is masked, and nothing else", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const alphabet = "xy1-Q"; // no escapes, no case changes that show, no base64 by chance
    const pick = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
    const unambiguous = (s: string) =>
      s.length >= 16 ||
      (s.length >= 8 && !/^(?:[A-Za-z]+|[0-9]+)$/.test(s)) ||
      (s.length >= 6 && s.split(/[._-]/).some((w) => /[0-9]/.test(w) && /[a-z]/.test(w) && /[A-Z]/.test(w)));
    for (let round = 0; round < 2000; round++) {
      const secrets = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(4 + Math.floor(random() * 20)));
      const masker = new SecretMasker();
      for (const s of secrets) masker.learnValue(s);
      let text = "";
      while (text.length < 150)
        text +=
          random() < 0.3 ? secrets[Math.floor(random() * secrets.length)]! : random() < 0.2 ? " " : random() < 0.05 ? "…" : pick(1 + Math.floor(random() * 4));
      // The reference: each occurrence of a secret (as a whole token, or anywhere when it is unambiguous), and each cut prefix of 16 characters or more.
      const covered = new Uint8Array(text.length);
      const cover = (at: number, length: number) => covered.fill(1, at, at + length);
      for (const s of secrets) {
        const inside = unambiguous(s);
        for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + 1)) {
          const whole = (!isWord(s[0]) || !isWord(text[i - 1])) && (!isWord(s[s.length - 1]) || !isWord(text[i + s.length]));
          if (inside || whole) cover(i, s.length);
        }
        if (inside)
          for (let n = 16; n < s.length; n++) for (let i = text.indexOf(`${s.slice(0, n)}…`); i >= 0; i = text.indexOf(`${s.slice(0, n)}…`, i + 1)) cover(i, n);
      }
      let expected = "";
      for (let i = 0; i < text.length; i++) expected += covered[i] ? (covered[i - 1] ? "" : "<masked>") : text[i];
      const got = masker.redactAlike(text).replace(/(?:<masked>)+/g, "<masked>");
      expect(got, JSON.stringify({ secrets, text })).toBe(expected);
    }
  });
});

describe("redaction stays linear", () => {
  it("1 MB of text with 1,000 secrets (each in every form) is redacted in well under 2 s; hostile texts too", () => {
    const masker = new SecretMasker();
    const secrets: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const s = `${crypto.randomBytes(12).toString("base64url")}-${i}`;
      secrets.push(s);
      masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: `s${i}` }, data: { password: b64(s) } });
    }
    // A longish secret made of one letter, and one of a repeated pair: the worst for naive matching.
    masker.learnValue("a".repeat(2000));
    masker.learnValue("ab".repeat(1000) + "c");
    const words = ["the", "rendered", "object", "spec.forProvider", "eu-west-1", "hunter", "ZZZZ", "aaaaaaaaaaaaaaaaaaaaaaa"];
    let text = "";
    for (let k = 0; text.length < 1_000_000; k++) {
      text += `${words[k % words.length]}${k % 50 === 0 ? ` ${secrets[k % 1000]} Basic ${b64(`u:${secrets[(k + 1) % 1000]}`)}` : ""}${k % 7 === 0 ? "\n" : " "}`;
    }
    const hostile = [
      text,
      "a".repeat(1_000_000),
      "ab".repeat(500_000),
      crypto.randomBytes(750_000).toString("base64"),
      secrets[0]!.slice(0, 17).repeat(60_000),
    ];
    masker.redact("warm up");
    for (const t of hostile) {
      const started = performance.now();
      const out = masker.redact(t);
      const ms = performance.now() - started;
      expect(ms, `${t.slice(0, 20)}…: ${ms.toFixed(0)} ms`).toBeLessThan(2000);
      if (t === text) for (const s of secrets.slice(0, 50)) expect(out).not.toContain(s);
    }
  });
});

describe("the report's structural fields are never redacted", () => {
  const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: postgresqlinstances.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: PostgreSQLInstance, plural: postgresqlinstances}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "size(self.password) > 40"
                  messageExpression: "'password ' + self.password + ' is too short'"
              properties:
                password: {type: string}
`;

  it("a Secret holding a file name, a kind, a name, an apiVersion, a rule, a severity and a path masks none of those fields", async () => {
    const structural = {
      file: "orders-database.yaml",
      kind: "PostgreSQLInstance",
      name: "orders-primary-db",
      apiVersion: "example.org/v1",
      rule: "schema/cel",
      severity: "error",
      path: "spec",
    };
    const secret = `apiVersion: v1\nkind: Secret\nmetadata: {name: look-alikes, namespace: default}\nstringData:\n${Object.entries(structural)
      .map(([k, v]) => `  ${k}: ${v}\n`)
      .join("")}`;
    const dir = tempRepo({
      "crd.yaml": CRD,
      "secret.yaml": secret,
      "orders-database.yaml":
        "apiVersion: example.org/v1\nkind: PostgreSQLInstance\nmetadata: {name: orders-primary-db, namespace: default}\nspec: {password: correct-horse-battery-staple}\n",
    });
    const { stdout } = await runCli(["validate", ".", "--no-cache", "--format", "json"], dir);
    const report = JSON.parse(stdout) as { findings: Record<string, unknown>[] };
    const cel = report.findings.find((f) => f.file === "orders-database.yaml" && f.kind === "PostgreSQLInstance");
    expect(cel, stdout).toMatchObject({
      severity: "error",
      rule: "schema/cel",
      file: "orders-database.yaml",
      kind: "PostgreSQLInstance",
      name: "orders-primary-db",
      apiVersion: "example.org/v1",
      path: "spec",
    });
    expect(cel!.message).toContain("is too short");
    expect(stdout).not.toContain("correct-horse-battery-staple");
    const sarif = (await runCli(["validate", ".", "--no-cache", "--format", "sarif"], dir)).stdout;
    expect(sarif).toContain('"uri": "orders-database.yaml"');
    expect(sarif).not.toContain("correct-horse-battery-staple");
  });
});
