import { ENVIRONMENT_KEY } from "../response.js";
import { readTemplates, type TemplateFileSystem } from "./filesystem.js";
import type { GoTemplateInput } from "./input.js";

/** NewTemplateSourceGetter: the template text from the input's source (template.go). */
export function templateText(input: GoTemplateInput, context: Record<string, unknown> | undefined, fsys: TemplateFileSystem | undefined): string {
  switch (input.source) {
    case "Inline": {
      const inline = input.inline;
      if (!inline || (!inline.template && (inline.templates ?? []).length === 0)) {
        throw new Error("inline.template or inline.templates should be provided");
      }
      return inline.template ? inline.template : (inline.templates ?? []).join("\n---\n");
    }
    case "FileSystem": {
      const dir = input.fileSystem?.dirPath;
      if (!dir) throw new Error("fileSystem.dirPath should be provided");
      if (!fsys) {
        throw new Error(
          `cannot read tmpl from the folder {${dir}}: no template files are available to this render ` +
            "(a relative dirPath is read from the composition's directory; map an absolute one in the function's config)",
        );
      }
      try {
        return readTemplates(fsys, dir);
      } catch (err) {
        throw new Error(`cannot read tmpl from the folder {${dir}}: ${(err as Error).message}`);
      }
    }
    case "Environment": {
      const key = input.environment?.key;
      if (!key) throw new Error("environment.key should be provided");
      const env = context?.[ENVIRONMENT_KEY];
      if (!env || typeof env !== "object" || Array.isArray(env)) {
        throw new Error(`cannot read tmpl from the environment: ${ENVIRONMENT_KEY} key does not exist in context`);
      }
      if (!Object.hasOwn(env, key)) throw new Error(`cannot read tmpl from the environment: key: ${key} does not exist`);
      const t = (env as Record<string, unknown>)[key];
      if (typeof t !== "string") throw new Error(`cannot read tmpl from the environment: key: ${key} value is not a string`);
      return t;
    }
    case "":
      throw new Error("source is required");
    default:
      throw new Error(`invalid source: ${input.source}`);
  }
}
