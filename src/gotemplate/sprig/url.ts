import { formatURL, hostname, parseURL, userString } from "../url.js";
import { GoError, MAP_ANY, T, typeOf, type GoMap } from "../../go/values.js";
import { fn } from "./cast.js";

/** sprig's urlParse and urlJoin (url.go). */

function dictString(d: GoMap, key: string): string {
  if (!Object.hasOwn(d, key)) return "";
  const v = d[key];
  if (typeof v !== "string") {
    if (v === null || v === undefined) throw new GoError("runtime error: invalid memory address or nil pointer dereference");
    throw new GoError(`unable to parse ${key} key, must be of type string, but ${typeOf(v)!.kind} found`);
  }
  return v;
}

export const urlFuncs = {
  urlParse: fn([T.string], MAP_ANY, ([s]) => {
    let u;
    try {
      u = parseURL(s as string);
    } catch (err) {
      throw new GoError(`unable to parse url: ${(err as Error).message}`);
    }
    return {
      scheme: u.scheme,
      host: u.host,
      hostname: hostname(u),
      path: u.path,
      query: u.rawQuery,
      opaque: u.opaque,
      fragment: u.fragment,
      userinfo: u.user ? userString(u.user) : "",
    };
  }),
  urlJoin: fn([MAP_ANY], T.string, ([d]) => {
    const m = (d ?? {}) as GoMap;
    const userinfo = dictString(m, "userinfo");
    let user;
    if (userinfo !== "") {
      try {
        user = parseURL(`proto://${userinfo}@host`).user;
      } catch (err) {
        throw new GoError(`unable to parse userinfo in dict: ${(err as Error).message}`);
      }
    }
    return formatURL({
      scheme: dictString(m, "scheme"),
      host: dictString(m, "host"),
      path: dictString(m, "path"),
      rawQuery: dictString(m, "query"),
      opaque: dictString(m, "opaque"),
      fragment: dictString(m, "fragment"),
      user,
    });
  }),
};
