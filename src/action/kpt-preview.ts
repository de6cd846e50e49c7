import fs from "node:fs";
import path from "node:path";
import * as YAML from "yaml";
import { git, topLevel } from "../git/git.js";
import { updatePreview, type UpdatePreview } from "../kpt/index.js";
import { sameRepositoryUrl, UpdatePreviewError, upstreamDirectory } from "../kpt/update.js";
import { code, escapeMarkdown, fenced } from "../core/markdown.js";

/**
 * `mode: pr` for kpt catalogs: when a pull request changes an upstream package that downstream
 * packages of the same repository lock to, what `kpt pkg update` would then do to each of them
 * (composition-ci kpt update-preview), as a section of the comment. Only upstreams in this very
 * repository are followed: a pull request must not make the run read another repository of the
 * runner, and an upstream directory must stay inside the repository.
 */
export async function kptUpstreamPreviews(root: string, changed: string[]): Promise<string> {
  const top = await topLevel(root).catch(() => undefined);
  if (!top || !changed.length) return "";
  const remotes = (await git(["remote", "-v"], top).catch(() => ""))
    .split("\n")
    .map((l) => l.split(/\s+/)[1])
    .filter((u): u is string => Boolean(u));
  const sections: string[] = [];
  for (const kptfile of findKptfiles(top)) {
    const upstream = upstreamOf(kptfile);
    if (!upstream || !remotes.some((r) => sameRepositoryUrl(r, upstream.repo))) continue;
    const dir = upstream.directory.replace(/\/+$/, "");
    if (dir.split("/").some((p) => p === ".." || p === ".git")) continue;
    if (!changed.some((f) => dir === "" || f === dir || f.startsWith(`${dir}/`))) continue;
    try {
      sections.push(previewMarkdown(await updatePreview({ pkg: path.dirname(kptfile), displayRoot: top })));
    } catch (err) {
      if (!(err instanceof UpdatePreviewError)) throw err;
      sections.push(`- ${code(path.relative(top, path.dirname(kptfile)) || ".")}: no preview: ${escapeMarkdown(err.message)}`);
    }
  }
  return sections.length
    ? `**kpt: what pulling this upstream change would do downstream** (\`kpt pkg update\`, resource-merge)\n\n${sections.join("\n\n")}`
    : "";
}

function previewMarkdown(p: UpdatePreview): string {
  const head = `- ${code(p.package)} (upstream ${code(p.upstream.directory)}, locked at ${code(p.upstream.from)}): ${p.error ? `kpt pkg update would fail: ${escapeMarkdown(p.error)}` : p.files.length ? `${p.files.length} file${p.files.length === 1 ? "" : "s"} would change` : "nothing would change"}`;
  const conflicts = p.conflicts.map((c) => `  - ⚠️ ${code(`${c.file}: ${c.resource}: ${c.field}`)}: a local change upstream's value overwrites`);
  const diffs = p.files.length ? `\n\n<details><summary>diff</summary>\n\n${fenced(p.files.map((f) => f.diff).join("\n"), "diff")}\n\n</details>` : "";
  return [head, ...conflicts].join("\n") + diffs;
}

/** The repository and directory the preview will read, resolved exactly as updatePreview resolves them. */
function upstreamOf(kptfile: string): { repo: string; directory: string } | undefined {
  try {
    const doc = YAML.parse(fs.readFileSync(kptfile, "utf8")) as Record<string, unknown> | null;
    if (!doc || typeof doc !== "object") return undefined;
    const git = (key: string) => ((doc[key] as { git?: { repo?: unknown } } | undefined)?.git ?? {}) as { repo?: unknown };
    const repo = git("upstreamLock").repo ?? git("upstream").repo;
    return typeof repo === "string" ? { repo, directory: upstreamDirectory(doc) } : undefined;
  } catch {
    return undefined;
  }
}

/** Every Kptfile below the repository's top level (not in .git or node_modules), links not followed. */
function findKptfiles(top: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 20) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== ".git" && e.name !== "node_modules") walk(path.join(dir, e.name), depth + 1);
      else if (e.isFile() && e.name === "Kptfile") out.push(path.join(dir, e.name));
    }
  };
  walk(top, 0);
  return out.sort();
}
