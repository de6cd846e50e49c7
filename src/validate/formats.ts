import net from "node:net";

/**
 * The string and number formats the API server checks. Formats not listed here are ignored, as
 * the API server ignores formats it does not know.
 */
type FormatCheck = { type: "string"; validate: (s: string) => boolean } | { type: "number"; validate: (n: number) => boolean };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/i;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;

function isCidr(s: string): boolean {
  const [ip, bits, extra] = s.split("/");
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  const version = net.isIP(ip);
  return version !== 0 && Number(bits) <= (version === 4 ? 32 : 128);
}

function isUri(s: string): boolean {
  try {
    return new URL(s).protocol.length > 1;
  } catch {
    return false;
  }
}

export const FORMATS: Record<string, FormatCheck> = {
  int32: { type: "number", validate: (n) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 },
  int64: { type: "number", validate: (n) => Number.isInteger(n) },
  "date-time": { type: "string", validate: (s) => RFC3339.test(s) },
  datetime: { type: "string", validate: (s) => RFC3339.test(s) },
  date: { type: "string", validate: (s) => DATE.test(s) },
  byte: { type: "string", validate: (s) => BASE64.test(s) },
  uuid: { type: "string", validate: (s) => UUID.test(s) },
  ipv4: { type: "string", validate: (s) => net.isIPv4(s) },
  ipv6: { type: "string", validate: (s) => net.isIPv6(s) },
  cidr: { type: "string", validate: isCidr },
  hostname: { type: "string", validate: (s) => HOSTNAME.test(s) },
  email: { type: "string", validate: (s) => EMAIL.test(s) },
  uri: { type: "string", validate: isUri },
  duration: { type: "string", validate: (s) => s === "0" || GO_DURATION.test(s) },
  mac: { type: "string", validate: (s) => MAC.test(s) },
};

/** What each format means, for messages. */
export const FORMAT_HINTS: Record<string, string> = {
  int32: "a 32-bit integer (-2147483648 to 2147483647)",
  "date-time": "an RFC 3339 date-time such as 2024-01-02T15:04:05Z",
  datetime: "an RFC 3339 date-time such as 2024-01-02T15:04:05Z",
  date: "a date such as 2024-01-02",
  byte: "base64-encoded data",
  duration: "a Go duration such as 30s or 1h30m",
};
