import { RE2JS } from "re2js";

/**
 * Globs and .gitignore patterns come from repositories, so they run on RE2 (linear time): a
 * pattern like `a*a*a*…b` cannot stall a run the way a backtracking matcher lets it.
 */

/**
 * A glob as a regular expression over a whole slash-separated path: `*` and `?` stay within a
 * segment, `**` spans segments (`a/**` also matches `a`), `[...]` is a class (`[!...]` negated),
 * `{a,b}` an alternation; dot files are matched like any other.
 */
export function globSource(glob: string): string {
  const segments = glob.split("/");
  let out = "";
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === "**") {
      if (segments.length === 1) out += ".*";
      else if (i === 0) out += "(?:.*/)?";
      else if (last) out += "(?:/.*)?";
      else out += "/(?:.*/)?";
      return;
    }
    if (i > 0 && segments[i - 1] !== "**") out += "/";
    out += segmentSource(segment);
  });
  return out;
}

function segmentSource(segment: string): string {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) out += quote(segment[++i]!);
    else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = classEnd(segment, i);
      if (end < 0) out += "\\[";
      else {
        let body = segment.slice(i + 1, end);
        const negated = body.startsWith("!") || body.startsWith("^");
        if (negated) body = body.slice(1);
        out += `[${negated ? "^/" : ""}${body.replace(/\\/g, "\\\\").replace(/\[/g, "\\[")}]`;
        i = end;
      }
    } else if (c === "{") {
      const end = braceEnd(segment, i);
      if (end < 0) out += "\\{";
      else {
        out += `(?:${splitTop(segment.slice(i + 1, end))
          .map(segmentSource)
          .join("|")})`;
        i = end;
      }
    } else out += quote(c);
  }
  return out;
}

function classEnd(s: string, start: number): number {
  let i = start + 1;
  if (s[i] === "!" || s[i] === "^") i++;
  if (s[i] === "]") i++;
  const end = s.indexOf("]", i);
  return end;
}

function braceEnd(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return s.slice(start + 1, i).includes(",") ? i : -1;
  }
  return -1;
}

function splitTop(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "{") depth++;
    else if (s[i] === "}") depth--;
    else if (s[i] === "," && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

function quote(c: string): string {
  return /[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c;
}

/** A matcher for any of the globs (config `ignore:`), whole path, linear time. */
export function globMatcher(globs: string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const key = JSON.stringify(globs);
  let matcher = compiled.get(key);
  if (!matcher) {
    const re = RE2JS.compile(`^(?:${globs.map(globSource).join("|")})$`);
    matcher = (p) => re.matches(p);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, matcher);
  }
  return matcher;
}

/** Matchers by their globs: compiling costs far more than matching, and trust lists are asked again per package. */
const compiled = new Map<string, (path: string) => boolean>();
const MAX_COMPILED = 256;

interface GitignoreRule {
  re: RE2JS;
  negated: boolean;
  dirOnly: boolean;
}

/**
 * One .gitignore's rules, as git reads them: `#` comments, `!` re-includes, a trailing `/`
 * matches directories only, a pattern with a slash before its end is anchored to the file's
 * directory, one without matches a name at any depth. The last rule that matches decides.
 */
export class GitignoreRules {
  private readonly rules: GitignoreRule[] = [];

  constructor(text: string) {
    for (const raw of text.split(/\r?\n/)) {
      let line = raw.replace(/(?<!\\)\s+$/, "");
      if (line === "" || line.startsWith("#")) continue;
      const negated = line.startsWith("!");
      if (negated) line = line.slice(1);
      if (line.startsWith("\\#") || line.startsWith("\\!")) line = line.slice(1);
      const dirOnly = line.endsWith("/");
      if (dirOnly) line = line.replace(/\/+$/, "");
      if (line === "") continue;
      const anchored = line.includes("/");
      if (line.startsWith("/")) line = line.slice(1);
      const source = anchored ? globSource(line) : `(?:.*/)?${globSource(line)}`;
      try {
        this.rules.push({ re: RE2JS.compile(`^${source}$`), negated, dirOnly });
      } catch {
        // a pattern RE2 cannot express is skipped, as git skips what it cannot parse
      }
    }
  }

  /** Whether a path (relative to the .gitignore's directory) is ignored; undefined when no rule says. */
  decide(rel: string, isDir: boolean): boolean | undefined {
    let verdict: boolean | undefined;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (rule.re.matches(rel)) verdict = !rule.negated;
    }
    return verdict;
  }
}
