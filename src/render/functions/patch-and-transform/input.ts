import { loadBuiltinSchemas } from "../../../validate/schemas/builtin.js";
import type { OpenAPISchema } from "../../../validate/schemas/types.js";
import { decodeLikeGo } from "../go-decode.js";
import type { Resources } from "./types.js";

let resourcesSchema: OpenAPISchema | undefined;

/** The Go types of the input, as the built-in schema of pt.fn.crossplane.io Resources states them. */
function inputSchema(): OpenAPISchema {
  resourcesSchema ??= loadBuiltinSchemas().find((b) => b.gvk.group === "pt.fn.crossplane.io" && b.gvk.kind === "Resources")?.schema ?? {};
  return resourcesSchema;
}

/** The function's input as its Go code sees it after decoding, or Go's decoding error. */
export function decodeResources(input: unknown): { input: Resources } | { error: string } {
  const decoded = decodeLikeGo(input ?? {}, inputSchema(), "Resources");
  return "error" in decoded ? decoded : { input: decoded.value as Resources };
}
