// toGoYaml layout: block maps and sequences, empty collections, root values, complex keys.
// Expected outputs were produced by Go (go1.19.8, gopkg.in/yaml.v2 2.4.0, whose encoder and parser
// are the code of go.yaml.in/yaml/v2 2.4.4): json.Unmarshal of JSON.stringify(input), json.Marshal,
// then yaml.Unmarshal into interface{} and yaml.Marshal, which is sigs.k8s.io/yaml.JSONToYAML.
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";

describe("root values", () => {
  const cases: [string, unknown, string][] = [
    ["null", null, "null\n"],
    ["true", true, "true\n"],
    ["a number", 42, "42\n"],
    ["a string", "abc", "abc\n"],
    ["the empty string", "", '""\n'],
    ["a string that needs quotes", "true", '"true"\n'],
    ["a root literal block", "a\nb\n", "|\n  a\n  b\n"],
    ["a root literal block keeping blank lines", "a\n\n", "|+\n  a\n\n"],
    ["a root literal block without final newline", "a\nb", "|-\n  a\n  b\n"],
    [
      "a long root string folds at indent 2",
      "word ".repeat(30) + "end",
      "word word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word end\n",
    ],
    ["an empty map", {}, "{}\n"],
    ["an empty list", [], "[]\n"],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("maps", () => {
  const cases: [string, unknown, string][] = [
    ["a flat map", { kind: "X", apiVersion: "v1", a: 1 }, "a: 1\napiVersion: v1\nkind: X\n"],
    ["nested maps indent by 2", { a: { b: { c: { d: 1 } } }, e: 2 }, "a:\n  b:\n    c:\n      d: 1\ne: 2\n"],
    ["empty collections as values", { a: {}, b: [], c: { d: {}, e: [] } }, "a: {}\nb: []\nc:\n  d: {}\n  e: []\n"],
    ["null and bool values", { a: null, b: true, c: false }, "a: null\nb: true\nc: false\n"],
    [
      "a Kubernetes object",
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "cm",
          namespace: "default",
          labels: { app: "demo", "app.kubernetes.io/name": "demo" },
          annotations: { "crossplane.io/composition-resource-name": "cm" },
        },
        data: { "config.yaml": "a: 1\nb: 2\n", key: "value" },
      },
      "apiVersion: v1\ndata:\n  config.yaml: |\n    a: 1\n    b: 2\n  key: value\nkind: ConfigMap\nmetadata:\n  annotations:\n    crossplane.io/composition-resource-name: cm\n  labels:\n    app: demo\n    app.kubernetes.io/name: demo\n  name: cm\n  namespace: default\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("sequences", () => {
  const cases: [string, unknown, string][] = [
    ["a list under a key is not indented", { list: ["x", "y", 1] }, 'list:\n- x\n- "y"\n- 1\n'],
    ["a list at the root", ["a", 1, null], "- a\n- 1\n- null\n"],
    ["lists of lists", [[1, 2], [3, [4, 5]], []], "- - 1\n  - 2\n- - 3\n  - - 4\n    - 5\n- []\n"],
    ["a list of lists under a key", { a: [[1, 2], [3]] }, "a:\n- - 1\n  - 2\n- - 3\n"],
    ["a list of maps", [{ a: 1, b: 2 }, { c: [] }, {}], "- a: 1\n  b: 2\n- c: []\n- {}\n"],
    [
      "a list of maps under a key",
      {
        items: [
          { name: "a", value: 1 },
          { name: "b", list: [1, 2] },
        ],
      },
      "items:\n- name: a\n  value: 1\n- list:\n  - 1\n  - 2\n  name: b\n",
    ],
    ["maps in lists in maps in lists", { a: [{ b: [{ c: [{ d: 1 }] }] }] }, "a:\n- b:\n  - c:\n    - d: 1\n"],
    ["a map holding a list in a list", { a: [{ b: [[1], [2, 3]] }] }, "a:\n- b:\n  - - 1\n  - - 2\n    - 3\n"],
    ["nested empty collections in lists", [[], {}, [[]], [{}]], "- []\n- {}\n- - []\n- - {}\n"],
    ["strings in nested lists", { a: [["x y", "a: b"], ["#c"]] }, "a:\n- - x y\n  - 'a: b'\n- - '#c'\n"],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("literal blocks in structures", () => {
  const cases: [string, unknown, string][] = [
    ["a literal block in a list", ["a\nb", "c\n"], "- |-\n  a\n  b\n- |\n  c\n"],
    ["a literal block in a nested list", [["a\nb"]], "- - |-\n    a\n    b\n"],
    ["a literal block in a map in a list", [{ a: "x\ny", b: 1 }], "- a: |-\n    x\n    y\n  b: 1\n"],
    ["a literal block deep in maps", { a: { b: { c: "one\ntwo\n\nfour\n" } } }, "a:\n  b:\n    c: |\n      one\n      two\n\n      four\n"],
    ["a literal block followed by a key", { a: "x\n", b: "y\n\n", c: 1 }, "a: |\n  x\nb: |+\n  y\n\nc: 1\n"],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("complex keys", () => {
  const cases: [string, unknown, string][] = [
    [
      "a 128-byte key is simple",
      { ["k".repeat(128)]: 1 },
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1\n",
    ],
    [
      "a 129-byte key is complex",
      { ["k".repeat(129)]: 1 },
      "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: 1\n",
    ],
    [
      "a key of 64 two-byte characters is simple",
      { ["\u00e9".repeat(64)]: 1 },
      "\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9: 1\n",
    ],
    [
      "a key of 65 two-byte characters is complex",
      { ["\u00e9".repeat(65)]: 1 },
      "? \u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\u00E9\n: 1\n",
    ],
    [
      "a long key with a map value",
      { ["k".repeat(130)]: { a: 1, b: [1] } },
      "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: a: 1\n  b:\n  - 1\n",
    ],
    [
      "a long key with a list value",
      { ["k".repeat(130)]: [1, { a: 2 }] },
      "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: - 1\n  - a: 2\n",
    ],
    [
      "a long key with empty values",
      { ["a".repeat(130)]: [], ["b".repeat(130)]: {}, ["c".repeat(130)]: null },
      "? aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n: []\n? bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n: {}\n? cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n: null\n",
    ],
    [
      "a long key with a literal value",
      { ["k".repeat(130)]: "a\nb" },
      "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: |-\n  a\n  b\n",
    ],
    [
      "a long key in a nested map",
      { x: { ["k".repeat(130)]: "v" } },
      "x:\n  ? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  : v\n",
    ],
    [
      "a long key in a list item",
      [{ ["k".repeat(130)]: "v", b: 1 }],
      "- b: 1\n  ? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  : v\n",
    ],
    [
      "a long key with spaces folds",
      { ["word ".repeat(40) + "end"]: 1 },
      "? word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word word word\n  word word word word word word word word end\n: 1\n",
    ],
    [
      "a long quoted key",
      { ["#" + "x".repeat(130)]: 1, ["1".repeat(130)]: 2 },
      "? '#xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'\n: 1\n? \"1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111\"\n: 2\n",
    ],
    ["a key with a newline is a literal complex key", { "a\nb": 1 }, "? |-\n  a\n  b\n: 1\n"],
    ["a key ending in a newline", { "a\n": [1] }, "? |\n  a\n: - 1\n"],
    ["a multi-line key in a nested map", { m: { "line1\nline2": { x: 1 } } }, "m:\n  ? |-\n    line1\n    line2\n  : x: 1\n"],
    ["a key with a newline and a trailing space is double-quoted", { "a \nb": 1 }, '? "a \\nb"\n: 1\n'],
    [
      "a long emoji key",
      { ["\u{1F600}".repeat(32)]: 1, ["\u{1F601}".repeat(33)]: 2 },
      '"\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600\\U0001F600": 1\n? "\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601\\U0001F601"\n: 2\n',
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("JavaScript values JSON.stringify would drop", () => {
  const cases: [string, unknown, string][] = [
    ["undefined members are left out", { a: undefined, b: 1, c: () => 1 }, "b: 1\n"],
    ["undefined list items become null", [undefined, 1, () => 1], "- null\n- 1\n- null\n"],
    ["a map with only undefined members is empty", { a: { b: undefined } }, "a: {}\n"],
    [
      "toJSON is called: a Date is its ISO string",
      { d: new Date(Date.UTC(2024, 0, 1)), l: [new Date(0)] },
      'd: "2024-01-01T00:00:00.000Z"\nl:\n- "1970-01-01T00:00:00.000Z"\n',
    ],
    ["toJSON may return undefined", { a: { toJSON: () => undefined }, b: [{ toJSON: () => undefined }] }, "b:\n- null\n"],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("values that are not JSON", () => {
  it("rejects numbers that are not finite, as encoding/json does", () => {
    expect(() => toGoYaml({ v: NaN })).toThrow("json: unsupported value: NaN");
    expect(() => toGoYaml([Infinity])).toThrow("json: unsupported value: Infinity");
  });
  it("rejects a bigint and a root that JSON.stringify would leave out", () => {
    expect(() => toGoYaml({ v: 1n })).toThrow(TypeError);
    expect(() => toGoYaml(undefined)).toThrow(TypeError);
  });
});
