import { GoError } from "../go/values.js";

/** The parts of Go's net/url that sprig's urlParse and urlJoin use. */

export interface GoURL {
  scheme: string;
  opaque: string;
  user?: { username: string; password?: string };
  host: string;
  path: string;
  rawQuery: string;
  fragment: string;
}

type Mode = "path" | "host" | "userPassword" | "fragment" | "query";

function shouldEscape(c: string, mode: Mode): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
  if (mode === "host") return !"-_.~!$&'()*+,;=:[]<>\"".includes(c);
  if ("-_.~".includes(c)) return false;
  if ("$&+,/:;=?@".includes(c)) {
    switch (mode) {
      case "path":
        return c === "?";
      case "userPassword":
        return c === "@" || c === "/" || c === "?" || c === ":";
      case "query":
        return true;
      case "fragment":
        return false;
    }
  }
  if (mode === "fragment" && "!()*".includes(c)) return false;
  return true;
}

export function escape(s: string, mode: Mode): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && !shouldEscape(c, mode)) out += c;
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

export function unescape(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new GoError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(s[i], "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** url.Parse */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf("#");
  const rest0 = hash >= 0 ? raw.slice(0, hash) : raw;
  const fragment = hash >= 0 ? unescape(raw.slice(hash + 1)) : "";
  if (/[\x00-\x1f\x7f]/.test(rest0)) throw new GoError(`parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`);
  const u: GoURL = { scheme: "", opaque: "", host: "", path: "", rawQuery: "", fragment };
  let rest = rest0;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    u.scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (/^[^a-zA-Z/?#][^:/?#]*:/.test(rest) && !rest.startsWith(":")) {
    // not a scheme: relative reference
  } else if (rest.startsWith(":")) {
    throw new GoError(`parse ${JSON.stringify(raw)}: missing protocol scheme`);
  }
  const q = rest.indexOf("?");
  if (q >= 0) {
    u.rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    const colon = rest.indexOf(":");
    const slash = rest.indexOf("/");
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new GoError(`parse ${JSON.stringify(raw)}: first path segment in URL cannot contain colon`);
  }
  if (rest.startsWith("//") && (u.scheme !== "" || !rest.startsWith("///"))) {
    const authEnd = rest.indexOf("/", 2);
    const authority = authEnd >= 0 ? rest.slice(2, authEnd) : rest.slice(2);
    rest = authEnd >= 0 ? rest.slice(authEnd) : "";
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      const info = authority.slice(0, at);
      const colon = info.indexOf(":");
      u.user = colon >= 0 ? { username: unescape(info.slice(0, colon)), password: unescape(info.slice(colon + 1)) } : { username: unescape(info) };
    }
    u.host = unescape(at >= 0 ? authority.slice(at + 1) : authority);
  }
  u.path = unescape(rest);
  return u;
}

export function hostname(u: GoURL): string {
  const h = u.host;
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end >= 0 ? h.slice(1, end) : h;
  }
  const colon = h.lastIndexOf(":");
  return colon >= 0 && /^:\d*$/.test(h.slice(colon)) ? h.slice(0, colon) : h;
}

export function userString(user: NonNullable<GoURL["user"]>): string {
  let s = escape(user.username, "userPassword");
  if (user.password !== undefined) s += ":" + escape(user.password, "userPassword");
  return s;
}

/** URL.String */
export function formatURL(u: GoURL): string {
  let out = "";
  if (u.scheme) out += u.scheme + ":";
  if (u.opaque) out += u.opaque;
  else {
    if (u.scheme || u.host || u.user) {
      if (u.host || u.path || u.user) out += "//";
      if (u.user) out += userString(u.user) + "@";
      if (u.host) out += escape(u.host, "host");
    }
    const path = escape(u.path, "path");
    if (path !== "" && path[0] !== "/" && u.host !== "") out += "/";
    if (out === "") {
      const colon = path.indexOf(":");
      const slash = path.indexOf("/");
      if (colon >= 0 && (slash < 0 || colon < slash)) out += "./";
    }
    out += path;
  }
  if (u.rawQuery) out += "?" + u.rawQuery;
  if (u.fragment) out += "#" + escape(u.fragment, "fragment");
  return out;
}
