import { RE2JS } from "re2js";

/**
 * Patterns from schemas and manifests run on RE2 (linear time), as they do in the API server and
 * in Go functions; JavaScript's backtracking RegExp would let a manifest hang the run.
 */
export interface RegExpLike {
  test(input: string): boolean;
}

const compiled = new Map<string, RE2JS>();

export function compileRe2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    compiled.set(pattern, re);
  }
  return re;
}

/** Returns undefined when the pattern is valid RE2, else the parser's complaint. */
export function re2Error(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The `code.regExp` engine handed to ajv (also usable from standalone validator code). */
export function re2RegExp(pattern: string): RegExpLike {
  const re = compileRe2(pattern);
  return { test: (input: string) => re.matcher(input).find(), toString: () => pattern } as RegExpLike;
}
re2RegExp.code = 'require("composition-ci:re2").re2RegExp';
