/**
 * What Go's YAML parsers (go-yaml, and so kubectl and the API server's clients) accept and YAML
 * 1.2 does not: a multi-line quoted string whose continuation lines are indented no deeper than
 * its key. Generated CRDs often have them. Indenting those lines one column past the key changes
 * nothing of the value (line folding drops the indentation) and keeps every line number.
 */
export function indentQuotedContinuations(text: string): string | undefined {
  const lines = text.split("\n");
  let changed = false;
  let quote: "'" | '"' | undefined;
  let minIndent = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (quote) {
      const indent = line.length - line.trimStart().length;
      if (line.trim() !== "" && indent < minIndent) {
        lines[i] = " ".repeat(minIndent - indent) + line;
        changed = true;
      }
      if (closes(line, 0, quote)) quote = undefined;
      continue;
    }
    const open = openingQuote(line);
    if (open && !closes(line, open.at + 1, open.quote)) {
      quote = open.quote;
      minIndent = open.keyColumn + 1;
    }
  }
  return changed ? lines.join("\n") : undefined;
}

/** `  key: 'text` or `- key: "text`: the quote that starts a mapping value, and the key's column. */
function openingQuote(line: string): { quote: "'" | '"'; at: number; keyColumn: number } | undefined {
  const m = /^(\s*(?:-\s+)*)([^\s#'"{[][^:#]*?):\s+(['"])/.exec(line);
  if (!m) return undefined;
  return { quote: m[3] as "'" | '"', at: m[0].length - 1, keyColumn: m[1]!.length };
}

/** True when the quoted string that is open at `from` ends on this line. */
function closes(line: string, from: number, quote: "'" | '"'): boolean {
  for (let i = from; i < line.length; i++) {
    const c = line[i];
    if (quote === '"' && c === "\\") {
      i++;
      continue;
    }
    if (c !== quote) continue;
    if (quote === "'" && line[i + 1] === "'") {
      i++;
      continue;
    }
    return true;
  }
  return false;
}
