import * as YAML from "yaml";
import { toGoYaml } from "../goyaml/index.js";
import type { JsonObject } from "../core/json.js";

/** A render's YAML stream as `crossplane render` prints it (go-yaml's output; the yaml library's where go-yaml cannot write a value). */
export function yamlStream(documents: JsonObject[]): string {
  return documents.map((d) => `---\n${goYamlOrPlain(d)}`).join("");
}

function goYamlOrPlain(document: JsonObject): string {
  try {
    return toGoYaml(document);
  } catch {
    return YAML.stringify(document, { sortMapEntries: true, lineWidth: 0, version: "1.1" });
  }
}
