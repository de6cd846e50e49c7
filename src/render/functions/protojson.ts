import { RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";

/**
 * A RunFunctionResponse in proto3 JSON as Go's protojson writes it: what the generated toJSON
 * gives, except a Duration, which protojson writes as a string of seconds ("60s", "1.500s").
 */
export function responseToJson(rsp: RunFunctionResponse): Record<string, unknown> {
  const json = RunFunctionResponse.toJSON(rsp) as Record<string, unknown> & { meta?: Record<string, unknown> };
  const ttl = rsp.meta?.ttl;
  if (json.meta && ttl) json.meta.ttl = durationJson(Number(ttl.seconds ?? 0), ttl.nanos ?? 0);
  return json;
}

/** protojson's Duration: seconds, then 0, 3, 6 or 9 fractional digits. */
export function durationJson(seconds: number, nanos: number): string {
  if (!nanos) return `${seconds}s`;
  const digits = String(Math.abs(nanos)).padStart(9, "0");
  const frac = digits.endsWith("000000") ? digits.slice(0, 3) : digits.endsWith("000") ? digits.slice(0, 6) : digits;
  const sign = seconds < 0 || nanos < 0 ? "-" : "";
  return `${sign}${Math.abs(seconds)}.${frac}s`;
}
