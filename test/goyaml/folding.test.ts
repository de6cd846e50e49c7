// toGoYaml line folding at 80 columns (libyaml best_width), as yaml.v2 does by default.
// Expected outputs were produced by Go (go1.19.8, gopkg.in/yaml.v2 2.4.0, whose encoder and parser
// are the code of go.yaml.in/yaml/v2 2.4.4): json.Unmarshal of JSON.stringify(input), json.Marshal,
// then yaml.Unmarshal into interface{} and yaml.Marshal, which is sigs.k8s.io/yaml.JSONToYAML.
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";

describe("plain scalars fold at the first single space past column 80", () => {
  const cases: [string, unknown, string][] = [
    ['v: and 75 x, then " y z"', { v: "x".repeat(75) + " y z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y z\n"],
    ['v: and 76 x, then " y z"', { v: "x".repeat(76) + " y z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\n  z\n"],
    ['v: and 77 x, then " y z"', { v: "x".repeat(77) + " y z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\n  z\n"],
    ['v: and 78 x, then " y z"', { v: "x".repeat(78) + " y z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y z\n"],
    ['v: and 79 x, then " y z"', { v: "x".repeat(79) + " y z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y z\n"],
    [
      'v: and 80 x, then " y z"',
      { v: "x".repeat(80) + " y z" },
      "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y z\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("plain folding details", () => {
  const cases: [string, unknown, string][] = [
    [
      "a long paragraph folds many times",
      {
        v: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.",
      },
      "v: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\n  incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud\n  exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.\n",
    ],
    [
      "words of ten",
      { v: "abcdefghi ".repeat(30) + "end" },
      "v: abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi\n  abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi\n  abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi\n  abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi end\n",
    ],
    [
      "no space past column 80: no fold",
      { v: "x ".repeat(38) + "y".repeat(60) },
      "v: x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n",
    ],
    [
      "a word longer than the line",
      { v: "a " + "y".repeat(100) + " b " + "z".repeat(100) + " c" },
      "v: a yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n  b zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n  c\n",
    ],
    ["double spaces never fold", { v: "x".repeat(78) + "  y  z" }, "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  y  z\n"],
    [
      "a single space after a double space",
      { v: "x".repeat(78) + "  y z" },
      "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  y\n  z\n",
    ],
    [
      "a space before a double space",
      { v: "x".repeat(78) + " y  z" },
      "v: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y  z\n",
    ],
    [
      "the status message that stays on one line",
      { message: "Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name" },
      "message: 'Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name'\n",
    ],
    [
      "deeper keys fold at their own indent",
      { a: { b: { c: { message: "word ".repeat(25) + "end" } } } },
      "a:\n  b:\n    c:\n      message: word word word word word word word word word word word word word word\n        word word word word word word word word word word word end\n",
    ],
    [
      "a list item folds at the item's indent + 2",
      { l: ["word ".repeat(25) + "end", ["word ".repeat(25) + "end"]] },
      "l:\n- word word word word word word word word word word word word word word word word\n  word word word word word word word word word end\n- - word word word word word word word word word word word word word word word word\n    word word word word word word word word word end\n",
    ],
    [
      "a long key pushes its value past column 80",
      { ["k".repeat(100)]: "a b c" },
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: a\n  b c\n",
    ],
    [
      "a simple key never folds",
      { ["a ".repeat(60) + "b"]: 1 },
      "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a b: 1\n",
    ],
    [
      "very deep nesting folds at every space",
      (() => {
        let v: unknown = { m: "a b c d e" };
        for (let i = 0; i < 45; i++) v = { k: v };
        return v;
      })(),
      "k:\n  k:\n    k:\n      k:\n        k:\n          k:\n            k:\n              k:\n                k:\n                  k:\n                    k:\n                      k:\n                        k:\n                          k:\n                            k:\n                              k:\n                                k:\n                                  k:\n                                    k:\n                                      k:\n                                        k:\n                                          k:\n                                            k:\n                                              k:\n                                                k:\n                                                  k:\n                                                    k:\n                                                      k:\n                                                        k:\n                                                          k:\n                                                            k:\n                                                              k:\n                                                                k:\n                                                                  k:\n                                                                    k:\n                                                                      k:\n                                                                        k:\n                                                                          k:\n                                                                            k:\n                                                                              k:\n                                                                                k:\n                                                                                  k:\n                                                                                    k:\n                                                                                      k:\n                                                                                        k:\n                                                                                          m: a\n                                                                                            b\n                                                                                            c\n                                                                                            d\n                                                                                            e\n",
    ],
    [
      "very deep lists",
      (() => {
        let v: unknown = ["a b c d e"];
        for (let i = 0; i < 45; i++) v = [v];
        return v;
      })(),
      "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - a\n                                                                                            b\n                                                                                            c\n                                                                                            d\n                                                                                            e\n",
    ],
    [
      "folding at the root",
      "word ".repeat(40) + "end",
      "word word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word word word\n  word word word word word word word end\n",
    ],
    [
      "indicators inside the folded text",
      { v: "x: y " + "x".repeat(76) + " #z w" },
      "v: 'x: y xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  #z w'\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("single-quoted scalars fold too, never at the ends", () => {
  const cases: [string, unknown, string][] = [
    [
      "a single-quoted paragraph",
      { v: "#" + "word ".repeat(30) + "end" },
      "v: '#word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word end'\n",
    ],
    [
      "quotes count toward the column",
      { v: "'" + "x".repeat(74) + " y z" },
      "v: '''xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\n  z'\n",
    ],
    [
      "doubled quotes near the boundary",
      { v: "'" + "x".repeat(70) + "''''" + " y z" },
      "v: '''xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx''''''''\n  y z'\n",
    ],
    [
      "the first space is never folded",
      { ["k".repeat(90)]: " a b" },
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: ' a\n  b'\n",
    ],
    [
      "the last space is never folded",
      { v: "#" + "x".repeat(80) + " " },
      "v: '#xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx '\n",
    ],
    [
      "a trailing space after a long word",
      { v: "#" + "x".repeat(77) + " y " },
      "v: '#xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y '\n",
    ],
    [
      "double spaces in single quotes",
      { v: "#" + "x".repeat(78) + "  y  z" },
      "v: '#xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  y  z'\n",
    ],
    [
      "a status message with a colon",
      { message: "Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name\u2028more" },
      "message: 'Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name\u2028  more'\n",
    ],
    [
      "a long single-quoted message folds",
      { status: { conditions: [{ message: "Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name more words" }] } },
      "status:\n  conditions:\n  - message: 'Unready resources: bucket-one-long-name, bucket-two-long-name, and bucket-three-long-name\n      more words'\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("double-quoted scalars fold, escaping a space that starts the next line", () => {
  const cases: [string, unknown, string][] = [
    [
      "a double-quoted paragraph",
      { v: "tab\t" + " word".repeat(30) },
      'v: "tab\\t word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word word"\n',
    ],
    [
      "a double space at the fold becomes an escaped space",
      { v: "\t" + "x".repeat(77) + "  y" },
      'v: "\\txxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  \\ y"\n',
    ],
    [
      "three spaces at the fold",
      { v: "\t" + "x".repeat(77) + "   y" },
      'v: "\\txxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  \\  y"\n',
    ],
    [
      "escapes count toward the column",
      { v: "\t".repeat(40) + " a b" },
      'v: "\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\\t\n  a b"\n',
    ],
    [
      "a space right after an escape",
      { v: "x".repeat(76) + "\u0001 a b" },
      'v: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\x01\n  a b"\n',
    ],
    [
      "the last space is never folded",
      { v: "\t" + "x".repeat(80) + " " },
      'v: "\\txxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx "\n',
    ],
    [
      "the first space is never folded",
      { ["k".repeat(90)]: " \ta b" },
      'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: " \\ta\n  b"\n',
    ],
    [
      "emoji escapes are long",
      { v: "\u{1F600} ".repeat(12) + "end" },
      'v: "\\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600\n  \\U0001F600 \\U0001F600 \\U0001F600 \\U0001F600 end"\n',
    ],
    [
      "a string starting with a BOM is escaped character by character, so it never folds",
      { v: "\ufeff" + "ab ".repeat(40) },
      'v: "\\uFEFF\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20\\x61\\x62\\x20"\n',
    ],
    [
      "a folded key that needs double quotes",
      { ["\t" + " word".repeat(30)]: 1 },
      '? "\\t word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word"\n: 1\n',
    ],
    [
      "a value that would be a literal block but has a trailing space",
      { v: "word ".repeat(20) + "\nnext line " },
      'v: "word word word word word word word word word word word word word word word word\n  word word word word \\nnext line "\n',
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("literal blocks never fold", () => {
  const cases: [string, unknown, string][] = [
    [
      "a long line in a literal block",
      { v: "word ".repeat(40) + "end\nsecond" },
      "v: |-\n  word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\n  second\n",
    ],
    [
      "a long line in a nested literal block",
      { a: [{ b: "x".repeat(100) + " y\n" }] },
      "a:\n- b: |\n    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});
