import { describe, expect, it } from "vitest";
import { marshalYaml, unmarshalYaml } from "../../src/gotemplate/goyaml/index.js";
import { sprintf, type Value } from "../../src/gotemplate/index.js";

/**
 * yaml.v3's Marshal and Unmarshal (v3.0.1, as function-go-templating's toYaml and fromYaml use
 * them), compared with what Go printed for the same input: the YAML text, or fmt's %#v of the
 * decoded value, or the error.
 */

interface Row {
  op: "toYaml" | "fromYaml";
  data?: Value;
  text?: string;
  out?: string;
  err?: string;
}

const ROWS: Row[] = [
  { op: "toYaml", data: [{ a: 1, b: [1, 2] }, [3, [4]], {}], out: "- a: 1\n  b:\n    - 1\n    - 2\n- - 3\n  - - 4\n- {}\n" },
  {
    op: "toYaml",
    data: { "1": 7, "2": 9, "10": 8, x: [{ a: 1, b: { c: [] } }, { d: "e" }], y: { z: [[1, 2], []] }, k10: 1, k2: 2, k1: 3, K: 4, _a: 5, a_: 6 },
    out: '_a: 5\n"1": 7\n"2": 9\n"10": 8\nK: 4\na_: 6\nk1: 3\nk2: 2\nk10: 1\nx:\n    - a: 1\n      b:\n        c: []\n    - d: e\n"y":\n    z:\n        - - 1\n          - 2\n        - []\n',
  },
  { op: "toYaml", data: "plain", out: "plain\n" },
  { op: "toYaml", data: null, out: "null\n" },
  {
    op: "toYaml",
    data: {
      s: "  lead\nx",
      t: "tr ",
      u: "a\tb",
      v: "é",
      w: "\u0001",
      x: "line1\nline2\n",
      y: "x\n",
      z: "\n",
      q: "'q'",
      r: '"',
      n: "null",
      o: "1.5",
      p: "0x10",
      m: "true",
      l: "~",
      j: "2001-12-14",
      i: "1:20",
      h: ":x",
      g: "x:",
      f: "- y",
      e: "? q",
      d: "[a]",
      c: "a #b",
      b: "a# b",
      a: "{x}",
    },
    out: 'a: \'{x}\'\nb: a# b\nc: \'a #b\'\nd: \'[a]\'\ne: \'? q\'\nf: \'- y\'\ng: \'x:\'\nh: :x\ni: "1:20"\nj: "2001-12-14"\nl: "~"\nm: "true"\n"n": "null"\no: "1.5"\np: "0x10"\nq: \'\'\'q\'\'\'\nr: \'"\'\ns: |4-\n      lead\n    x\nt: \'tr \'\nu: "a\\tb"\nv: é\nw: "\\x01"\nx: |\n    line1\n    line2\n"y": |\n    x\nz: |4+\n',
  },
  { op: "toYaml", data: { z: "\n" }, out: "z: |4+\n" },
  { op: "toYaml", data: { z: "a\n\n" }, out: "z: |+\n    a\n\n" },
  { op: "toYaml", data: "multi\nline", out: "|-\n    multi\n    line\n" },
  { op: "toYaml", data: ["multi\nline", " x\ny", { k: "v\n" }], out: "- |-\n  multi\n  line\n- |4-\n   x\n  y\n- k: |\n    v\n" },
  { op: "toYaml", data: { "a\nb": 1, c: { "d\ne": [] } }, out: "? |-\n    a\n    b\n: 1\nc:\n    ? |-\n        d\n        e\n    : []\n" },
  {
    op: "toYaml",
    data: { k: "tab\there", k2: "é ü", k3: " nbsp", k4: "trail\n  ", k5: "x\r\ny", k6: " " },
    out: 'k: "tab\\there"\nk2: é ü\nk3:  nbsp\nk4: "trail\\n  "\nk5: "x\\r\\ny"\nk6: \' \'\n',
  },
  {
    op: "toYaml",
    data: {
      a: "---",
      b: "...x",
      c: "- ",
      d: "-",
      e: "?",
      f: ":",
      g: "a: ",
      h: "@x",
      i: "%x",
      j: "!x",
      k: "&x",
      l: "*x",
      m: "|x",
      n: ">x",
      o: "x|y",
      p: "x,y",
      q: "x[y]",
      r: "x{y}",
      s: "x'y",
      t: 'x"y',
    },
    out: "a: '---'\nb: '...x'\nc: '- '\nd: '-'\ne: '?'\nf: ':'\ng: 'a: '\nh: '@x'\ni: '%x'\nj: '!x'\nk: '&x'\nl: '*x'\nm: '|x'\n\"n\": '>x'\no: x|y\np: x,y\nq: x[y]\nr: x{y}\ns: x'y\nt: x\"y\n",
  },
  {
    op: "fromYaml",
    text: "\ncomplexDictionary:\n  scalar1: true\n  list:\n  - abc\n  - def",
    out: 'map[string]interface {}{"complexDictionary":map[string]interface {}{"list":[]interface {}{"abc", "def"}, "scalar1":true}}',
  },
  { op: "fromYaml", text: "\ncomplexDictionary:\n\t  scalar1: true\n", err: "yaml: line 3: found character that cannot start any token" },
  { op: "fromYaml", text: "a: 1\na: 2\n", err: 'yaml: unmarshal errors:\n  line 2: mapping key "a" already defined at line 1' },
  {
    op: "fromYaml",
    text: "- a\n- b: [1, 2, {c: d}]\n",
    out: '[]interface {}{"a", map[string]interface {}{"b":[]interface {}{1, 2, map[string]interface {}{"c":"d"}}}}',
  },
  { op: "fromYaml", text: "plain", out: '"plain"' },
  { op: "fromYaml", text: "", out: "<nil>" },
  { op: "fromYaml", text: "---\na: 1\n---\nb: 2\n", out: 'map[string]interface {}{"a":1}' },
  { op: "fromYaml", text: "a: b: c\n", err: "yaml: mapping values are not allowed in this context" },
  { op: "fromYaml", text: "x:\n  - a\n y: 1\n", err: "yaml: line 2: did not find expected key" },
  {
    op: "toYaml",
    data: {
      "very long key ................................................................................................................................x": 1,
    },
    out: "? very long key ................................................................................................................................x\n: 1\n",
  },
  {
    op: "toYaml",
    data: {
      spec: { forProvider: { region: "us-east-1", tags: { a: "b", c: "1", d: "true" } }, list: [{ name: "x", ports: [80, 443] }, { name: "y" }] },
      metadata: { labels: { app: "web" }, annotations: { x: "a: b", y: "#c", z: "multi\nline\n" } },
    },
    out: 'metadata:\n    annotations:\n        x: \'a: b\'\n        "y": \'#c\'\n        z: |\n            multi\n            line\n    labels:\n        app: web\nspec:\n    forProvider:\n        region: us-east-1\n        tags:\n            a: b\n            c: "1"\n            d: "true"\n    list:\n        - name: x\n          ports:\n            - 80\n            - 443\n        - name: "y"\n',
  },
  { op: "toYaml", data: ["a", "", null, true, 1, 2.5, { k: [] }, {}], out: '- a\n- ""\n- null\n- true\n- 1\n- 2.5\n- k: []\n- {}\n' },
  {
    op: "toYaml",
    data: {
      octal: "0755",
      date: "2021-01-01",
      float: "1e3",
      inf: ".inf",
      tilde: "~",
      yes: "yes",
      on: "on",
      y: "y",
      n: "n",
      null: "null",
      NULL: "NULL",
      hex: "0x1F",
      sex: "1:30",
      neg: "-1",
      plus: "+1",
      dot: ".5",
    },
    out: '"NULL": "NULL"\ndate: "2021-01-01"\ndot: ".5"\nfloat: "1e3"\nhex: "0x1F"\ninf: ".inf"\n"n": "n"\nneg: "-1"\n"null": "null"\noctal: "0755"\n"on": "on"\nplus: "+1"\nsex: "1:30"\ntilde: "~"\n"y": "y"\n"yes": "yes"\n',
  },
  {
    op: "fromYaml",
    text: "a: 1\nb: [x, 'y', \"z\"]\nc:\n  d: true\n  e: null\n",
    out: 'map[string]interface {}{"a":1, "b":[]interface {}{"x", "y", "z"}, "c":map[string]interface {}{"d":true, "e":interface {}(nil)}}',
  },
  { op: "fromYaml", text: "- 1.5\n- -2\n- 0x10\n- 1e2\n- .5\n- '007'\n- 007\n- +12\n", out: '[]interface {}{1.5, -2, 16, 100, 0.5, "007", 7, 12}' },
  {
    op: "fromYaml",
    text: "key: |\n  line1\n  line2\nother: >-\n  folded\n  more\n",
    out: 'map[string]interface {}{"key":"line1\\nline2\\n", "other":"folded more"}',
  },
  { op: "fromYaml", text: 'a: !!str 123\nb: !!int "42"\nc: !!float 1\nd: !!bool true\n', out: 'map[string]interface {}{"a":"123", "b":42, "c":1, "d":true}' },
  { op: "fromYaml", text: "a: &a [1, 2]\nb: *a\n", out: 'map[string]interface {}{"a":[]interface {}{1, 2}, "b":[]interface {}{1, 2}}' },
  { op: "fromYaml", text: "a: b\na: c\n", err: 'yaml: unmarshal errors:\n  line 2: mapping key "a" already defined at line 1' },
];

describe("go-yaml v3 against Go's output", () => {
  ROWS.forEach((row, i) => {
    it(`${i} ${row.op} ${String(JSON.stringify(row.data ?? row.text ?? null)).slice(0, 60)}`, () => {
      if (row.op === "toYaml") {
        expect(marshalYaml(row.data ?? null)).toBe(row.out);
        return;
      }
      if (row.err) expect(() => unmarshalYaml(row.text!, { version: 3 })).toThrow(row.err);
      else expect(sprintf("%#v", [unmarshalYaml(row.text!, { version: 3 })])).toBe(row.out);
    });
  });
});
