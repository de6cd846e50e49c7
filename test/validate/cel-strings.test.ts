import { describe, expect, it } from "vitest";
import { goReplace } from "../../src/go/strings.js";

describe("goReplace (Go's strings.Replace)", () => {
  it.each([
    ["abc", "", "x", -1, "xaxbxcx"],
    ["abc", "", "x", 2, "xaxbc"],
    ["😀a", "", "-", -1, "-😀-a-"],
    ["", "", "x", -1, "x"],
    ["aaaa", "a", "b", 2, "bbaa"],
    ["aaa", "aa", "b", -1, "ba"],
    ["abab", "ab", "", -1, ""],
    ["ab", "a", "c", 0, "ab"],
    ["ab", "z", "c", -1, "ab"],
    ["ab", "a", "a", -1, "ab"],
  ])("%j.replace(%j, %j, %i) is %j", (s, old, replacement, n, expected) => {
    expect(goReplace(s, old, replacement, n)).toBe(expected);
  });

  it("refuses a result over the limit before building it", () => {
    expect(() => goReplace("a".repeat(2000), "a", "a".repeat(2000), -1, 1_000_000)).toThrow(/replace built a string of 4000000 characters/);
  });
});
