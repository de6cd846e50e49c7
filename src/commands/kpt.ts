import path from "node:path";
import { GitError } from "../git/git.js";
import { updatePreview, type UpdatePreview } from "../kpt/index.js";
import { UpdatePreviewError } from "../kpt/update.js";
import { type CommandIO } from "./io.js";
import { UsageError, oneOf } from "../core/usage.js";
import { parseCommandArgs, writeOutput } from "./options.js";

export const KPT_HELP = `Usage: composition-ci kpt update-preview PKG [options]

What \`kpt pkg update\` (resource-merge strategy) would change in the downstream package PKG,
written as a diff; nothing is written to the package. The three versions kpt merges are read from
git: the upstream at the Kptfile's upstreamLock.git.commit, the upstream now, and PKG as it is.
The upstream must be this repository (a catalog directory, matched by the lock's repo URL
against this repository's remotes) or a git repository at a local path; nothing is fetched.
"Now" is the working tree of the upstream repository (for another repository: its
upstream.git.ref), or --upstream-ref.

Fields both sides changed take upstream's value (kpt says nothing): they are listed as
conflicts. Exit codes: 0 preview written, 1 kpt pkg update would fail (or --fail-on-conflict
and there are conflicts), 2 usage error.

Options:
  --upstream-ref REF    the upstream version to merge (a branch, tag or commit of the upstream repository)
  --format F            text (default) or json
  --output FILE         write the preview to FILE instead of stdout
  --fail-on-conflict    exit 1 when a local change would be overwritten
`;

const OPTIONS = {
  "upstream-ref": { type: "string" },
  format: { type: "string" },
  output: { type: "string" },
  "fail-on-conflict": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function kptCommand(argv: string[], io: CommandIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout(KPT_HELP);
    return 0;
  }
  if (sub !== "update-preview") throw new UsageError(`unknown kpt command "${sub}"; see composition-ci kpt --help`);
  const { values, positionals } = parseCommandArgs(rest, OPTIONS);
  if (values.help) {
    io.stdout(KPT_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError("kpt update-preview needs one package directory; see --help");
  const format = oneOf("--format", values.format ?? "text", ["text", "json"] as const);
  let preview: UpdatePreview;
  try {
    preview = await updatePreview({ pkg: path.resolve(io.cwd, positionals[0]!), upstreamRef: values["upstream-ref"], displayRoot: io.cwd });
  } catch (err) {
    if (err instanceof UpdatePreviewError || err instanceof GitError) throw new UsageError(err.message);
    throw err;
  }
  writeOutput(io, values.output, format === "json" ? `${JSON.stringify(preview, null, 2)}\n` : formatPreview(preview));
  if (preview.error) return 1;
  return values["fail-on-conflict"] && preview.conflicts.length ? 1 : 0;
}

function show(v: unknown): string {
  return v === undefined ? "(absent)" : typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v);
}

export function formatPreview(p: UpdatePreview): string {
  const lines = [
    `kpt pkg update (resource-merge) of ${p.package}: upstream ${p.upstream.repo} ${p.upstream.directory}, from ${p.upstream.from} (the lock) to ${p.upstream.to}`,
    "",
  ];
  if (p.error) lines.push(`kpt pkg update would fail: ${p.error}`, "");
  for (const f of p.files) lines.push(f.diff, "");
  if (p.conflicts.length) {
    lines.push(`Conflicts: local changes the update overwrites with upstream's value (${p.conflicts.length}):`);
    for (const c of p.conflicts) {
      const what =
        c.kind === "removed-upstream"
          ? `upstream removed it; the local value ${show(c.local)} goes`
          : `local ${show(c.local)}, upstream ${show(c.upstream)}: upstream's wins`;
      lines.push(`  ${c.file}: ${c.resource}: ${c.field}: ${what}`);
    }
    lines.push("");
  }
  if (p.notes.length) {
    lines.push("Notes:");
    for (const n of p.notes) lines.push(`  ${n}`);
    lines.push("");
  }
  const n = p.files.length;
  lines.push(n ? `${n} file${n === 1 ? "" : "s"} would change; nothing was written` : "nothing would change");
  return `${lines.join("\n")}\n`;
}
