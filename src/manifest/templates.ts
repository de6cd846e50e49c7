import fs from "node:fs";
import path from "node:path";

/**
 * Template languages whose files parse as YAML but are not manifests: what applies them is the
 * output of their tool, not the file. Each is recognised by what its tool reads:
 * - ytt: annotation comments (`#@ load`, `#@ def`, `#@data/values`) and `_ytt_lib/` libraries,
 *   which only produce YAML when another file loads them;
 * - Backstage software templates: `${{ values.name }}` expressions in a skeleton;
 * - nunjucks / Jinja: `{% … %}` tags;
 * - Helm: a chart's `templates/` files (beside its Chart.yaml) with `{{ }}` actions, even quoted
 *   ones that YAML reads as strings.
 */
export function templateLanguage(text: string, file: string, abs?: string): string | undefined {
  if (/(^|\/)_ytt_lib\//.test(file) || /^[ \t]*#@[ \t]*[\w/(]/m.test(text)) return "ytt";
  if (text.includes("${{")) return "Backstage";
  if (/\{%-?\s*\w[\s\S]*?-?%\}/.test(text)) return "nunjucks/Jinja";
  if (abs && text.includes("{{") && inHelmChartTemplates(abs)) return "Helm";
  return undefined;
}

const chartDirs = new Map<string, boolean>();

export function inHelmChartTemplates(abs: string): boolean {
  for (let dir = path.dirname(abs); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "templates") continue;
    const chart = path.dirname(dir);
    let known = chartDirs.get(chart);
    if (known === undefined) chartDirs.set(chart, (known = fs.existsSync(path.join(chart, "Chart.yaml"))));
    if (known) return true;
  }
  return false;
}
