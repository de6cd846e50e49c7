import { quoteMeta, Regexp } from "../../go/regexp.js";
import { GoNum, SLICE_STRING, T, nilOf, typed, type Value } from "../../go/values.js";
import { fn } from "./cast.js";

/** sprig's regex.go on RE2 (re2js): the plain forms panic on a bad pattern, the must forms return the error. */

const S = T.string;
const I = T.int;
const n = (v: Value) => (v instanceof GoNum ? v.value : (v as number));
const strings = (xs: string[] | null) => (xs === null ? nilOf(SLICE_STRING) : typed(xs, SLICE_STRING));

export const regexFuncs = {
  regexMatch: fn([S, S], T.bool, ([re, s]) => {
    try {
      return Regexp.compile(re as string).matchString(s as string);
    } catch {
      return false;
    }
  }),
  mustRegexMatch: fn([S, S], T.bool, ([re, s]) => Regexp.compile(re as string).matchString(s as string), { error: true }),
  regexFindAll: fn([S, S, I], SLICE_STRING, ([re, s, c]) => strings(Regexp.mustCompile(re as string).findAllString(s as string, n(c)))),
  mustRegexFindAll: fn([S, S, I], SLICE_STRING, ([re, s, c]) => strings(Regexp.compile(re as string).findAllString(s as string, n(c))), { error: true }),
  regexFind: fn([S, S], S, ([re, s]) => Regexp.mustCompile(re as string).findString(s as string)),
  mustRegexFind: fn([S, S], S, ([re, s]) => Regexp.compile(re as string).findString(s as string), { error: true }),
  regexReplaceAll: fn([S, S, S], S, ([re, s, r]) => Regexp.mustCompile(re as string).replaceAllString(s as string, r as string)),
  mustRegexReplaceAll: fn([S, S, S], S, ([re, s, r]) => Regexp.compile(re as string).replaceAllString(s as string, r as string), { error: true }),
  regexReplaceAllLiteral: fn([S, S, S], S, ([re, s, r]) => Regexp.mustCompile(re as string).replaceAllLiteralString(s as string, r as string)),
  mustRegexReplaceAllLiteral: fn([S, S, S], S, ([re, s, r]) => Regexp.compile(re as string).replaceAllLiteralString(s as string, r as string), {
    error: true,
  }),
  regexSplit: fn([S, S, I], SLICE_STRING, ([re, s, c]) => strings(Regexp.mustCompile(re as string).split(s as string, n(c)))),
  mustRegexSplit: fn([S, S, I], SLICE_STRING, ([re, s, c]) => strings(Regexp.compile(re as string).split(s as string, n(c))), { error: true }),
  regexQuoteMeta: fn([S], S, ([s]) => quoteMeta(s as string)),
};
