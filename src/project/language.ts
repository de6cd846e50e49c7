import fs from "node:fs";
import path from "node:path";

/**
 * Which builder the CLI would use for a project function's folder (crossplane/cli
 * internal/project/functions: the builders are asked in this order and the first that matches
 * builds), and the base image each builder starts from.
 */
export type ProjectLanguage = "kcl" | "python" | "go" | "go-templating";

export const LANGUAGE_NAMES: Record<ProjectLanguage, string> = { kcl: "KCL", python: "Python", go: "Go", "go-templating": "Go-template" };

/**
 * The base images the builders put a folder on (crossplane/cli v2.5). KCL and go-templating are
 * the function package plus the folder at /src and an environment variable naming it: no build.
 */
export const BASE_IMAGES: Partial<Record<ProjectLanguage, string>> = {
  kcl: "xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.12.1",
  "go-templating": "xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.12.0",
};

/** Where the builders put the folder in the image, and the environment that points the function at it. */
export const SOURCE_MOUNT = "/src";
export function builderEnvironment(language: ProjectLanguage, source: string): Record<string, string> {
  if (language === "kcl") return { FUNCTION_KCL_DEFAULT_SOURCE: source, KCL_PKG_PATH: source };
  if (language === "go-templating") return { FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE: source };
  return {};
}

const TEMPLATE_EXTENSIONS = [".gotmpl", ".tmpl"];

/**
 * The builders' order: KCL (`kcl.mod`), Python (`pyproject.toml` and a `function/` package), Go
 * (`go.mod`), go-templating (every regular file a `.gotmpl` or `.tmpl`). A folder holding `main.k`
 * without its `kcl.mod` is read as KCL too: function-kcl runs a lone `main.k`, and repositories
 * are often copied without it. Undefined: no builder matches (or the folder is missing).
 */
export function projectFunctionLanguage(dir: string): ProjectLanguage | undefined {
  const has = (file: string) => fs.existsSync(path.join(dir, file));
  if (has("kcl.mod")) return "kcl";
  if (has("pyproject.toml") && isDirectory(path.join(dir, "function"))) return "python";
  if (has("go.mod")) return "go";
  if (onlyTemplates(dir)) return "go-templating";
  if (has("main.k")) return "kcl";
  if (has("main.py")) return "python";
  return undefined;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every regular file below `dir` a template (no link, no other file), and at least one, as the go-templating builder's walk decides. */
function onlyTemplates(dir: string): boolean {
  let found = false;
  const walk = (d: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) {
        if (!walk(path.join(d, e.name))) return false;
      } else if (e.isFile() && TEMPLATE_EXTENSIONS.includes(path.extname(e.name))) found = true;
      else return false;
    }
    return true;
  };
  return walk(dir) && found;
}
