/** The GoTemplate input (gotemplating.fn.crossplane.io/v1beta1) as the function reads it. */

export type TemplateSource = "Inline" | "FileSystem" | "Environment" | string;

export interface GoTemplateInput {
  source: TemplateSource;
  inline?: { template?: string; templates?: string[] };
  fileSystem?: { dirPath?: string };
  environment?: { key?: string };
  delims?: { left?: string; right?: string };
  options?: string[];
  ttl?: string;
}

/** json.Unmarshal's complaint for a value of the wrong JSON type. */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v;
}

function field<T>(o: Record<string, unknown>, key: string, want: "string" | "object" | "array", goType: string, path: string): T | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const ok = want === "array" ? Array.isArray(v) : want === "object" ? typeof v === "object" && !Array.isArray(v) : typeof v === want;
  if (!ok) throw new Error(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${path} of type ${goType}`);
  return v as T;
}

/** request.GetInput into a GoTemplate; throws with encoding/json's message on a type mismatch. */
export function decodeInput(raw: Record<string, unknown> | undefined): GoTemplateInput {
  const o = raw ?? {};
  const input: GoTemplateInput = { source: field<string>(o, "source", "string", "string", "GoTemplate.source") ?? "" };
  const inline = field<Record<string, unknown>>(o, "inline", "object", "v1beta1.TemplateSourceInline", "GoTemplate.inline");
  if (inline) {
    input.inline = {
      template: field<string>(inline, "template", "string", "string", "GoTemplate.inline.template"),
      templates: field<unknown[]>(inline, "templates", "array", "[]string", "GoTemplate.inline.templates")?.map((t, i) => {
        if (typeof t !== "string") throw new Error(`json: cannot unmarshal ${jsonType(t)} into Go struct field GoTemplate.inline.templates of type string`);
        void i;
        return t;
      }),
    };
  }
  const fs = field<Record<string, unknown>>(o, "fileSystem", "object", "v1beta1.TemplateSourceFileSystem", "GoTemplate.fileSystem");
  if (fs) input.fileSystem = { dirPath: field<string>(fs, "dirPath", "string", "string", "GoTemplate.fileSystem.dirPath") };
  const env = field<Record<string, unknown>>(o, "environment", "object", "v1beta1.TemplateSourceEnvironment", "GoTemplate.environment");
  if (env) input.environment = { key: field<string>(env, "key", "string", "string", "GoTemplate.environment.key") };
  const delims = field<Record<string, unknown>>(o, "delims", "object", "v1beta1.Delims", "GoTemplate.delims");
  if (delims) {
    input.delims = {
      left: field<string>(delims, "left", "string", "string", "GoTemplate.delims.left"),
      right: field<string>(delims, "right", "string", "string", "GoTemplate.delims.right"),
    };
  }
  const options = field<unknown[]>(o, "options", "array", "[]string", "GoTemplate.options");
  if (options) {
    input.options = options.map((x) => {
      if (typeof x !== "string") throw new Error(`json: cannot unmarshal ${jsonType(x)} into Go struct field GoTemplate.options of type string`);
      return x;
    });
  }
  input.ttl = field<string>(o, "ttl", "string", "string", "GoTemplate.ttl");
  return input;
}
