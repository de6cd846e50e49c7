import { valueAtSegments } from "../manifest/pointer.js";
import crypto from "node:crypto";
import type { Finding } from "./finding.js";

/**
 * Secret values never reach output. What is secret is decided by what a value is, never by what
 * a word looks like: the values of a Secret's `data` and `stringData`, connection details, values
 * of fields whose name says they hold a secret (`password`, `apiToken`, `clientSecret`,
 * `privateKey`, not `key` or `fromConnectionSecretKey`, which hold a key's name, nor
 * `*SecretRef`; nothing in an External Secrets object, which holds only references),
 * and the fields the config names. At its own field a secret becomes `<masked sha256:abcd1234>`
 * (so a change still shows as a change); in free text, each secret value of 4 characters or more,
 * and its base64 and base64url forms, is replaced wherever it stands as a whole token. A
 * `*SecretKey` field holds a secret (`awsSecretKey`) or the name of the key that holds one
 * (`passwordSecretKey: password`): its value is masked only when it does not look like a key name. Keys are never masked, and structured outputs are
 * masked value by value, never as serialised text.
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
export function maskValue(value: string): string {
  const key = process.env.COMPOSITION_CI_MASK_KEY;
  if (key) return `<masked hmac:${crypto.createHmac("sha256", key).update(value).digest("hex").slice(0, 8)}>`;
  return `<masked sha256:${crypto.createHash("sha256").update(value).digest("hex").slice(0, 8)}>`;
}

const MASKED = /^<masked (?:sha256|hmac):[0-9a-f]{8}>$/;

export class SecretMasker {
  /** Every form of every secret value (raw, base64, base64url), and the raw value each stands for. */
  private readonly forms = new Set<string>();
  private readonly raw = new Map<string, string>();
  private pattern?: RegExp | null;

  /** `extraFields`: more field names whose values are secret (the config's `secretFields`). */
  constructor(private readonly extraFields: readonly string[] = []) {}

  /** Remembers the secret values of an object (repository manifests, rendered objects, credentials). */
  learn(object: unknown): void {
    this.walk(object, rootContext(object), false);
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
    return this.walk(object, rootContext(object), true) as T;
  }

  /** `text` with every remembered secret value, in every form, replaced by its mask where it stands as a whole token. */
  redact(text: string): string {
    const pattern = this.compiled();
    if (!pattern) return text;
    return text.replace(pattern, (match) => maskValue(this.rawOf(match)));
  }

  /**
   * `text` with every remembered secret replaced by one placeholder whatever its value: what
   * identifies a message about a secret, so that a changed secret leaves it the same message.
   */
  redactAlike(text: string): string {
    const pattern = this.compiled();
    return pattern ? text.replace(pattern, "<masked>") : text;
  }

  /** A JSON value with every string redacted; keys are left as they are. */
  redactJson<T>(value: T): T {
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactJson(v)) as T;
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactJson(v)])) as T;
    return value;
  }

  /** The forms to hide in the job log (`::add-mask::`): only values that passed the test above. */
  values(): string[] {
    return [...this.forms];
  }

  private rawOf(form: string): string {
    return this.raw.get(form) ?? form;
  }

  private remember(value: string): void {
    if (MASKED.test(value) || isOrdinaryWord(value)) return;
    const add = (form: string, raw: string) => {
      if (form.length < MIN_FREE_TEXT_LENGTH || this.forms.has(form)) return;
      this.forms.add(form);
      this.raw.set(form, raw);
      this.pattern = undefined;
    };
    add(value, value);
    // string transforms a patch may apply on the way (Convert ToUpper, ToLower)
    add(value.toUpperCase(), value);
    add(value.toLowerCase(), value);
    for (const encoded of base64Forms(value)) add(encoded, value);
    const decoded = decodeBase64(value);
    if (decoded !== undefined) {
      add(decoded, decoded);
      for (const encoded of base64Forms(decoded)) add(encoded, decoded);
    }
  }

  private compiled(): RegExp | null {
    if (this.pattern !== undefined) return this.pattern;
    const forms = [...this.forms].sort((a, b) => b.length - a.length);
    if (forms.length === 0) return (this.pattern = null);
    const alternatives = forms.map((f) => `${/^\w/.test(f) ? "(?<![\\w])" : ""}${escapeRegExp(f)}${/\w$/.test(f) ? "(?![\\w])" : ""}`);
    return (this.pattern = new RegExp(alternatives.join("|"), "g"));
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
    if (inFreeText) this.remember(value);
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
  "true", "false", "yes", "no", "on", "off", "null", "none", "nil", "empty", "default", "enabled", "disabled", "enable", "disable",
  "error", "errors", "warning", "warnings", "info", "debug", "notice", "fatal", "normal",
  "pass", "passes", "passed", "fail", "fails", "failed", "unknown", "changed", "unchanged", "added", "removed", "deleted", "new", "fixed",
  "rule", "file", "line", "kind", "name", "message", "severity", "path", "source", "sources", "finding", "findings",
  "test", "tests", "admin", "user", "root", "local", "localhost", "latest", "main", "master", "stable",
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
const DESCRIBES_A_CONNECTION = /^(user(name)?|host(name)?|port|database|db(name)?|schema|namespace|region|zone|sslmode|protocol|driver|engine|cluster|bucket|project|account(_?id)?|tenant(_?id)?)$/i;

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
const SECRET_HOLDERS = new Set(["client", "shared", "webhook", "signing", "hmac", "jwt", "session", "cookie", "encryption", "app", "api", "master", "root", "admin", "bootstrap", "join", "consumer", "oauth", "private", "auth", "token"]);

/** The camelCase word before a suffix: `githubConfigSecret` → `config`. */
function wordBefore(field: string, suffix: string): string {
  return (field.slice(0, field.length - suffix.length).split(/(?=[A-Z])|[-_.]/).pop() ?? "").toLowerCase();
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

/** How a value shows when a transform or a Secret encodes it: base64 and base64url, padded or not. */
function base64Forms(value: string): string[] {
  const standard = Buffer.from(value, "utf8").toString("base64");
  const url = Buffer.from(value, "utf8").toString("base64url");
  return [...new Set([standard, standard.replace(/=+$/, ""), url, `${url}${"=".repeat((4 - (url.length % 4)) % 4)}`])];
}

/** The text a base64 value encodes, when it is base64 of printable UTF-8. */
function decodeBase64(value: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  const text = Buffer.from(value, "base64").toString("utf8");
  return /^[\x20-\x7e\t\n\r]+$/.test(text) ? text : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Findings whose free text (message, detail) is redacted; everything else is as it was. */
export function maskFindings(findings: Finding[], masker: SecretMasker): Finding[] {
  return findings.map((f) => {
    const out = { ...f, message: masker.redact(f.message) };
    if (f.detail !== undefined) out.detail = masker.redact(f.detail);
    return out;
  });
}
