import crypto from "node:crypto";

/**
 * Secret values never reach output: before an object is diffed or printed, the values of Secrets
 * (`data`, `stringData`) and of fields named like a password, token, secret or key become
 * `<masked sha256:abcd1234>` (the first 8 hex digits of the value's SHA-256), so a change is still
 * visible as a change. The values seen are remembered, and every text written (comments, summaries,
 * JSON, SARIF, annotations) is redacted with them as a last line of defence.
 */

const SENSITIVE_NAME = /(password|passwd|passphrase|token|secret|credential)/i;
const KEY_NAME = /key$/i;
/** `...key` fields whose values are themselves secret (not the name of a key in a Secret). */
const SECRET_KEY_NAME = /(api|access|private|secret|ssh|signing|encryption|client)[-_]?key$/i;
const MIN_REDACTED_LENGTH = 6;

export function maskValue(value: string): string {
  return `<masked sha256:${crypto.createHash("sha256").update(value).digest("hex").slice(0, 8)}>`;
}

export class SecretMasker {
  private readonly secretValues = new Set<string>();

  /** A masked deep copy of a Kubernetes object. */
  maskObject<T>(object: T): T {
    return this.walk(object, rootContext(object), true) as T;
  }

  /** Remembers the secret values of an object without copying it (repository Secrets, credentials). */
  learn(object: unknown): void {
    this.walk(object, rootContext(object), false);
  }

  /** `text` with every remembered secret value (and its base64 form) replaced by its mask. */
  redact(text: string): string {
    let out = text;
    for (const value of [...this.secretValues].sort((a, b) => b.length - a.length)) {
      if (out.includes(value)) out = out.split(value).join(maskValue(value));
    }
    return out;
  }

  /** The remembered values (for the runner's log masking). */
  values(): string[] {
    return [...this.secretValues];
  }

  /** Visits every value, remembering secret ones; with `copy`, also returns the masked copy. */
  private walk(value: unknown, context: Context, copy: boolean): unknown {
    if (Array.isArray(value)) return copy ? value.map((v) => this.walk(v, undefined, true)) : value.forEach((v) => this.walk(v, undefined, false));
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      let result: unknown;
      if (context === "secret-data" && isScalar(v)) result = this.mask(String(v), true, copy);
      else if (context === "secret-root" && (key === "data" || key === "stringData")) result = this.walk(v, "secret-data", copy);
      else if (isScalar(v) && v !== "" && (SENSITIVE_NAME.test(key) || KEY_NAME.test(key))) result = this.mask(String(v), hidesValue(key), copy);
      else result = this.walk(v, undefined, copy);
      if (copy) out[key] = result;
    }
    return copy ? out : undefined;
  }

  private mask(value: string, remember: boolean, copy: boolean): string | undefined {
    if (value.startsWith("<masked sha256:")) return value;
    if (remember) this.remember(value);
    return copy ? maskValue(value) : undefined;
  }

  private remember(value: string): void {
    if (value.length >= MIN_REDACTED_LENGTH) this.secretValues.add(value);
    const decoded = decodeBase64(value);
    if (decoded && decoded.length >= MIN_REDACTED_LENGTH) this.secretValues.add(decoded);
  }
}

type Context = "secret-root" | "secret-data" | undefined;

/**
 * Whether the value at a path of an object is one the masker hides (a Secret's data or
 * stringData entry, or a field named like a password, token or private key), so a message about
 * that field shows its mask, never its value.
 */
export function isSecretField(object: unknown, segments: string[]): boolean {
  if (rootContext(object) === "secret-root" && segments.length === 2 && (segments[0] === "data" || segments[0] === "stringData")) return true;
  const last = segments[segments.length - 1];
  return last !== undefined && hidesValue(last);
}

/** A field whose value is itself secret, by its name (a `...key` field only when the key is a secret one). */
function hidesValue(fieldName: string): boolean {
  return SENSITIVE_NAME.test(fieldName) || SECRET_KEY_NAME.test(fieldName);
}

function rootContext(object: unknown): Context {
  const o = object as Record<string, unknown> | null;
  return o && o.kind === "Secret" && (o.apiVersion === "v1" || o.apiVersion === undefined) ? "secret-root" : undefined;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

/** The text a base64 value encodes, when it is base64 of printable UTF-8. */
function decodeBase64(value: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  const text = Buffer.from(value, "base64").toString("utf8");
  return /^[\x20-\x7e\t\n\r]+$/.test(text) ? text : undefined;
}
