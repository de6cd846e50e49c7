import { describe, expect, it } from "vitest";
import { formatValue, goSprintf } from "../../src/render/functions/gofmt.js";
import { GoOpaque, goNumber } from "../../src/render/functions/gotypes.js";

/**
 * function-patch-and-transform formats with Go's fmt (string transforms, combines, %v of any
 * value): the project's one fmt (src/gotemplate/fmt.ts) over P&T's values. What Go prints for
 * these, JSON numbers being int64 when integral and float64 otherwise.
 */
describe("P&T's fmt is Go's", () => {
  it.each([
    ["%s", [{ b: 1, a: "x" }], "map[a:x b:%!s(int64=1)]"],
    ["%q", [42], "'*'"],
    ["%x", [3.5], "0x1.cp+01"],
    ["%.2f", ["abc"], "%!f(string=ab)"],
    ["%d", [goNumber("int", 5)], "5"],
    ["%v", [goNumber("float64", 3)], "3"],
    ["%T", [goNumber("float64", 3)], "float64"],
    ["%v %T", [new GoOpaque("[]int", [64, 2]), new GoOpaque("[]int", [1])], "[64 2] []int"],
    ["%s", ["a", "b"], "a%!(EXTRA string=b)"],
    ["%s %s", ["a"], "a %!s(MISSING)"],
    ["%05.1f|%-4d|%+d", [3.14159, 7, 7], "003.1|7   |+7"],
    ["%d", [1e21], "%!d(float64=1e+21)"],
  ])("Sprintf(%j, %j)", (format, args, want) => expect(goSprintf(format, args)).toBe(want));

  it("%v of nested values", () => {
    expect(formatValue([1, "a", 2.5, null, { k: true }])).toBe("[1 a 2.5 <nil> map[k:true]]");
  });
});
