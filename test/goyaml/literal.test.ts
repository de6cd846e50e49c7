// toGoYaml strings with newlines: literal blocks (|, |-, |+, indentation indicator) or double quotes.
// Expected outputs were produced by Go (go1.19.8, gopkg.in/yaml.v2 2.4.0, whose encoder and parser
// are the code of go.yaml.in/yaml/v2 2.4.4): json.Unmarshal of JSON.stringify(input), json.Marshal,
// then yaml.Unmarshal into interface{} and yaml.Marshal, which is sigs.k8s.io/yaml.JSONToYAML.
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";

describe("literal blocks", () => {
  const cases: [string, string][] = [
    ["a\nb", "v: |-\n  a\n  b\n"],
    ["a\n", "v: |\n  a\n"],
    ["a\n\n", "v: |+\n  a\n\n"],
    ["a\n\n\n", "v: |+\n  a\n\n\n"],
    ["\n", "v: |2+\n\n"],
    ["\n\n", "v: |2+\n\n\n"],
    ["\na", "v: |2-\n\n  a\n"],
    ["\n\na\n", "v: |2\n\n\n  a\n"],
    [" a\nb", "v: |2-\n   a\n  b\n"],
    ["  a\n", "v: |2\n    a\n"],
    ["a\n b", "v: |-\n  a\n   b\n"],
    ["a\n\nb", "v: |-\n  a\n\n  b\n"],
    ["a\n\n\nb\n", "v: |\n  a\n\n\n  b\n"],
    ["one\ntwo\nthree", "v: |-\n  one\n  two\n  three\n"],
    ["a: b\nc", "v: |-\n  a: b\n  c\n"],
    ["#x\ny", "v: |-\n  #x\n  y\n"],
    ["- a\n- b\n", "v: |\n  - a\n  - b\n"],
    ["'q'\n\"d\"", "v: |-\n  'q'\n  \"d\"\n"],
    ["key: value\nlist:\n- a\n", "v: |\n  key: value\n  list:\n  - a\n"],
    ["\u00E9\n\u65E5", "v: |-\n  \u00E9\n  \u65E5\n"],
    ["a\u2028b\nc", "v: |-\n  a\u2028  b\n  c\n"],
    ["a\nb\u2029c\n", "v: |\n  a\n  b\u2029  c\n"],
    ["x\n\u2028", "v: |+\n  x\n\u2028"],
    ["yes\nno", "v: |-\n  yes\n  no\n"],
    ["123\n", "v: |\n  123\n"],
    ["a\u00A0\nb", "v: |-\n  a\u00A0\n  b\n"],
    ["end with spaces inside\n  indented\n", "v: |\n  end with spaces inside\n    indented\n"],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(toGoYaml({ v: input })).toBe(expected);
  });
});

describe("double quotes instead of a literal block", () => {
  const cases: [string, string][] = [
    ["a \nb", 'v: "a \\nb"\n'],
    ["a\nb ", 'v: "a\\nb "\n'],
    ["a\n ", 'v: "a\\n "\n'],
    ["a\n \nb", 'v: "a\\n \\nb"\n'],
    ["line one \nline two", 'v: "line one \\nline two"\n'],
    ["a\n\tb", 'v: "a\\n\\tb"\n'],
    ["\tx\ny", 'v: "\\tx\\ny"\n'],
    ["x\u000D\ny", 'v: "x\\r\\ny"\n'],
    ["a\n\u{1F600}", 'v: "a\\n\\U0001F600"\n'],
    ["a\n\u0001", 'v: "a\\n\\x01"\n'],
    [" \n", 'v: " \\n"\n'],
    ["\uFEFF\na", 'v: "\\uFEFF\\n\\x61"\n'],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(toGoYaml({ v: input })).toBe(expected);
  });
});
