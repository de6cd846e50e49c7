/**
 * `diff --format text`, for a terminal: the PR report's content without its markup (headings,
 * emphasis, code spans, collapsed blocks and links turned into plain text; diffs kept as they are),
 * so the terminal shows the same report the pull request gets, whole.
 */
export function markdownToText(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^(`{3,}|~{3,})/.test(line.trim())) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(`    ${line}`);
      continue;
    }
    out.push(plain(line));
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}

function plain(line: string): string {
  return line
    .replace(/^#{1,6} /, "")
    .replace(/<details><summary>(.*?)<\/summary>/g, "$1:")
    .replace(/<\/?details>|<\/?sub>/g, "")
    .replace(/\[([^\]]*)\]\(([^)\s]*)\)/g, "$1 ($2)")
    .replace(/\*\*(.+?)\*\*/g, "$1")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, "$1");
}
