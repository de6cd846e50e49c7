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
    const o = object as Record<string, unknown>;
    const isSecret = o && o.kind === "Secret" && (o.apiVersion === "v1" || o.apiVersion === undefined);
    return this.walk(object, isSecret ? "secret-root" : undefined) as T;
  }

  /** Remembers the secret values of an object without copying it (repository Secrets, credentials). */
  learn(object: unknown): void {
    this.maskObject(object);
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

  private walk(value: unknown, context: "secret-root" | "secret-data" | undefined): unknown {
    if (Array.isArray(value)) return value.map((v) => this.walk(v, undefined));
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (context === "secret-data" && isScalar(v)) out[key] = this.mask(String(v), true);
      else if (context === "secret-root" && (key === "data" || key === "stringData")) out[key] = this.walk(v, "secret-data");
      else if (isScalar(v) && v !== "" && (SENSITIVE_NAME.test(key) || KEY_NAME.test(key))) out[key] = this.mask(String(v), SENSITIVE_NAME.test(key) || SECRET_KEY_NAME.test(key));
      else out[key] = this.walk(v, undefined);
    }
    return out;
  }

  private mask(value: string, remember: boolean): string {
    if (value.startsWith("<masked sha256:")) return value;
    if (remember) this.remember(value);
    return maskValue(value);
  }

  private remember(value: string): void {
    if (value.length >= MIN_REDACTED_LENGTH) this.secretValues.add(value);
    const decoded = decodeBase64(value);
    if (decoded && decoded.length >= MIN_REDACTED_LENGTH) this.secretValues.add(decoded);
  }
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
