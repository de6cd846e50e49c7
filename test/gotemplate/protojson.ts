// Shared by the built-in functions' conformance tests: responses in proto3 JSON as protojson writes them.
export { responseToJson as responseJson } from "../../src/render/functions/protojson.js";

/** A response with its results' messages left out: the Go tests blank them where a table says so. */
export function withoutMessages(rsp: Record<string, any>): Record<string, any> {
  if (rsp.results) rsp.results = rsp.results.map(({ message: _m, ...r }: Record<string, unknown>) => r);
  return rsp;
}
