import { unmarshalYaml } from "../../../gotemplate/goyaml/index.js";
import { marshalJson } from "../../../go/json.js";
import { formatValue, GoError, sprintf, type Value } from "../../../gotemplate/index.js";
import type { JsonObject } from "../../../core/json.js";

/**
 * The rendered stream as Kubernetes' YAMLOrJSONDecoder reads it into Unstructured objects
 * (a JSON stream when it starts with "{", else YAML documents split on "---" lines, each
 * through sigs.k8s.io/yaml), with function-go-templating's wording of the errors.
 */

export type Decoded = { objects: JsonObject[] } | { error: string };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function missingKind(raw: string): Error {
  return new Error(`Object 'Kind' is missing in '${raw}'`);
}

function checkKind(v: unknown, raw: () => string): JsonObject | null {
  if (v === null) return null;
  if (!isObject(v))
    throw new Error(
      `json: cannot unmarshal ${Array.isArray(v) ? "array" : typeof v === "string" ? "string" : typeof v} into Go value of type map[string]interface {}`,
    );
  if (typeof v.kind !== "string" || v.kind === "") throw missingKind(raw());
  return v;
}

/** The JSON values of a concatenated JSON stream, with their raw text. */
function* jsonValues(text: string): Generator<{ value: unknown; raw: string }> {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  for (;;) {
    ws();
    if (i >= text.length) return;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && " \t\r\n".includes(c)) break;
    }
    const raw = text.slice(start, i);
    try {
      yield { value: JSON.parse(raw), raw };
    } catch {
      const line = text.slice(0, start).split("\n").length - 1;
      throw new Error(`json: line ${line}: invalid character in JSON stream`);
    }
  }
}

/** YAMLReader: documents separated by lines that are "---" followed only by spaces. */
function yamlDocuments(text: string): string[] {
  const docs: string[] = [];
  let buffer = "";
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("---") && line.slice(3).trim() === "") {
      if (buffer !== "") docs.push(buffer);
      buffer = "";
      continue;
    }
    buffer += line + "\n";
  }
  if (buffer !== "") docs.push(buffer);
  return docs;
}

/** sigs.k8s.io/yaml's Unmarshal into *Unstructured. */
function yamlObject(doc: string): JsonObject | null {
  let v: Value;
  try {
    v = unmarshalYaml(doc, { version: 2, json: true });
  } catch (err) {
    const msg = (err as Error).message;
    throw new Error(msg.startsWith("error converting YAML to JSON") ? msg : `error converting YAML to JSON: ${msg}`);
  }
  if (v === null || v === undefined) return null;
  try {
    return checkKind(v, () => marshalJson(v));
  } catch (err) {
    throw new Error(`error unmarshaling JSON: while decoding JSON: ${(err as Error).message}`);
  }
}

function moveToNextDoc(lines: string[], startLine: number): number {
  for (let i = startLine; i <= lines.length; i++) if (lines[i - 1].trim() === "---" && i > startLine) return i;
  return startLine;
}

/** getYamlErrorContextFromErr: where in the whole output a document's YAML error is. */
function yamlErrorContext(message: string, startLine: number, lines: string[], docIndex: number): string | undefined {
  const m = /^error converting YAML to JSON: yaml: line (-?\d+):(.*)$/s.exec(message);
  if (!m) return undefined;
  const relLine = Number(m[1]);
  const absLine = startLine + relLine;
  if (absLine - 1 >= lines.length || absLine - 1 < 0) return undefined;
  let ctx = lines[absLine - 1].trim();
  if ([...ctx].length > 80) ctx = sliceBytes(ctx, 80) + "...";
  return `error converting YAML to JSON: yaml: line ${absLine} (document ${docIndex + 1}, line ${relLine}) near: '${ctx}': ${m[2].trim()}`;
}

function sliceBytes(s: string, n: number): string {
  return Buffer.from(s, "utf8").subarray(0, n).toString("utf8");
}

/** unstructured.NestedStringMap(u, "metadata", "annotations")'s complaint, if any. */
function annotationsError(u: JsonObject): string | undefined {
  const metadata = u.metadata;
  if (metadata === undefined || metadata === null) return undefined;
  if (!isObject(metadata)) return `.metadata accessor error: ${goValue(metadata)} is of the type ${goType(metadata)}, expected map[string]interface{}`;
  const annotations = metadata.annotations;
  if (annotations === undefined || annotations === null) return undefined;
  if (!isObject(annotations)) {
    return `.metadata.annotations accessor error: ${goValue(annotations)} is of the type ${goType(annotations)}, expected map[string]interface{}`;
  }
  for (const k of Object.keys(annotations).sort()) {
    const v = annotations[k];
    if (typeof v !== "string") {
      return `.metadata.annotations accessor error: contains non-string value in the map under key ${JSON.stringify(k)}: ${goValue(v)} is of the type ${goType(v)}, expected string`;
    }
  }
  return undefined;
}

const goValue = (v: unknown) => formatValue((v ?? null) as Value);
const goType = (v: unknown) => (v === null || v === undefined ? "<nil>" : sprintf("%T", [v as Value]));

/** schema.GroupVersionKind's String(): "group/version, Kind=kind". */
export function gvkString(u: JsonObject): string {
  const apiVersion = typeof u.apiVersion === "string" ? u.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ["", apiVersion];
  return `${group}/${version}, Kind=${typeof u.kind === "string" ? u.kind : ""}`;
}

/** Decodes the rendered output into objects, or the Fatal message function-go-templating gives. */
export function decodeManifests(data: string, annotationName: string): Decoded {
  const objects: JsonObject[] = [];
  const lines = data.split("\n");
  let startLine = moveToNextDoc(lines, 1);
  let docIndex = 0;
  const accept = (u: JsonObject | null): string | undefined => {
    if (!u) return undefined;
    const bad = annotationsError(u);
    if (bad) {
      const metadata = isObject(u.metadata) ? u.metadata : undefined;
      const ann = metadata && isObject(metadata.annotations) ? metadata.annotations : undefined;
      return `invalid annotations in resource '${gvkString(u)} resource-name=${goValue(ann?.[annotationName])}': ${bad}`;
    }
    objects.push(u);
    startLine = moveToNextDoc(lines, startLine);
    docIndex++;
    return undefined;
  };
  const head = data.slice(0, 1024).replace(/^[\s\u0085\u00a0]+/, "");
  try {
    if (head.startsWith("{")) {
      for (const { value, raw } of jsonValues(data)) {
        let u: JsonObject | null;
        try {
          u = checkKind(value, () => raw);
        } catch (err) {
          return { error: `cannot decode manifest: ${(err as Error).message}` };
        }
        const bad = accept(u);
        if (bad) return { error: bad };
      }
    } else {
      for (const doc of yamlDocuments(data)) {
        let u: JsonObject | null;
        try {
          u = yamlObject(doc);
        } catch (err) {
          const msg = (err as Error).message;
          return { error: `cannot decode manifest: ${yamlErrorContext(msg, startLine, lines, docIndex) ?? msg}` };
        }
        const bad = accept(u);
        if (bad) return { error: bad };
      }
    }
  } catch (err) {
    if (err instanceof GoError || err instanceof Error) return { error: `cannot decode manifest: ${err.message}` };
    throw err;
  }
  return { objects };
}
