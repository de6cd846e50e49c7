// secrets/: the masker that keeps secret values out of every text the tool writes.
import { valueAtSegments } from "../manifest/pointer.js";
import crypto from "node:crypto";
import type { Finding } from "../core/finding.js";

/**
 * Secret values never reach output. What is secret is decided by what a value is, never by what
 * a word looks like: the values of a Secret's `data` and `stringData`, connection details, values
 * of fields whose name says they hold a secret (`password`, `apiToken`, `clientSecret`,
 * `privateKey`, not `key` or `fromConnectionSecretKey`, which hold a key's name, nor
 * `*SecretRef`; nothing in an External Secrets object, which holds only references),
 * and the fields the config names. At its own field a secret becomes `<masked sha256:abcd1234>`
 * (so a change still shows as a change). In free text, each secret value of 4 characters or more
 * (not an ordinary word) is replaced in every form the tool or a function may print it in: as it
 * is and trimmed, upper and lower case, JSON-, YAML-, XML/HTML- and percent-escaped, base64 and
 * base64url (once or twice), and inside base64 of a longer text (basic auth's `user:secret`, a
 * docker config), where the whole base64 token is masked. A value long or random enough to be
 * told from a word (see `unambiguous`) is also found inside longer tokens (`Bearer<secret>`,
 * `user:<secret>@host`) and by a prefix of 16 characters or more that a message cut (`…`, `...`);
 * any other only where it stands as a whole token, so `hunter2` does not hide `hunter2s`. One
 * Aho–Corasick automaton finds every form in a single pass, in time linear in the text whatever
 * the number of secrets. A `*SecretKey` field holds a secret (`awsSecretKey`) or the name of the
 * key that holds one (`passwordSecretKey: password`): its value is masked only when it does not
 * look like a key name. Keys are never masked, and structured outputs are masked value by value,
 * never as serialised text.
 */

/** Shorter values are masked at their own field only: in free text they would hide ordinary words. */
export const MIN_FREE_TEXT_LENGTH = 4;

const SECRET_SUFFIXES = [
  "password",
  "passwd",
  "passphrase",
  "token",
  "secret",
  "privatekey",
  "apikey",
  "accesskey",
  "secretkey",
  "sshkey",
  "signingkey",
  "encryptionkey",
  "credential",
  "credentials",
];
/** Names that hold a reference, a name, a path or a type, even when they mention a secret. */
const REFERENCE_SUFFIX = /(ref|refs|name|names|selector|fieldpath|path|paths|namespace|keys|type|kind|source|store|length|ttl|policy)$/;

/** Whether a field of this name holds a secret value (see the module comment). */
export function isSecretFieldName(name: string): boolean {
  let known = secretFieldNames.get(name);
  if (known === undefined) {
    known = namesASecretField(name);
    if (secretFieldNames.size < MAX_REMEMBERED_NAMES) secretFieldNames.set(name, known);
  }
  return known;
}

/** Field names decided before: a repository repeats the same few thousand names in every object. */
const secretFieldNames = new Map<string, boolean>();
const MAX_REMEMBERED_NAMES = 20_000;

function namesASecretField(name: string): boolean {
  if (/^(from|to)[A-Z]/.test(name)) return false; // fromConnectionSecretKey, toFieldPath: names and paths
  if (/^existing[A-Z_]/.test(name)) return false; // existingSecret, existingPasswordSecret: Helm's name of a Secret that is there
  const n = name.toLowerCase().replace(/[-_.]/g, "");
  if (n === "secret" || REFERENCE_SUFFIX.test(n)) return false;
  return SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

/**
 * A secret's mask: the same value gets the same mask, so a change still shows as a change. By
 * default the mask is the start of the value's sha256, which lets a reader confirm a guess of a
 * weak secret; with `COMPOSITION_CI_MASK_KEY` set (a secret of the workflow), it is an HMAC under
 * that key instead, stable across runs and of no use to a reader without the key.
 */
/** A PEM private key block (PKCS#1, PKCS#8, SEC 1, OpenSSH), anywhere in a value. */
const PRIVATE_KEY_PEM = /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----/;

export function maskValue(value: string): string {
  const key = process.env.COMPOSITION_CI_MASK_KEY;
  if (key) return `<masked hmac:${crypto.createHmac("sha256", key).update(value).digest("hex").slice(0, 8)}>`;
  return `<masked sha256:${crypto.createHash("sha256").update(value).digest("hex").slice(0, 8)}>`;
}

const MASKED = /^<masked (?:sha256|hmac):[0-9a-f]{8}>$/;

export class SecretMasker {
  /** Every form of every secret value (raw, encoded, escaped), the raw value it stands for, and how it is hunted. */
  private readonly forms = new Map<string, { raw: string; flags: number }>();
  /** Forms not yet in an automaton (new ones, or ones hunted in more ways than before). */
  private pending: string[] = [];
  /** The automata that find the forms, largest first (see `automata`). */
  private levels: FormAutomaton[] = [];

  /** A bitmap of the hashes of every form's first MIN_FREE_TEXT_LENGTH characters (`markHead`). */
  private readonly heads = new Uint32Array(HEAD_BITS / 32);
  /** Every value `remember` was given. */
  private readonly remembered = new Set<string>();
  /** Where `valuesIn` puts what the walk finds, instead of remembering it. */
  private recording: string[] | undefined;

  /** `extraFields`: more field names whose values are secret (the config's `secretFields`). */
  constructor(private readonly extraFields: readonly string[] = []) {}

  /** Remembers the secret values of an object (repository manifests, rendered objects, credentials). */
  learn(object: unknown): void {
    this.walk(object, rootContext(object), false);
  }

  /** The secret values an object holds, as `learn` finds them, without remembering them: for a caller that keeps them (`learnValues`). */
  valuesIn(object: unknown): string[] {
    const values: string[] = [];
    this.recording = values;
    try {
      this.walk(object, rootContext(object), false);
    } finally {
      this.recording = undefined;
    }
    return values;
  }

  /** Remembers what `valuesIn` found in an object: the same as learning the object. */
  learnValues(values: readonly string[]): void {
    for (const v of values) this.remember(v);
  }

  /** Remembers connection details (function responses): every value is secret. */
  learnConnectionDetails(details: Record<string, unknown> | undefined): void {
    for (const v of Object.values(details ?? {})) {
      if (typeof v === "string") this.remember(v);
      else if (v instanceof Uint8Array) this.remember(Buffer.from(v).toString("utf8"));
    }
  }

  /** Remembers one secret value. */
  learnValue(value: string): void {
    this.remember(value);
  }

  /** A masked deep copy of an object: secret fields masked at the field, other strings redacted as free text. */
  maskObject<T>(object: T): T {
    // Learnt first, so that the automata are rebuilt once, not at every new secret the copy meets.
    this.learn(object);
    return this.walk(object, rootContext(object), true) as T;
  }

  /** `text` with every remembered secret value, in every form, replaced by its mask (see the module comment). */
  redact(text: string): string {
    return this.replaceFound(text, (raws) => raws.map((r) => maskValue(r)).join(""));
  }

  /**
   * `text` with every remembered secret replaced by one placeholder whatever its value: what
   * identifies a message about a secret, so that a changed secret leaves it the same message.
   * Masks already in the text (a message masked before) become the same placeholder.
   */
  redactAlike(text: string): string {
    return this.replaceFound(text, () => "<masked>").replace(MASKS, "<masked>");
  }

  /** A JSON value with every string redacted; keys are left as they are. */
  redactJson<T>(value: T): T {
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v)) as T;
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactJson(v)])) as T;
    return value;
  }

  /** The forms to hide in the job log (`::add-mask::`): only values that passed the tests above, in every form. */
  values(): string[] {
    return [...this.forms.keys()];
  }

  private remember(value: string): void {
    // A value met again (the same secret in every copy of a package) has all its forms already.
    if (this.remembered.has(value)) return;
    this.remembered.add(value);
    if (MASKED.test(value) || isOrdinaryWord(value)) return;
    // The value, trimmed (a line break `echo | base64` left), and what it decodes to when it is base64.
    const values = new Set([value, value.trim()]);
    const decoded = decodeBase64(value.trim());
    if (decoded !== undefined) values.add(decoded).add(decoded.trim());
    for (const v of values) {
      if (v.length < MIN_FREE_TEXT_LENGTH || MASKED.test(v) || isOrdinaryWord(v)) continue;
      this.rememberForms(v);
    }
  }

  /** Every form a value may take in what the tool prints (see the module comment). */
  private rememberForms(value: string): void {
    const inside = unambiguous(value) ? INSIDE : 0;
    const add = (form: string, flags: number) => {
      if (form.length < MIN_FREE_TEXT_LENGTH) return;
      const known = this.forms.get(form);
      if (known && (known.flags | flags) === known.flags) return;
      if (known) known.flags |= flags;
      else {
        this.forms.set(form, { raw: value, flags });
        markHead(this.heads, form);
      }
      this.pending.push(form);
    };
    add(value, inside);
    if (value.length <= LONG_VALUE) {
      // string transforms a patch may apply on the way (Convert ToUpper, ToLower)
      add(value.toUpperCase(), inside);
      add(value.toLowerCase(), inside);
      for (const escaped of escapedForms(value)) add(escaped, inside);
      for (const encoded of base64Forms(Buffer.from(value, "utf8").toString("base64"))) add(encoded, inside); // encoded twice
    } else add(JSON.stringify(value).slice(1, -1), inside); // a key, a config file: as JSON quotes it
    for (const encoded of base64Forms(value)) add(encoded, inside);
    // Inside base64 of a longer text (`user:secret` of basic auth, a docker config, a kubeconfig).
    for (const piece of base64Pieces(value)) add(piece, INSIDE | EXPAND);
    // The lines of a key or a certificate, which a message or a YAML block may show one by one.
    if (value.includes("\n")) for (const line of value.split("\n")) if (RANDOM_LINE.test(line.trim()) && looksRandom(line.trim())) add(line.trim(), INSIDE);
  }

  /**
   * The automata that find the forms. Forms learnt after the last redaction go to a new automaton,
   * merged with the smaller ones before it while they are not twice its size (Bentley–Saxe): a
   * masker that learns between redactions rebuilds each form O(log n) times, not at every secret.
   */
  private automata(): FormAutomaton[] {
    if (this.pending.length) {
      const forms = new Set(this.pending);
      this.pending = [];
      let size = [...forms].reduce((n, f) => n + f.length, 0);
      while (this.levels.length && this.levels[this.levels.length - 1]!.size <= 2 * size) {
        const smaller = this.levels.pop()!;
        for (const f of smaller.forms) forms.add(f);
        size += smaller.size;
      }
      this.levels.push(new FormAutomaton([...forms].map((form) => ({ form, ...this.forms.get(form)! }))));
    }
    return this.levels;
  }

  /** `text` with each stretch of it that shows secrets replaced by what `replacement` makes of their raw values. */
  private replaceFound(text: string, replacement: (raws: string[]) => string): string {
    // Most texts hold no form's first characters: they need no automaton, which a run then never builds.
    if (!text || !mayHoldAHead(this.heads, text)) return text;
    const automata = this.automata();
    if (!automata.length) return text;
    const found = findForms(text, automata);
    if (!found.length) return text;
    let out = "";
    let at = 0;
    for (const { start, end, raws } of found) {
      out += text.slice(at, start) + replacement(raws);
      at = end;
    }
    return out + text.slice(at);
  }

  /** Visits every value, remembering secret ones; with `copy`, also returns the masked copy. */
  private walk(value: unknown, context: Context, copy: boolean): unknown {
    if (Array.isArray(value)) {
      const inner = (v: unknown) => (context === "references" ? context : rootContext(v));
      return copy ? value.map((v) => this.walk(v, inner(v), true)) : value.forEach((v) => this.walk(v, inner(v), false));
    }
    if (typeof value === "string") return copy ? this.redact(value) : undefined;
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> | undefined = copy ? {} : undefined;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      let result: unknown;
      if (context === "secret-data" && isScalar(v)) result = this.secret(String(v), copy, !DESCRIBES_A_CONNECTION.test(key));
      else if (context === "secret-root" && (key === "data" || key === "stringData")) result = this.walk(v, "secret-data", copy);
      else if (context === "references") result = this.walk(v, "references", copy);
      else if (isSecretValue(v) && this.isSecretField(key) && !mayNameAKey(key, String(v))) result = this.secret(String(v), copy);
      // A private key is secret under any field name (a key sprig generated into a ConfigMap).
      else if (typeof v === "string" && PRIVATE_KEY_PEM.test(v)) result = this.secret(v, copy);
      // An object inside may be a Secret itself (a provider-kubernetes Object's manifest, a List's item).
      else result = this.walk(v, rootContext(v), copy);
      if (out) out[key] = result;
    }
    return copy ? out : undefined;
  }

  private isSecretField(name: string): boolean {
    return isSecretFieldName(name) || this.extraFields.includes(name);
  }

  /** A secret value: masked at its field; remembered for free text unless `inFreeText` is false. */
  private secret(value: string, copy: boolean, inFreeText = true): string | undefined {
    if (MASKED.test(value)) return value;
    if (inFreeText) {
      if (this.recording) this.recording.push(value);
      else this.remember(value);
    }
    return copy ? maskValue(value) : undefined;
  }
}

/**
 * Values a secret field may hold that are words of every text, the job log and the report's own
 * vocabulary (a Secret whose `enabled` entry is `true`, whose `level` is `error`): masked at their
 * field, but never hunted for in free text nor added to the runner's log masks, where they would
 * hide every `true` of the job and every `severity` of the JSON report.
 */
const ORDINARY_WORDS = new Set([
  "true",
  "false",
  "yes",
  "no",
  "on",
  "off",
  "null",
  "none",
  "nil",
  "empty",
  "default",
  "enabled",
  "disabled",
  "enable",
  "disable",
  "error",
  "errors",
  "warning",
  "warnings",
  "info",
  "debug",
  "notice",
  "fatal",
  "normal",
  "pass",
  "passes",
  "passed",
  "fail",
  "fails",
  "failed",
  "unknown",
  "changed",
  "unchanged",
  "added",
  "removed",
  "deleted",
  "new",
  "fixed",
  "rule",
  "file",
  "line",
  "kind",
  "name",
  "message",
  "severity",
  "path",
  "source",
  "sources",
  "finding",
  "findings",
  "test",
  "tests",
  "admin",
  "user",
  "root",
  "local",
  "localhost",
  "latest",
  "main",
  "master",
  "stable",
]);

export function isOrdinaryWord(value: string): boolean {
  return ORDINARY_WORDS.has(value.trim().toLowerCase());
}

/**
 * Entries of a Secret that say where to connect rather than how to get in (`username: postgres`,
 * `database: default`, `port: "5432"`): masked at their field, but not hunted for in free text and
 * the job log, where such words and numbers are ordinary. Passwords, tokens, keys and URLs (which
 * may carry credentials) stay secret everywhere.
 */
const DESCRIBES_A_CONNECTION =
  /^(user(name)?|host(name)?|port|database|db(name)?|schema|namespace|region|zone|sslmode|protocol|driver|engine|cluster|bucket|project|account(_?id)?|tenant(_?id)?)$/i;

/** A Secret, its data, an object that holds only references to secrets (External Secrets), or anything else. */
type Context = "secret-root" | "secret-data" | "references" | undefined;

/**
 * What a secret-named field may hold as a secret: a string or a number, not a boolean
 * (`automountServiceAccountToken: false`), nor a template another tool fills in (`{{ .apikey }}`).
 */
function isSecretValue(v: unknown): v is string | number {
  if (typeof v === "number") return true;
  return typeof v === "string" && v !== "" && !v.includes("{{") && !v.includes("${");
}

/**
 * A field whose name may as well say where a secret is as hold one (`*SecretKey`, and `*Secret`
 * after another word: `passwordSecretKey: password`, `githubConfigSecret: gha-runner`, but also
 * `awsSecretKey`, `webhookSecret`) with a value that looks like the name of a key or an object
 * (`client_secret`, `ca.crt`, `WEBHOOK_TOKEN`, `grafana-oncall`): the name of a key, not masked. Anything else (`wJalrXUtnFEMI/K7MDENG`,
 * a random string) is a secret everywhere.
 */
function mayNameAKey(field: string, value: string): boolean {
  const ambiguous = /secret_?key$/i.test(field) || (/[a-z0-9]Secret$/.test(field) && !SECRET_HOLDERS.has(wordBefore(field, "Secret")));
  return ambiguous && value.length <= 253 && /^[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)*$/.test(value) && !looksRandom(value);
}

/** `<word>Secret` fields that hold the secret itself (OAuth's clientSecret, a webhook's shared secret, ...). */
const SECRET_HOLDERS = new Set([
  "client",
  "shared",
  "webhook",
  "signing",
  "hmac",
  "jwt",
  "session",
  "cookie",
  "encryption",
  "app",
  "api",
  "master",
  "root",
  "admin",
  "bootstrap",
  "join",
  "consumer",
  "oauth",
  "private",
  "auth",
  "token",
]);

/** The camelCase word before a suffix: `githubConfigSecret` → `config`. */
function wordBefore(field: string, suffix: string): string {
  return (
    field
      .slice(0, field.length - suffix.length)
      .split(/(?=[A-Z])|[-_.]/)
      .pop() ?? ""
  ).toLowerCase();
}

/** A word mixing upper and lower case and digits, or a long one mixing letters and digits (hex), as generated secrets are. */
function looksRandom(value: string): boolean {
  return value.split(/[._-]/).some((word) => {
    const digits = /[0-9]/.test(word);
    return (digits && /[a-z]/.test(word) && /[A-Z]/.test(word)) || (digits && /[a-zA-Z]/.test(word) && word.length >= 16);
  });
}

/**
 * Whether the value at a path of an object is one the masker's walk hides (a Secret's data or
 * stringData entry, or a secret-named field holding a secret-like value outside an object of
 * references), so a message about that field shows its mask, never its value, and nothing else.
 */
export function isSecretField(object: unknown, segments: string[]): boolean {
  // The contexts the masker's walk meets on the way down: a Secret at any depth, or references.
  let node = object;
  for (let i = 0; i < segments.length; i++) {
    const context = rootContext(node);
    if (context === "references") return false;
    if (context === "secret-root" && i === segments.length - 2 && (segments[i] === "data" || segments[i] === "stringData")) return true;
    node = valueAtSegments(node, [segments[i]!]);
  }
  const last = segments[segments.length - 1];
  return last !== undefined && isSecretFieldName(last) && isSecretValue(node) && !mayNameAKey(last, String(node));
}

function rootContext(object: unknown): Context {
  const o = object as Record<string, unknown> | null;
  if (!o || typeof o !== "object") return undefined;
  if (o.kind === "Secret" && (o.apiVersion === "v1" || o.apiVersion === undefined)) return "secret-root";
  // ExternalSecret, ClusterExternalSecret, PushSecret, SecretStore: where secrets are, never what.
  if (typeof o.apiVersion === "string" && o.apiVersion.startsWith("external-secrets.io/")) return "references";
  return undefined;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

/**
 * Whether a value is long or random enough to be hunted inside longer tokens (`Bearer<secret>`,
 * `user:<secret>@host`) and by a prefix a message cut: 16 characters or more; 8 or more unless it is
 * a plain word or number (`changeme`, `production`, `12345678`); 6 or more mixing upper and lower case
 * and digits. Other values are hunted as whole tokens only, so `hunter2` does not hide `hunter2s`.
 */
function unambiguous(value: string): boolean {
  if (value.length >= 16) return true;
  if (value.length >= 8 && !/^(?:[A-Za-z]+|[0-9]+)$/.test(value)) return true;
  return value.length >= 6 && looksRandom(value);
}

/**
 * Past this length a value (a key, a certificate, a config file) is hunted as it is, JSON-quoted,
 * in base64 and by its lines only: its other forms would cost memory for forms no one prints.
 */
const LONG_VALUE = 256;

/** A line of a key or certificate: base64 or hex, no spaces, long (and, tested apart, random). */
const RANDOM_LINE = /^[A-Za-z0-9+/=_-]{16,}$/;

/** How a value shows when the tool or a function escapes it: JSON (and JSON in JSON), Go's JSON, YAML, percent-encoding, XML and HTML. */
function escapedForms(value: string): string[] {
  const forms: string[] = [];
  const json = JSON.stringify(value).slice(1, -1);
  const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const attribute = (s: string) => xml(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
  forms.push(
    json,
    JSON.stringify(json).slice(1, -1),
    json.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`), // Go's encoding/json
    json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`), // ASCII-only JSON
    json.replace(/\\u00([0-9a-f]{2})/g, "\\x$1"), // YAML double-quoted
    value.replace(/'/g, "''"), // YAML single-quoted
    xml(value),
    attribute(value),
    attribute(value).replace(/'/g, "&#39;"),
    xml(json),
    attribute(json),
  );
  try {
    const uri = encodeURIComponent(value);
    forms.push(
      uri,
      uri.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
      uri.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      new URLSearchParams([["", value]]).toString().slice(1),
      encodeURI(value),
    );
  } catch {
    // a lone surrogate: not a URL's text
  }
  return forms.filter((f) => f !== value);
}

/** How a value shows when a transform or a Secret encodes it: base64 and base64url, padded or not. */
function base64Forms(value: string): string[] {
  const standard = Buffer.from(value, "utf8").toString("base64");
  const url = Buffer.from(value, "utf8").toString("base64url");
  return [...new Set([standard, standard.replace(/=+$/, ""), url, `${url}${"=".repeat((4 - (url.length % 4)) % 4)}`])];
}

/** The shortest piece of base64 that tells a value inside a longer encoded text. */
const MIN_BASE64_PIECE = 8;

/**
 * What base64 of any text holding the value shows of it, wherever it stands in that text: at
 * each of the three offsets a byte may have in a group of three, the characters that encode the
 * value's bits alone (those shared with the bytes around it differ from text to text), in both
 * alphabets. A base64 token holding one is masked whole.
 */
function base64Pieces(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const pieces = new Set<string>();
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Character j holds bits [6j, 6j + 6) of the text; the value's are [8 × offset, 8 × (offset + length)).
    const piece = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (piece.length < MIN_BASE64_PIECE) continue;
    pieces.add(piece);
    pieces.add(piece.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...pieces];
}

/** The text a base64 value encodes, when it is base64 of printable UTF-8. */
function decodeBase64(value: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  const text = Buffer.from(value, "base64").toString("utf8");
  return /^[\x20-\x7e\t\n\r]+$/.test(text) ? text : undefined;
}

/** Any mask, as redactAlike makes every one the same. */
const MASKS = /<masked (?:sha256|hmac):[0-9a-f]{8}>/g;

/** Hunted inside longer tokens, and by a prefix of TRUNCATED_MIN characters or more that a message cut. */
const INSIDE = 1;
/** A piece of base64: the base64 token around it is masked whole. */
const EXPAND = 2;
/** The shortest prefix of a secret a cut message may show that is masked. */
const TRUNCATED_MIN = 16;

/**
 * Every stretch the automaton finds starts where a form starts (a whole form, or a prefix of at
 * least TRUNCATED_MIN characters), and every form has at least MIN_FREE_TEXT_LENGTH characters:
 * a text in which no window of that many characters is a form's head holds no secret. The heads
 * are kept as hashes in a bitmap (a false match only costs the automaton's search).
 */
const HEAD_BITS = 1 << 20;

function headHash(text: string, at: number): number {
  const h =
    Math.imul(text.charCodeAt(at), 0x9e3779b1) ^
    Math.imul(text.charCodeAt(at + 1), 0x85ebca6b) ^
    Math.imul(text.charCodeAt(at + 2), 0xc2b2ae35) ^
    Math.imul(text.charCodeAt(at + 3), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & (HEAD_BITS - 1);
}

function markHead(heads: Uint32Array, form: string): void {
  const h = headHash(form, 0);
  heads[h >>> 5]! |= 1 << (h & 31);
}

function mayHoldAHead(heads: Uint32Array, text: string): boolean {
  for (let i = 0; i + MIN_FREE_TEXT_LENGTH <= text.length; i++) {
    const h = headHash(text, i);
    if (heads[h >>> 5]! & (1 << (h & 31))) return true;
  }
  return false;
}

/** Where a message cut a text: `…` or `...` right after what it shows. */
function cutAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c === 0x2026 || (c === 0x2e && text.startsWith("...", at));
}

/** How many children make a state of the automaton look its symbols up in a table. */
const DENSE_CHILDREN = 8;

/** What ends at a state of the automaton: a form; a prefix of one (that counts only where the text is cut there); each maybe base64 to grow. */
const FULL = 1;
const PREFIX = 2;
const FULL_EXPANDS = 4;
const PREFIX_EXPANDS = 8;

/** Virtual symbols between a word character and a non-word one (a word starts, a word ends): a whole-token form is bounded by them. */
const WORD_STARTS = 0x10000;
const WORD_ENDS = 0x10001;
const WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) WORD[c] = /\w/.test(String.fromCharCode(c)) ? 1 : 0;
const BASE64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) BASE64[c] = /[A-Za-z0-9+/_-]/.test(String.fromCharCode(c)) ? 1 : 0;
const isWord = (c: number) => c < 128 && WORD[c] === 1;
const isBase64 = (c: number) => c < 128 && BASE64[c] === 1;

/**
 * A form as the automaton reads it: its characters, with WORD_STARTS before a word character that
 * follows a non-word one and WORD_ENDS after one that precedes a non-word one, as the text is read.
 * A whole-token form has them at its ends too, so it matches only where the text has them: where
 * `\b` would. A form hunted inside words has them only within.
 */
function symbolsOf(form: string, whole: boolean): number[] {
  const out: number[] = [];
  for (let j = 0; j < form.length; j++) {
    const c = form.charCodeAt(j);
    const w = isWord(c);
    if (w && (j === 0 ? whole : !isWord(form.charCodeAt(j - 1)))) out.push(WORD_STARTS);
    out.push(c);
    if (w && (j === form.length - 1 ? whole : !isWord(form.charCodeAt(j + 1)))) out.push(WORD_ENDS);
  }
  return out;
}

/**
 * An Aho–Corasick automaton of forms: it reads a text once, in time linear in the text (a regular
 * expression alternating thousands of forms tries each of them at every position). Each state
 * knows the longest form that ends there, the longest piece of base64, and the longest prefix of
 * TRUNCATED_MIN characters or more of a form hunted inside words (masked only where a message cut
 * the text right after it: a secret's first characters may be a header every key has).
 */
class FormAutomaton {
  readonly forms: string[];
  /** Characters of the forms it holds: what a merge costs. */
  readonly size: number;
  private readonly rootNext = new Int32Array(WORD_ENDS + 1);
  private readonly symbol: Int32Array;
  private readonly firstChild: Int32Array;
  private readonly nextSibling: Int32Array;
  private readonly fail: Int32Array;
  /** The state whose form is the longest ending here (itself or along its failure links), or -1. */
  private readonly best: Int32Array;
  /** The same for pieces of base64, and for prefixes. */
  private readonly bestExpand: Int32Array;
  private readonly bestPrefix: Int32Array;
  /** A state where a form or a prefix ends: its length in characters of the text; what ends there (FULL, PREFIX, …). */
  private readonly length: Int32Array;
  private readonly raw: Int32Array;
  private readonly ends: Uint8Array;
  private readonly raws: string[] = [];
  private states = 1;
  /** States with many children (near the root) look ASCII symbols up in a table of their own: `dense[state] * 128 + symbol`. */
  private dense?: Int32Array;
  private denseNext?: Int32Array;

  constructor(forms: { form: string; raw: string; flags: number }[]) {
    this.forms = forms.map((f) => f.form);
    const symbols = forms.map((f) => symbolsOf(f.form, (f.flags & INSIDE) === 0));
    this.size = forms.reduce((n, f) => n + f.form.length, 0);
    const capacity = 1 + symbols.reduce((n, s) => n + s.length, 0);
    this.symbol = new Int32Array(capacity);
    this.firstChild = new Int32Array(capacity).fill(-1);
    this.nextSibling = new Int32Array(capacity).fill(-1);
    this.fail = new Int32Array(capacity);
    this.best = new Int32Array(capacity).fill(-1);
    this.bestExpand = new Int32Array(capacity).fill(-1);
    this.bestPrefix = new Int32Array(capacity).fill(-1);
    this.length = new Int32Array(capacity);
    this.raw = new Int32Array(capacity);
    this.ends = new Uint8Array(capacity);
    const rawIndex = new Map<string, number>();
    forms.forEach((f, i) => {
      let r = rawIndex.get(f.raw);
      if (r === undefined) rawIndex.set(f.raw, (r = this.raws.push(f.raw) - 1));
      const expand = (f.flags & EXPAND) !== 0;
      const prefixes = (f.flags & INSIDE) !== 0 && f.form.length > TRUNCATED_MIN;
      let state = 0;
      let depth = 0;
      for (const sym of symbols[i]!) {
        state = this.childOrNew(state, sym);
        if (sym < WORD_STARTS) depth++;
        // A prefix a message may have cut the form at.
        if (prefixes && sym < WORD_STARTS && depth >= TRUNCATED_MIN && depth < f.form.length)
          this.mark(state, depth, r, expand ? PREFIX | PREFIX_EXPANDS : PREFIX);
      }
      this.mark(state, f.form.length, r, expand ? FULL | FULL_EXPANDS : FULL);
    });
    this.tabulate();
    this.link();
  }

  /** Tables for the states with DENSE_CHILDREN children or more, so that reading a text never scans a long list of siblings. */
  private tabulate(): void {
    const many: number[] = [];
    for (let state = 1; state < this.states; state++) {
      let children = 0;
      for (let k = this.firstChild[state]!; k !== -1 && children < DENSE_CHILDREN; k = this.nextSibling[k]!) children++;
      if (children >= DENSE_CHILDREN) many.push(state);
    }
    if (!many.length) return;
    const dense = new Int32Array(this.states).fill(-1);
    const next = new Int32Array(many.length * 128);
    many.forEach((state, i) => {
      dense[state] = i;
      for (let k = this.firstChild[state]!; k !== -1; k = this.nextSibling[k]!) if (this.symbol[k]! < 128) next[i * 128 + this.symbol[k]!] = k;
    });
    this.dense = dense;
    this.denseNext = next;
  }

  private mark(state: number, length: number, raw: number, ends: number): void {
    // A form's own raw value wins over that of a form it is a prefix of.
    if (this.ends[state] === 0 || ((ends & FULL) !== 0 && (this.ends[state]! & FULL) === 0)) this.raw[state] = raw;
    this.length[state] = length;
    this.ends[state] = this.ends[state]! | ends;
  }

  /** The child of a state on a symbol, or 0 (the root is nobody's child). */
  private child(state: number, sym: number): number {
    if (state === 0) return this.rootNext[sym]!;
    if (this.dense !== undefined && sym < 128) {
      const table = this.dense[state]!;
      if (table >= 0) return this.denseNext![table * 128 + sym]!;
    }
    for (let k = this.firstChild[state]!; k !== -1; k = this.nextSibling[k]!) if (this.symbol[k] === sym) return k;
    return 0;
  }

  private childOrNew(state: number, sym: number): number {
    const found = this.child(state, sym);
    if (found !== 0) return found;
    const made = this.states++;
    this.symbol[made] = sym;
    if (state === 0) this.rootNext[sym] = made;
    this.nextSibling[made] = this.firstChild[state]!;
    this.firstChild[state] = made;
    return made;
  }

  /** Failure links, breadth first; the longest form ending at each state follows from its failure state's. */
  private link(): void {
    const queue = new Int32Array(this.states);
    let tail = 0;
    for (let k = this.firstChild[0]!; k !== -1; k = this.nextSibling[k]!) {
      this.fail[k] = 0;
      queue[tail++] = k;
    }
    for (let head = 0; head < tail; head++) {
      const u = queue[head]!;
      const f = this.fail[u]!;
      const ends = this.ends[u]!;
      this.best[u] = ends & FULL ? u : this.best[f]!;
      this.bestExpand[u] = ends & FULL_EXPANDS ? u : this.bestExpand[f]!;
      this.bestPrefix[u] = ends & PREFIX ? u : this.bestPrefix[f]!;
      for (let v = this.firstChild[u]!; v !== -1; v = this.nextSibling[v]!) {
        this.fail[v] = this.step(this.fail[u]!, this.symbol[v]!);
        queue[tail++] = v;
      }
    }
  }

  /** The state after reading a symbol. */
  step(state: number, sym: number): number {
    for (;;) {
      const next = this.child(state, sym);
      if (next !== 0 || state === 0) return next;
      state = this.fail[state]!;
    }
  }

  /** What ends at a state: the longest form, the longest piece of base64 if that is another, and a longer prefix where the text is cut. */
  report(state: number, end: number, found: Found, text: string): void {
    const b = this.best[state]!;
    if (b >= 0) found.add(end - this.length[b]!, end, this.raws[this.raw[b]!]!, (this.ends[b]! & FULL_EXPANDS) !== 0);
    const e = this.bestExpand[state]!;
    if (e >= 0 && e !== b) found.add(end - this.length[e]!, end, this.raws[this.raw[e]!]!, true);
    const p = this.bestPrefix[state]!;
    if (p >= 0 && (b < 0 || this.length[p]! > this.length[b]!) && cutAt(text, end))
      found.add(end - this.length[p]!, end, this.raws[this.raw[p]!]!, (this.ends[p]! & PREFIX_EXPANDS) !== 0);
  }
}

/** The stretches of a text that show secrets, in order, each with the raw values shown there. */
function findForms(text: string, automata: FormAutomaton[]): { start: number; end: number; raws: string[] }[] {
  const found = new Found(text);
  const states = new Int32Array(automata.length);
  const n = text.length;
  let previousIsWord = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const w = isWord(c);
    const endsWord = w && !(i + 1 < n && isWord(text.charCodeAt(i + 1)));
    for (let a = 0; a < automata.length; a++) {
      const automaton = automata[a]!;
      let state = states[a]!;
      if (w && !previousIsWord) state = automaton.step(state, WORD_STARTS);
      state = automaton.step(state, c);
      automaton.report(state, i + 1, found, text);
      if (endsWord) {
        state = automaton.step(state, WORD_ENDS);
        automaton.report(state, i + 1, found, text);
      }
      states[a] = state;
    }
    previousIsWord = w;
  }
  return found.stretches();
}

/**
 * The forms found in a text, as they are reported (by where they end): each a span and the raw
 * value it shows. A span within the one before it adds nothing; one that overlaps it with the
 * same raw value extends it; a piece of base64 grows to the base64 token around it (each character
 * looked at once: not left of the last token grown, not again right of it).
 */
class Found {
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  private readonly raw: string[] = [];
  private sorted = true;
  private grownStart = -1;
  private grownEnd = -1;

  constructor(private readonly text: string) {}

  add(start: number, end: number, raw: string, expand: boolean): void {
    if (expand) {
      if (start >= this.grownStart && end <= this.grownEnd) return;
      const floor = Math.max(this.grownEnd, 0);
      while (start > floor && isBase64(this.text.charCodeAt(start - 1))) start--;
      let e = Math.max(end, this.grownEnd);
      while (e < this.text.length && isBase64(this.text.charCodeAt(e))) e++;
      for (let pad = 0; pad < 2 && this.text.charCodeAt(e) === 0x3d; pad++) e++; // `=` only at the end: `token=<base64>` keeps `token=`
      end = e;
      this.grownStart = start;
      this.grownEnd = end;
    }
    let last = this.start.length - 1;
    if (last >= 0) {
      if (this.start[last]! <= start && this.end[last]! >= end) return;
      if (this.raw[last] === raw && this.end[last]! >= start) {
        this.start[last] = Math.min(this.start[last]!, start);
        this.end[last] = Math.max(this.end[last]!, end);
        return;
      }
      while (last >= 0 && this.start[last]! >= start && this.end[last]! <= end) {
        this.start.pop();
        this.end.pop();
        this.raw.pop();
        last--;
      }
      if (last >= 0 && this.start[last]! > start) this.sorted = false;
    }
    this.start.push(start);
    this.end.push(end);
    this.raw.push(raw);
  }

  /** Overlapping spans joined: each stretch with the raw values of the spans that reach further, in order. */
  stretches(): { start: number; end: number; raws: string[] }[] {
    const order = [...this.start.keys()];
    if (!this.sorted) order.sort((a, b) => this.start[a]! - this.start[b]! || this.end[b]! - this.end[a]!);
    const out: { start: number; end: number; raws: string[] }[] = [];
    let seen = new Set<string>();
    for (const k of order) {
      const s = this.start[k]!;
      const e = this.end[k]!;
      const raw = this.raw[k]!;
      const current = out[out.length - 1];
      if (current && s < current.end) {
        if (e > current.end) {
          current.end = e;
          if (!seen.has(raw)) current.raws.push(raw);
          seen.add(raw);
        }
      } else {
        out.push({ start: s, end: e, raws: [raw] });
        seen = new Set([raw]);
      }
    }
    return out;
  }
}

/** Findings whose free text (message, detail) is redacted; everything else is as it was. */
export function maskFindings(findings: Finding[], masker: SecretMasker): Finding[] {
  return findings.map((f) => {
    const out = { ...f, message: masker.redact(f.message) };
    if (f.detail !== undefined) out.detail = masker.redact(f.detail);
    return out;
  });
}
