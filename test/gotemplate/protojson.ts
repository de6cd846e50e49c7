import { RunFunctionResponse } from "@crossplane-org/function-sdk-typescript";

// Shared by the built-in functions' conformance tests in test/render (kept here, beside the engine tests, so it lives in this room).

/** A response in proto3 JSON as protojson writes it (durations as "60s"), for whole-response comparisons. */
export function responseJson(rsp: RunFunctionResponse): Record<string, unknown> {
  const json = RunFunctionResponse.toJSON(rsp) as Record<string, any>;
  const ttl = rsp.meta?.ttl;
  if (json.meta && ttl) {
    const nanos = ttl.nanos ?? 0;
    const frac = nanos ? "." + String(nanos).padStart(9, "0").replace(/0+$/, "") : "";
    json.meta.ttl = `${ttl.seconds ?? 0}${frac}s`;
  }
  return json;
}
