import { RE2JS } from "re2js";
import { GoError } from "./values.js";

/**
 * Go's regexp over re2js (RE2 semantics, linear time: patterns come from repositories). Indices
 * are UTF-16 offsets; the substrings are the ones Go finds.
 */

const cache = new Map<string, RE2JS>();
const CACHE_LIMIT = 512;

export class Regexp {
  private constructor(
    private readonly re: RE2JS,
    readonly source: string,
  ) {}

  /** regexp.Compile: throws GoError with Go's message ("error parsing regexp: ..."). */
  static compile(pattern: string): Regexp {
    let re = cache.get(pattern);
    if (!re) {
      try {
        re = RE2JS.compile(pattern);
      } catch (err) {
        throw new GoError((err as Error).message);
      }
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(pattern, re);
    }
    return new Regexp(re, pattern);
  }

  /** regexp.MustCompile: the panic's message. */
  static mustCompile(pattern: string): Regexp {
    try {
      return Regexp.compile(pattern);
    } catch (err) {
      throw new GoError(`regexp: Compile(${quoteBackticks(pattern)}): ${(err as Error).message}`);
    }
  }

  matchString(s: string): boolean {
    return this.re.matcher(s).find();
  }

  private allIndex(s: string, n: number): number[][] {
    if (n === 0) return [];
    return this.re.re2().findAllSubmatchIndex(s, n < 0 ? s.length + 1 : n) ?? [];
  }

  /** FindStringSubmatch: the match and its groups ("" for a group that did not take part), or null. */
  findStringSubmatch(s: string): string[] | null {
    const m = this.allIndex(s, 1)[0];
    if (!m) return null;
    const out: string[] = [];
    for (let i = 0; i < m.length; i += 2) out.push(m[i] >= 0 ? s.slice(m[i], m[i + 1]) : "");
    return out;
  }

  findString(s: string): string {
    const m = this.allIndex(s, 1)[0];
    return m ? s.slice(m[0], m[1]) : "";
  }

  findAllString(s: string, n: number): string[] | null {
    const ms = this.allIndex(s, n);
    return ms.length ? ms.map((m) => s.slice(m[0], m[1])) : null;
  }

  replaceAllString(src: string, repl: string): string {
    return this.replace(src, (m) => this.expand(repl, src, m));
  }

  replaceAllLiteralString(src: string, repl: string): string {
    return this.replace(src, () => repl);
  }

  private replace(src: string, f: (m: number[]) => string): string {
    let out = "";
    let last = 0;
    for (const m of this.allIndex(src, -1)) {
      out += src.slice(last, m[0]) + f(m);
      last = m[1];
    }
    return out + src.slice(last);
  }

  /** Regexp.Expand's template: $1, ${1}, $name, ${name}, $$. */
  private expand(template: string, src: string, m: number[]): string {
    const names = this.re.namedGroups();
    let out = "";
    let t = template;
    for (;;) {
      const i = t.indexOf("$");
      if (i < 0) break;
      out += t.slice(0, i);
      t = t.slice(i + 1);
      if (t[0] === "$") {
        out += "$";
        t = t.slice(1);
        continue;
      }
      const ex = extractName(t);
      if (!ex) {
        out += "$";
        continue;
      }
      t = ex.rest;
      let group = ex.num;
      if (group < 0) group = Object.hasOwn(names, ex.name) ? names[ex.name] : -1;
      if (group >= 0 && 2 * group + 1 < m.length && m[2 * group] >= 0) out += src.slice(m[2 * group], m[2 * group + 1]);
    }
    return out + t;
  }

  /** Regexp.Split */
  split(s: string, n: number): string[] | null {
    if (n === 0) return null;
    if (this.source.length > 0 && s.length === 0) return [""];
    const matches = this.allIndex(s, n);
    const out: string[] = [];
    let beg = 0;
    let end = 0;
    for (const m of matches) {
      if (n > 0 && out.length === n - 1) break;
      end = m[0];
      if (m[1] !== 0) out.push(s.slice(beg, end));
      beg = m[1];
    }
    if (end !== s.length) out.push(s.slice(beg));
    return out;
  }
}

function extractName(str: string): { name: string; num: number; rest: string } | undefined {
  if (str === "") return undefined;
  let s = str;
  const brace = s[0] === "{";
  if (brace) s = s.slice(1);
  let i = 0;
  for (const ch of s) {
    if (!/^[\p{L}\p{Nd}_]$/u.test(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = s.slice(0, i);
  if (brace) {
    if (s[i] !== "}") return undefined;
    i++;
  }
  let num = /^\d+$/.test(name) && name.length < 9 ? Number(name) : -1;
  if (name[0] === "0" && name.length > 1) num = -1;
  return { name, num, rest: s.slice(i) };
}

/** regexp.QuoteMeta */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

function quoteBackticks(s: string): string {
  return s.includes("`") ? JSON.stringify(s) : "`" + s + "`";
}
