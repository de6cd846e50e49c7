import { describe, expect, it } from "vitest";
import { discover } from "../../src/manifest/discover.js";
import { GitignoreRules, globMatcher } from "../../src/manifest/glob.js";
import { tempRepo } from "../helpers.js";

describe("globs (config ignore:)", () => {
  const cases: [string, string, boolean][] = [
    ["legacy/**", "legacy", true],
    ["legacy/**", "legacy/a/b.yaml", true],
    ["legacy/**", "legacyx/a.yaml", false],
    ["**/*.tmpl.yaml", "a/b/c.tmpl.yaml", true],
    ["**/*.tmpl.yaml", "c.tmpl.yaml", true],
    ["*.yaml", "a/b.yaml", false],
    ["a/*/c.yaml", "a/b/c.yaml", true],
    ["a/*/c.yaml", "a/b/x/c.yaml", false],
    ["a/**/c.yaml", "a/c.yaml", true],
    ["a/**/c.yaml", "a/b/x/c.yaml", true],
    [".github/**", ".github/workflows/ci.yml", true],
    ["file?.yaml", "file1.yaml", true],
    ["file[0-9].yaml", "file7.yaml", true],
    ["file[!0-9].yaml", "file7.yaml", false],
    ["{a,b}/x.yaml", "b/x.yaml", true],
    ["{a,b}/x.yaml", "c/x.yaml", false],
    ["a+b(c).yaml", "a+b(c).yaml", true],
  ];
  for (const [glob, p, want] of cases) it(`${glob} ${want ? "matches" : "does not match"} ${p}`, () => expect(globMatcher([glob])(p)).toBe(want));

  it("runs in linear time on a pattern that makes backtracking matchers explode", () => {
    const hostile = `${"a*".repeat(40)}b`;
    const name = "a".repeat(5000);
    const started = performance.now();
    expect(globMatcher([hostile])(name)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe(".gitignore rules", () => {
  const rules = new GitignoreRules("# comment\nbuild/\n*.generated.yaml\n!keep.generated.yaml\n/rooted.yaml\ndocs/**/draft-*.yaml\n\\#not-a-comment.yaml\n");
  const cases: [string, boolean, boolean | undefined][] = [
    ["build", true, true],
    ["build", false, undefined],
    ["a/build", true, true],
    ["x.generated.yaml", false, true],
    ["deep/x.generated.yaml", false, true],
    ["keep.generated.yaml", false, false],
    ["rooted.yaml", false, true],
    ["sub/rooted.yaml", false, undefined],
    ["docs/a/b/draft-1.yaml", false, true],
    ["#not-a-comment.yaml", false, true],
  ];
  for (const [p, isDir, want] of cases) it(`${p}${isDir ? "/" : ""}: ${String(want)}`, () => expect(rules.decide(p, isDir)).toBe(want));

  it("a deeper .gitignore re-includes what a higher one ignores, as git does", () => {
    const dir = tempRepo({ ".gitignore": "*.yaml\n", "a.yaml": "x: 1\n", "sub/.gitignore": "!b.yaml\n", "sub/b.yaml": "x: 1\n", "sub/c.yaml": "x: 1\n" });
    expect(discover(["."], { root: dir }).map((f) => f.rel)).toEqual(["sub/b.yaml"]);
  });

  it("a hostile pattern in a repository's .gitignore does not stall discovery", () => {
    const dir = tempRepo({ ".gitignore": `${"a*".repeat(40)}b\n`, [`${"a".repeat(200)}.yaml`]: "x: 1\n" });
    const started = performance.now();
    expect(discover(["."], { root: dir })).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
