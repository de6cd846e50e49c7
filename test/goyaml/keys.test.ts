// toGoYaml map keys: go-yaml v2's natural order (sorter.go keyList.Less) and key styles.
// Expected outputs were produced by Go (go1.19.8, gopkg.in/yaml.v2 2.4.0, whose encoder and parser
// are the code of go.yaml.in/yaml/v2 2.4.4): json.Unmarshal of JSON.stringify(input), json.Marshal,
// then yaml.Unmarshal into interface{} and yaml.Marshal, which is sigs.k8s.io/yaml.JSONToYAML.
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";

describe("order", () => {
  const cases: [string, unknown, string][] = [
    [
      "a Kubernetes object's keys",
      Object.fromEntries(["status", "spec", "metadata", "kind", "apiVersion"].map((k, i) => [k, i])),
      "apiVersion: 4\nkind: 3\nmetadata: 2\nspec: 1\nstatus: 0\n",
    ],
    [
      "metadata keys",
      Object.fromEntries(
        [
          "uid",
          "resourceVersion",
          "ownerReferences",
          "namespace",
          "name",
          "labels",
          "generateName",
          "generation",
          "finalizers",
          "creationTimestamp",
          "annotations",
        ].map((k, i) => [k, i]),
      ),
      "annotations: 10\ncreationTimestamp: 9\nfinalizers: 8\ngenerateName: 6\ngeneration: 7\nlabels: 5\nname: 4\nnamespace: 3\nownerReferences: 2\nresourceVersion: 1\nuid: 0\n",
    ],
    ["upper case before lower case", Object.fromEntries(["b", "a", "B", "A", "Z", "z"].map((k, i) => [k, i])), "A: 3\nB: 2\nZ: 4\na: 1\nb: 0\nz: 5\n"],
    [
      "non-letters before letters",
      Object.fromEntries(["a", "_x", "-", ".", "/", "~", "1", "Z"].map((k, i) => [k, i])),
      '\'-\': 2\n.: 3\n/: 4\n_x: 1\n"~": 5\n"1": 6\nZ: 7\na: 0\n',
    ],
    [
      "non-letters compare by code point",
      Object.fromEntries(["a~", "a.", "a/", "a_", "a-", "a:", "a@"].map((k, i) => [k, i])),
      "a-: 4\na.: 1\na/: 2\n'a:': 5\na@: 6\na_: 3\na~: 0\n",
    ],
    [
      "digit runs compare as numbers",
      Object.fromEntries(["item10", "item2", "item1", "item100", "item20"].map((k, i) => [k, i])),
      "item1: 2\nitem2: 1\nitem10: 0\nitem20: 4\nitem100: 3\n",
    ],
    [
      "equal numbers: the shorter run first",
      Object.fromEntries(["a01", "a1", "a001", "a10", "a010"].map((k, i) => [k, i])),
      "a1: 1\na01: 0\na001: 2\na10: 3\na010: 4\n",
    ],
    [
      "numbers in several places",
      Object.fromEntries(["v1.10", "v1.2", "v1.9", "v10.1", "v2.0", "v1.10.1"].map((k, i) => [k, i])),
      "v1.2: 1\nv1.9: 2\nv1.10: 0\nv1.10.1: 5\nv2.0: 4\nv10.1: 3\n",
    ],
    [
      "number keys",
      Object.fromEntries(["10", "9", "100", "1", "0", "00", "01", "2"].map((k, i) => [k, i])),
      '"0": 4\n"00": 5\n"1": 3\n"01": 6\n"2": 7\n"9": 1\n"10": 0\n"100": 2\n',
    ],
    ["a zero after non-zero digits", Object.fromEntries(["a10", "a1.", "a1-", "a100", "a1"].map((k, i) => [k, i])), "a1: 4\na1-: 2\na1.: 1\na10: 0\na100: 3\n"],
    [
      "zeros after zeros",
      Object.fromEntries(["x00", "x0", "x000", "x01", "x001", "x0a"].map((k, i) => [k, i])),
      "x0: 1\nx00: 0\nx000: 2\nx01: 3\nx001: 4\nx0a: 5\n",
    ],
    ["a digit run against a letter", Object.fromEntries(["a1", "ab", "a", "a1b", "a12"].map((k, i) => [k, i])), "a: 2\na1: 0\na12: 4\na1b: 3\nab: 1\n"],
    ["a prefix sorts first", Object.fromEntries(["abc", "ab", "abcd", "a", "abd"].map((k, i) => [k, i])), "a: 3\nab: 1\nabc: 0\nabcd: 2\nabd: 4\n"],
    [
      "non-ASCII letters by code point",
      Object.fromEntries(["z", "é", "É", "日", "α", "a", "ß", "ª"].map((k, i) => [k, i])),
      "a: 5\nz: 0\n\u00AA: 7\n\u00C9: 2\n\u00DF: 6\n\u00E9: 1\n\u03B1: 4\n\u65E5: 3\n",
    ],
    ["non-ASCII digits count as digits", Object.fromEntries(["٣", "3", "٠", "4", "a"].map((k, i) => [k, i])), '"3": 1\n"4": 3\n\u0660: 2\n\u0663: 0\na: 4\n'],
    [
      "characters beyond the BMP",
      Object.fromEntries(["😀", "a", "𝒳", "😁", "é"].map((k, i) => [k, i])),
      '"\\U0001F600": 0\n"\\U0001F601": 3\na: 1\n\u00E9: 4\n"\\U0001D4B3": 2\n',
    ],
    [
      "a long digit run is a big number",
      Object.fromEntries(["x99999999999999999999", "x9", "x10"].map((k, i) => [k, i])),
      "x9: 1\nx10: 2\nx99999999999999999999: 0\n",
    ],
    [
      "2^63 wraps around to a negative int64",
      Object.fromEntries(["x9223372036854775808", "x1", "x2"].map((k, i) => [k, i])),
      "x9223372036854775808: 0\nx1: 1\nx2: 2\n",
    ],
    [
      "2^64 wraps around to zero",
      Object.fromEntries(["x18446744073709551616", "x0", "x1", "x00"].map((k, i) => [k, i])),
      "x0: 1\nx00: 3\nx1: 2\nx18446744073709551616: 0\n",
    ],
    [
      "Crossplane annotation keys",
      Object.fromEntries(
        [
          "crossplane.io/external-name",
          "crossplane.io/composition-resource-name",
          "crossplane.io/claim-name",
          "crossplane.io/claim-namespace",
          "crossplane.io/composite",
          "app.kubernetes.io/name",
          "app",
        ].map((k, i) => [k, i]),
      ),
      "app: 6\napp.kubernetes.io/name: 5\ncrossplane.io/claim-name: 2\ncrossplane.io/claim-namespace: 3\ncrossplane.io/composite: 4\ncrossplane.io/composition-resource-name: 1\ncrossplane.io/external-name: 0\n",
    ],
    [
      "many keys, sorted as a whole",
      Object.fromEntries(
        [
          "k0",
          "K919",
          "k-838",
          "k_757",
          "k.676",
          "k595",
          "K514",
          "k-433",
          "k_352",
          "k.271",
          "k190",
          "K109",
          "k-28",
          "k_947",
          "k.866",
          "k785",
          "K704",
          "k-623",
          "k_542",
          "k.461",
          "k380",
          "K299",
          "k-218",
          "k_137",
          "k.56",
          "k975",
          "K894",
          "k-813",
          "k_732",
          "k.651",
          "k570",
          "K489",
          "k-408",
          "k_327",
          "k.246",
          "k165",
          "K84",
          "k-3",
          "k_922",
          "k.841",
        ].map((k, i) => [k, i]),
      ),
      "K84: 36\nK109: 11\nK299: 21\nK489: 31\nK514: 6\nK704: 16\nK894: 26\nK919: 1\nk-3: 37\nk-28: 12\nk-218: 22\nk-408: 32\nk-433: 7\nk-623: 17\nk-813: 27\nk-838: 2\nk.56: 24\nk.246: 34\nk.271: 9\nk.461: 19\nk.651: 29\nk.676: 4\nk.841: 39\nk.866: 14\nk_137: 23\nk_327: 33\nk_352: 8\nk_542: 18\nk_732: 28\nk_757: 3\nk_922: 38\nk_947: 13\nk0: 0\nk165: 35\nk190: 10\nk380: 20\nk570: 30\nk595: 5\nk785: 15\nk975: 25\n",
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("key styles", () => {
  const cases: [string, unknown, string][] = [
    [
      "YAML 1.1 booleans and null as keys are quoted",
      Object.fromEntries(["y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "False", "null", "~"].map((k, i) => [k, i])),
      '"~": 11\n"False": 9\n"N": 3\n"No": 5\n"OFF": 7\n"Y": 1\n"n": 2\n"null": 10\n"on": 6\n"true": 8\n"y": 0\n"yes": 4\n',
    ],
    ["the empty key", { "": 1 }, '"": 1\n'],
    [
      "number-like keys are quoted",
      ["123", "-1", "+1", "1.5", ".5", "1e3", "0x1F", "0o17", "0b101", "017", "1_000", ".inf", "-.Inf", ".nan", "12:30", "2024-01-01"].map((k) => ({ [k]: 1 })),
      '- "123": 1\n- "-1": 1\n- "+1": 1\n- "1.5": 1\n- ".5": 1\n- "1e3": 1\n- "0x1F": 1\n- "0o17": 1\n- "0b101": 1\n- "017": 1\n- "1_000": 1\n- ".inf": 1\n- "-.Inf": 1\n- ".nan": 1\n- "12:30": 1\n- "2024-01-01": 1\n',
    ],
    [
      "keys with indicators are single-quoted",
      Object.fromEntries(
        [
          "-",
          "?",
          ":",
          "- a",
          "? a",
          "a: b",
          "a:",
          "a #b",
          "#a",
          "@a",
          "'a",
          '"a',
          "[a",
          "{a",
          "!a",
          "&a",
          "*a",
          "|a",
          ">a",
          "%a",
          "`a",
          ",a",
          "---a",
          "...a",
        ].map((k, i) => [k, i]),
      ),
      "'!a': 14\n'\"a': 11\n'#a': 8\n'%a': 19\n'&a': 15\n'''a': 10\n'*a': 16\n',a': 21\n'-': 0\n'- a': 3\n'---a': 22\n'...a': 23\n':': 2\n'>a': 18\n'?': 1\n'? a': 4\n'@a': 9\n'[a': 12\n'`a': 20\n'{a': 13\n'|a': 17\n'a #b': 7\n'a:': 6\n'a: b': 5\n",
    ],
    ["keys with spaces at the ends are single-quoted", Object.fromEntries([" a", "a ", " "].map((k, i) => [k, i])), "' ': 2\n' a': 0\n'a ': 1\n"],
    [
      "keys that stay plain",
      Object.fromEntries(
        ["a b", "a:b", "a#b", "-a", "?a", ":a", "a,b", "a]", "<<", "=", "a'b", 'a"b', "é", "1a", "1.2.3", "NaN", "e1", "2024-01-01T00:00:00", "0b2", "0x"].map(
          (k, i) => [k, i],
        ),
      ),
      "-a: 3\n:a: 5\n<<: 8\n=: 9\n?a: 4\n0b2: 18\n0x: 19\n1.2.3: 14\n1a: 13\n2024-01-01T00:00:00: 17\nNaN: 15\na b: 0\na\"b: 11\na#b: 2\na'b: 10\na,b: 6\na:b: 1\na]: 7\ne1: 16\n\u00E9: 12\n",
    ],
    [
      "keys with special characters are double-quoted",
      Object.fromEntries(["a\tb", "\u0001", "😀", "﻿a", "a\r"].map((k, i) => [k, i])),
      '"\\x01": 1\n"\\uFEFF\\x61": 3\n"\\U0001F600": 2\n"a\\tb": 0\n? "a\\r"\n: 4\n',
    ],
    ["a key with a line separator is a complex single-quoted key", { "a\u2028b": 1 }, "? 'a\u2028  b'\n: 1\n"],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});
