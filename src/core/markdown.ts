/**
 * Text from a repository placed in GitHub markdown: shown as text, never acted on. HTML is
 * escaped, markdown punctuation is backslash-escaped (no images, links, emphasis or tables), and
 * mentions and bare URLs are broken with a zero-width space so GitHub neither notifies anyone nor
 * links anywhere. Line breaks become spaces unless the caller keeps them.
 */
export function escapeMarkdown(text: string, options: { keepLines?: boolean } = {}): string {
  return inert(text, true, options.keepLines);
}

/**
 * The same, except that the text's own code spans (`spec.size`, as finding messages name fields)
 * stay code spans: what is inside one is shown as it is, so it needs no escaping.
 */
export function escapeMarkdownKeepingCode(text: string): string {
  return text
    .split(/(`[^`\r\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? code(part.slice(1, -1)) : escapeMarkdown(part)))
    .join("");
}

/**
 * Text for inside an HTML block (a `<summary>`): GitHub does not read markdown there, so a
 * backslash escape would show; HTML is escaped, and mentions and URLs are broken, as above.
 */
export function escapeHtmlText(text: string): string {
  return inert(text, false);
}

/** Every line break markdown knows (CommonMark: LF, CRLF, and a lone CR) as one `\n`. */
function oneKindOfLineBreak(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function inert(text: string, markdown: boolean, keepLines = false): string {
  let out = oneKindOfLineBreak(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  if (markdown) out = out.replace(/[\\`*_[\]()#!|~{}]/g, "\\$&");
  out = out
    // `#12`, `org/repo#12`: a cross-reference would put this text on another issue's timeline.
    .replace(/#(?=\d)/g, "#&#8203;")
    .replace(/@(?=\w)/g, "@&#8203;")
    .replace(/:\/\//g, ":&#8203;//")
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}&#8203;.`);
  // One pass over each run of whitespace (linear): a run holding a line break becomes one space.
  return keepLines ? out.replace(/\n/g, "<br>") : out.replace(/\s+/g, (run) => (run.includes("\n") ? " " : run));
}

/** A code span that holds any text (a fence longer than any run of backticks inside it). */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${oneKindOfLineBreak(text).replace(/\n/g, " ")}${pad}${fence}`;
}

/** A fenced block that holds any text. */
export function fenced(text: string, language = ""): string {
  let fence = "```";
  while (text.includes(fence)) fence += "`";
  return `${fence}${language}\n${text}\n${fence}`;
}

/**
 * A repository path as the path of a link's URL: every character that is not plainly a path
 * character is percent-encoded, `(`, `)` and `@` included (encodeURI keeps `)`, so a file named
 * `x)@someone.yaml` would end the link and mention someone), `/` kept between segments.
 */
export function urlPath(file: string): string {
  return file
    .split("/")
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join("/");
}

/** A link from a fixed base (a blob URL the run built) to a repository file, its label escaped. */
export function fileLink(label: string, base: string, file: string, line?: number): string {
  return `[${escapeMarkdown(label)}](${base}${urlPath(file)}${line ? `#L${line}` : ""})`;
}

/** Text from the repository in a table cell: escaped as text (a `|` included), on one line. */
export function tableCell(text: string): string {
  return escapeMarkdown(text);
}

/**
 * A code span in a table cell: GitHub splits cells at a `|` even inside a code span, unless it is
 * written `\|` (which the table reads as the pipe itself, so the span still shows `|`).
 */
export function tableCode(text: string): string {
  return code(text).replace(/\|/g, "\\|");
}
