import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSecretField, isSecretFieldName, maskFindings, maskValue, SecretMasker } from "../../src/secrets/mask.js";
import { gitRepo, REPO, runCli, tempRepo } from "../helpers.js";

/**
 * The masking corpus: values that are secret by what they are must never appear in any output,
 * in any form; ordinary words, key names, regions, namespaces and references must stay visible.
 */

const SECRETS = ["hunter2-db-password", "ghp_tokenvalue123", "client-secret-456", "-----BEGIN KEY-----abc", "s3cret-from-data", "conn-detail-value"];
const b64 = (s: string) => Buffer.from(s).toString("base64");
const b64url = (s: string) => Buffer.from(s).toString("base64url");

const corpus = [
  {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "db", namespace: "crossplane-system" },
    data: { password: b64("s3cret-from-data") },
    stringData: { token: "ghp_tokenvalue123" },
  },
  {
    apiVersion: "example.org/v1",
    kind: "XDatabase",
    metadata: { name: "orders", namespace: "crossplane-system" },
    spec: {
      region: "eu-west-1",
      password: "hunter2-db-password",
      clientSecret: "client-secret-456",
      privateKey: "-----BEGIN KEY-----abc",
      passwordSecretRef: { name: "db-pass", namespace: "crossplane-system", key: "password" },
      writeConnectionSecretToRef: { name: "orders-conn", namespace: "crossplane-system" },
      tags: [
        { key: "Name", value: "orders" },
        { key: "region", value: "eu-west-1" },
      ],
      secretName: "tls-cert",
      tokenSecretRef: { name: "api-token", key: "token" },
      // Which key of a Secret holds the value: names, not values.
      clientSecretKey: "client_secret",
      passwordSecretKey: "password",
    },
  },
  {
    apiVersion: "apiextensions.crossplane.io/v1",
    kind: "Composition",
    metadata: { name: "xdatabases" },
    spec: {
      resources: [
        {
          name: "db",
          connectionDetails: [{ fromConnectionSecretKey: "region" }, { name: "password", fromConnectionSecretKey: "password" }],
          patches: [{ fromFieldPath: "spec.region", toFieldPath: "status.region" }],
        },
      ],
    },
  },
];

const ORDINARY = [
  "eu-west-1",
  "crossplane-system",
  "db-pass",
  "orders-conn",
  "Name",
  "region",
  "password",
  "tls-cert",
  "api-token",
  "token",
  "status.region",
  "orders",
  "db",
];

function learned(): SecretMasker {
  const masker = new SecretMasker();
  for (const o of corpus) masker.learn(o);
  masker.learnConnectionDetails({ url: new TextEncoder().encode("conn-detail-value") });
  return masker;
}

const forms = (s: string) => [s, b64(s), b64(s).replace(/=+$/, ""), b64url(s)];

describe("masking: by what a value is, not by what a word looks like", () => {
  it("no secret value, raw or base64 or base64url, survives in masked objects or redacted text", () => {
    const masker = learned();
    const masked = JSON.stringify(corpus.map((o) => masker.maskObject(o)));
    const derived = {
      apiVersion: "v1",
      kind: "ConfigMap",
      data: { copied: b64("hunter2-db-password"), url: b64url("client-secret-456"), detail: "conn-detail-value" },
    };
    const text = [
      masked,
      JSON.stringify(masker.maskObject(derived)),
      masker.redact(`password=hunter2-db-password token ${b64("ghp_tokenvalue123")} ${b64url("s3cret-from-data")}`),
    ].join("\n");
    for (const s of SECRETS) for (const f of forms(s)) expect(text, f).not.toContain(f);
  });

  it("ordinary words, key names, regions, namespaces and references stay visible", () => {
    const masker = learned();
    const masked = JSON.stringify(corpus.map((o) => masker.maskObject(o)));
    for (const word of ORDINARY) expect(masked, word).toContain(`"${word}"`);
    const message = 'toFieldPath "status.region" of ConfigMap in crossplane-system: fromConnectionSecretKey region, key password';
    expect(masker.redact(message)).toBe(message);
  });

  it("field names: what holds a value, and what names or points at one", () => {
    for (const name of [
      "password",
      "secretKey",
      "secretAccessKey",
      "clientSecret",
      "apiToken",
      "privateKey",
      "db_password",
      "awsSecretKey",
      "passwordSecretKey",
    ])
      expect(isSecretFieldName(name), name).toBe(true);
    for (const name of ["fromConnectionSecretKey", "toFieldPath", "passwordSecretRef", "secretName", "key", "tokenSecretRef"])
      expect(isSecretFieldName(name), name).toBe(false);
  });

  it("a *SecretKey value that looks like a key name is that name, not masked; any other is masked at its field, in free text and the log", () => {
    const masker = new SecretMasker();
    const spec = {
      passwordSecretKey: "password",
      clientSecretKey: "client_secret",
      mirageSecretKey: "mirage_secret_key",
      awsSecretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      s3SecretKey: "aB3xY9qZk2Lm",
    };
    masker.learn({ apiVersion: "example.org/v1", kind: "XStore", metadata: { name: "s" }, spec });
    const masked = masker.maskObject({ spec }) as { spec: Record<string, string> };
    for (const key of ["awsSecretKey", "s3SecretKey"]) expect(masked.spec[key], key).toMatch(/^<masked sha256:[0-9a-f]{8}>$/);
    expect(masked.spec.passwordSecretKey).toBe("password");
    expect(masked.spec.clientSecretKey).toBe("client_secret");
    const masks = masker.values();
    expect(masks).toContain("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    expect(masks).toContain("aB3xY9qZk2Lm");
    for (const word of ["password", "client_secret", "mirage_secret_key"]) expect(masks, word).not.toContain(word);
    expect(masker.redact("key client_secret of secret oncall; aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toMatch(
      /^key client_secret of secret oncall; aws <masked sha256:[0-9a-f]{8}>$/,
    );
  });

  it("Helm's names of Secrets, booleans and templates are not secrets; a client secret is one, whatever it looks like", () => {
    const masker = new SecretMasker();
    const values = {
      existingSecret: "grafana-oncall",
      existingSecretAdminPassword: "harbor-admin-password",
      githubConfigSecret: "gha-runner-scale-set",
      automountServiceAccountToken: false,
      OPENAI_API_KEY: "{{ .openwebui_apikey }}",
      clientSecret: "client-secret-456",
      webhookSecret: "3f8a9c2b7e1d4a6f9b0c",
    };
    masker.learn({ apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name: "oncall" }, spec: { values } });
    expect(masker.values()).toEqual(expect.arrayContaining(["3f8a9c2b7e1d4a6f9b0c", "client-secret-456"]));
    for (const word of ["grafana-oncall", "harbor-admin-password", "gha-runner-scale-set", "false", "{{ .openwebui_apikey }}"])
      expect(masker.values(), word).not.toContain(word);
    const masked = masker.maskObject({ values }) as { values: Record<string, unknown> };
    expect(masked.values.existingSecret).toBe("grafana-oncall");
    expect(masked.values.automountServiceAccountToken).toBe(false);
    expect(masked.values.OPENAI_API_KEY).toBe("{{ .openwebui_apikey }}");
    expect(masked.values.githubConfigSecret).toBe("gha-runner-scale-set"); // the name of a Secret
    expect(masker.redact("runners use gha-runner-scale-set")).toBe("runners use gha-runner-scale-set");
  });

  it("a Secret's connection entries (username, database, port) are masked at their field only; a password in upper or lower case everywhere", () => {
    const masker = new SecretMasker();
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db-conn", namespace: "default" },
      stringData: { username: "postgres", database: "default", port: "5432", password: "Hunter2CorrectHorse" },
    };
    masker.learn(secret);
    const masked = masker.maskObject(secret) as { stringData: Record<string, string> };
    for (const key of Object.keys(secret.stringData)) expect(masked.stringData[key], key).toMatch(/^<masked sha256:[0-9a-f]{8}>$/);
    const masks = masker.values();
    for (const word of ["postgres", "default", "5432"]) expect(masks, word).not.toContain(word);
    expect(masks).toEqual(expect.arrayContaining(["Hunter2CorrectHorse", "HUNTER2CORRECTHORSE", "hunter2correcthorse"]));
    expect(masker.redact("examples/postgres.yaml: `data.postgres` must be a string, not an integer (5432)")).toBe(
      "examples/postgres.yaml: `data.postgres` must be a string, not an integer (5432)",
    );
    expect(masker.redact("upper: HUNTER2CORRECTHORSE")).toBe(`upper: ${masker.redact("Hunter2CorrectHorse")}`);
  });

  it("with COMPOSITION_CI_MASK_KEY, a mask is an HMAC under it: stable, and no help to whoever guesses the secret", async () => {
    const { maskValue } = await import("../../src/secrets/mask.js");
    const guess = "hunter2";
    const plain = maskValue(guess);
    expect(plain).toBe(`<masked sha256:${crypto.createHash("sha256").update(guess).digest("hex").slice(0, 8)}>`);
    const saved = process.env.COMPOSITION_CI_MASK_KEY;
    process.env.COMPOSITION_CI_MASK_KEY = "a workflow secret";
    try {
      const keyed = maskValue(guess);
      expect(keyed).toMatch(/^<masked hmac:[0-9a-f]{8}>$/);
      expect(keyed).toBe(maskValue(guess));
      expect(keyed).not.toContain(plain.slice(15, 23));
      const masker = new SecretMasker();
      masker.learn({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { password: guess } });
      expect(masker.redact(`password ${guess}`)).toBe(`password ${keyed}`);
      expect(masker.maskObject({ spec: { password: keyed } })).toEqual({ spec: { password: keyed } }); // a mask is not masked again
    } finally {
      if (saved === undefined) delete process.env.COMPOSITION_CI_MASK_KEY;
      else process.env.COMPOSITION_CI_MASK_KEY = saved;
    }
  });

  it("External Secrets objects hold references only: their key names are not secrets", () => {
    const masker = new SecretMasker();
    const es = {
      apiVersion: "external-secrets.io/v1beta1",
      kind: "ExternalSecret",
      metadata: { name: "hook" },
      spec: { data: [{ secretKey: "token", remoteRef: { key: "runlore/webhook", property: "token" } }] },
    };
    masker.learn(es);
    expect(masker.values()).toEqual([]);
    expect(masker.maskObject(es)).toEqual(es);
  });

  it("a Secret inside another object (a provider-kubernetes Object's manifest, a List's items) is a Secret too", () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "app" },
      stringData: { answer: "wrapped-secret-value" },
      data: { other: b64("listed-secret-value") },
    };
    const object = { apiVersion: "kubernetes.crossplane.io/v1alpha2", kind: "Object", metadata: { name: "o" }, spec: { forProvider: { manifest: secret } } };
    const list = { apiVersion: "v1", kind: "List", items: [secret] };
    for (const o of [object, list]) {
      const masker = new SecretMasker();
      masker.learn(o);
      const text = JSON.stringify(masker.maskObject(o));
      for (const value of ["wrapped-secret-value", b64("listed-secret-value"), "listed-secret-value"]) expect(text).not.toContain(value);
      expect(masker.redact("it is wrapped-secret-value")).not.toContain("wrapped-secret-value");
      expect(text).toContain('"name":"app"');
    }
    expect(isSecretField(object, ["spec", "forProvider", "manifest", "stringData", "answer"])).toBe(true);
    expect(isSecretField(object, ["spec", "forProvider", "manifest", "metadata", "name"])).toBe(false);
  });

  it("the log masks are only secret values and their encodings, never ordinary words", () => {
    const masks = learned().values();
    for (const word of ORDINARY) expect(masks).not.toContain(word);
    for (const s of SECRETS) expect(masks).toContain(s);
    expect(masks).toContain(b64("hunter2-db-password"));
  });

  it("short values are masked at their field only, never in free text", () => {
    const masker = new SecretMasker();
    expect(masker.maskObject({ spec: { password: "abc" } })).toEqual({ spec: { password: expect.stringMatching(/^<masked sha256:/) } });
    expect(masker.redact("abc appears in abcde and abc")).toBe("abc appears in abcde and abc");
  });

  it("structured outputs are masked value by value: keys stay, JSON stays valid", () => {
    const masker = learned();
    const out = masker.redactJson({ "hunter2-db-password": "hunter2-db-password", list: ["x ghp_tokenvalue123 y"] });
    expect(Object.keys(out)).toEqual(["hunter2-db-password", "list"]);
    expect(JSON.stringify(out)).not.toContain("ghp_tokenvalue123");
    const [f] = maskFindings([{ rule: "schema/cel", severity: "error", message: "bad password hunter2-db-password", file: "password.yaml" }], masker);
    expect(f).toMatchObject({ file: "password.yaml", message: expect.not.stringContaining("hunter2") });
  });
});

const PASSWORD_RULE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: dbs.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: DB, plural: dbs}
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

describe("an object's secret values found once and kept (issue 38)", () => {
  it("learning what valuesIn found is learning the object: the same forms, the same redactions", () => {
    const fields = ["apiPassphrase"];
    const walked = new SecretMasker(fields);
    const kept = new SecretMasker(fields);
    const finder = new SecretMasker(fields);
    for (const object of [...corpus, { kind: "Config", spec: { apiPassphrase: "extra-field-secret-9" } }]) {
      walked.learn(object);
      kept.learnValues(finder.valuesIn(object));
    }
    expect(kept.values()).toEqual(walked.values());
    expect(kept.values().length).toBeGreaterThan(SECRETS.length);
    expect(finder.values()).toEqual([]); // valuesIn finds without remembering
    const text = `password hunter2-db-password and ${b64("s3cret-from-data")} and extra-field-secret-9`;
    expect(kept.redact(text)).toBe(walked.redact(text));
  });

  it("a text holding no form's first four characters is returned as it is, and no automaton is built for it", () => {
    const masker = new SecretMasker();
    for (const object of corpus) masker.learn(object);
    const plain = "spec.forProvider.region: must be one of eu-west-1, us-east-1 (file a.yaml line 3)";
    expect(masker.redact(plain)).toBe(plain);
    expect((masker as unknown as { levels: unknown[] }).levels).toHaveLength(0);
    // A secret a message cut after 16 characters still starts with a head.
    const cut = `token was ${"ghp_tokenvalue123".slice(0, 16)}…`;
    expect(masker.redact(cut)).not.toContain("ghp_tokenvalue12");
    expect((masker as unknown as { levels: unknown[] }).levels.length).toBeGreaterThan(0);
  });

  it("a run takes an object's values from the work store: the same output cold and warm, no secret in it", async () => {
    const dir = tempRepo({
      "secret.yaml": `apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: warm-and-cold-secret-77}\n`,
      "policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-passwords}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [secrets]}]}
  validations:
    - expression: "false"
      messageExpression: "'password is ' + object.stringData.password"
`,
    });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cci-mask-store-"));
    const cold = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
    const warm = await runCli(["check", ".", "--format", "json", "--cache-dir", cache], dir);
    expect(warm.stdout).toBe(cold.stdout);
    expect(cold.stdout).toContain("password is ");
    expect(cold.stdout).not.toContain("warm-and-cold-secret-77");
  });
});

describe("the CLI masks what it prints, as the Action does", () => {
  it("a CEL messageExpression that prints a password does not print it", async () => {
    const dir = tempRepo({
      "crd.yaml": PASSWORD_RULE_CRD,
      "db.yaml": "apiVersion: example.org/v1\nkind: DB\nmetadata: {name: d}\nspec: {password: correct-horse-battery}\n",
    });
    for (const format of ["text", "json", "sarif"]) {
      const { stdout } = await runCli(["validate", ".", "--no-cache", "--format", format], dir);
      expect(stdout).toContain("is too short");
      expect(stdout).not.toContain("correct-horse-battery");
    }
  });

  it("diff: a finding that quotes a secret stays the same finding when the secret changes", async () => {
    const db = (password: string) => `apiVersion: example.org/v1\nkind: DB\nmetadata: {name: d, namespace: default}\nspec: {password: ${password}}\n`;
    const { dir } = gitRepo({ "crd.yaml": PASSWORD_RULE_CRD, "db.yaml": db("correct-horse-battery") });
    fs.writeFileSync(path.join(dir, "db.yaml"), db("staple-zebra-lamp"));
    const { stdout } = await runCli(["diff", "--base", "main", "--format", "json"], dir);
    const report = JSON.parse(stdout) as { findings: { new: { rule: string }[]; fixed: { rule: string }[]; unchanged: { rule: string; message: string }[] } };
    expect(report.findings.new.filter((f) => f.rule === "schema/cel")).toEqual([]);
    expect(report.findings.fixed.filter((f) => f.rule === "schema/cel")).toEqual([]);
    expect(report.findings.unchanged.filter((f) => f.rule === "schema/cel")).toHaveLength(1);
    expect(stdout).not.toContain("staple-zebra-lamp");
    expect(stdout).not.toContain("correct-horse-battery");
  });

  it("composition-ci test does not print a secret its differences quote, raw or in base64", async () => {
    const dir = tempRepo({});
    fs.cpSync(path.join(REPO, "examples/crossplane"), dir, { recursive: true });
    const edit = (file: string, from: string, to: string) => {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      expect(text, file).toContain(from);
      fs.writeFileSync(path.join(dir, file), text.replace(from, to));
    };
    edit("xr.yaml", "  replicas: 3\n", "  replicas: 3\n  password: correct-horse-battery\n");
    edit("xrd.yaml", "              properties:\n", "              properties:\n                password: {type: string}\n");
    edit(
      "composition.yaml",
      "          - name: service\n",
      "          - name: settings\n            base: {apiVersion: v1, kind: ConfigMap, data: {}}\n            patches:\n              - type: FromCompositeFieldPath\n                fromFieldPath: spec.password\n                toFieldPath: data.encoded\n                transforms: [{type: string, string: {type: Convert, convert: ToBase64}}]\n          - name: service\n",
    );
    edit(
      "webapp-test.yaml",
      "    - apiVersion: v1\n      kind: Service\n",
      "    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        annotations:\n          crossplane.io/composition-resource-name: settings\n      data:\n        encoded: wrong\n    - apiVersion: v1\n      kind: Service\n",
    );
    for (const format of ["text", "json", "junit"]) {
      const { stdout, code } = await runCli(["test", ".", "--no-cache", "--format", format], dir);
      expect(code, format).toBe(1);
      // JUnit holds the mask as XML text (`&lt;masked …&gt;`): the values are masked before the report is formatted.
      expect(stdout, format).toContain("masked sha256:");
      for (const form of forms("correct-horse-battery")) expect(stdout, `${format}: ${form}`).not.toContain(form);
    }
  });
});

describe("ordinary words are never hunted for as secrets", () => {
  it("a Secret holding true, error or default masks them at their field only: not in free text, not in the runner's log masks", () => {
    const masker = new SecretMasker();
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      stringData: { enabled: "true", level: "error", profile: "default", password: "hunter2-Xq9" },
    };
    masker.learn(secret);
    expect(masker.values()).not.toEqual(expect.arrayContaining(["true"]));
    expect(masker.values().some((v) => ["true", "error", "default", "TRUE", "ERROR"].includes(v))).toBe(false);
    expect(masker.values()).toContain("hunter2-Xq9");
    expect(masker.redact("severity error: enabled is true in the default profile; hunter2-Xq9")).toBe(
      `severity error: enabled is true in the default profile; ${maskValue("hunter2-Xq9")}`,
    );
    const masked = masker.maskObject(secret);
    expect(masked.stringData.enabled).toBe(maskValue("true"));
    expect(masked.stringData.level).toBe(maskValue("error"));
  });

  it("a boolean in a field named like a secret is not a secret (manageMasterUserPassword: true)", () => {
    const masker = new SecretMasker();
    const rds = {
      apiVersion: "rds.aws.upbound.io/v1beta1",
      kind: "Instance",
      metadata: { name: "db" },
      spec: { forProvider: { manageMasterUserPassword: true, autoGeneratePassword: "true" } },
    };
    masker.learn(rds);
    expect(masker.values()).toEqual([]);
    expect(masker.redact("manageMasterUserPassword is true")).toBe("manageMasterUserPassword is true");
    expect(masker.maskObject(rds).spec.forProvider.manageMasterUserPassword).toBe(true);
  });
});
