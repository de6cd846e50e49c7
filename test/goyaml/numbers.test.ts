// toGoYaml numbers: encoding/json's float64 text, read back by yaml.v2 as int, uint64 or float64.
// Expected outputs were produced by Go (go1.19.8, gopkg.in/yaml.v2 2.4.0, whose encoder and parser
// are the code of go.yaml.in/yaml/v2 2.4.4): json.Unmarshal of JSON.stringify(input), json.Marshal,
// then yaml.Unmarshal into interface{} and yaml.Marshal, which is sigs.k8s.io/yaml.JSONToYAML.
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";

describe("integers", () => {
  const cases: [number, string][] = [
    [0, "0\n"],
    [-0, "0\n"],
    [1, "1\n"],
    [-1, "-1\n"],
    [42, "42\n"],
    [1.0, "1\n"],
    [1e6, "1000000\n"],
    [1000000.0, "1000000\n"],
    [3.0e2, "300\n"],
    [2147483648, "2147483648\n"],
    [9007199254740991, "9007199254740991\n"],
    [9007199254740993, "9007199254740992\n"],
    [2 ** 53 + 2, "9007199254740994\n"],
    [2 ** 60, "1152921504606847000\n"],
    [-(2 ** 60), "-1152921504606847000\n"],
    [2 ** 63 - 1024, "9223372036854775000\n"],
    [2 ** 63, "9223372036854776000\n"],
    [-(2 ** 63), "-9.223372036854776e+18\n"],
    [-(2 ** 63) - 2048, "-9.223372036854778e+18\n"],
    [2 ** 64 - 2048, "18446744073709550000\n"],
    [2 ** 64, "1.8446744073709552e+19\n"],
    [1e19, "10000000000000000000\n"],
    [1e20, "1e+20\n"],
    [-1e19, "-1e+19\n"],
    [1e21, "1e+21\n"],
    [1e22, "1e+22\n"],
    [123456789012345680000, "1.2345678901234568e+20\n"],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("floats", () => {
  const cases: [number, string][] = [
    [0.1, "0.1\n"],
    [1.5, "1.5\n"],
    [-1.5, "-1.5\n"],
    [0.5, "0.5\n"],
    [3.14159, "3.14159\n"],
    [0.0001, "0.0001\n"],
    [0.00001, "1e-05\n"],
    [0.000001, "1e-06\n"],
    [1e-7, "1e-07\n"],
    [1.5e-7, "1.5e-07\n"],
    [123456.5, "123456.5\n"],
    [999999.5, "999999.5\n"],
    [1000000.5, "1.0000005e+06\n"],
    [123456789.125, "1.23456789125e+08\n"],
    [0.1 + 0.2, "0.30000000000000004\n"],
    [1 / 3, "0.3333333333333333\n"],
    [-2 / 3, "-0.6666666666666666\n"],
    [Math.PI * 1e10, "3.141592653589793e+10\n"],
    [1.7976931348623157e308, "1.7976931348623157e+308\n"],
    [-1.7976931348623157e308, "-1.7976931348623157e+308\n"],
    [5e-324, "5e-324\n"],
    [2.2250738585072014e-308, "2.2250738585072014e-308\n"],
    [1e-300, "1e-300\n"],
    [6.02214076e23, "6.02214076e+23\n"],
    [1.25e21, "1.25e+21\n"],
    [12345678.9, "1.23456789e+07\n"],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});

describe("numbers in structures", () => {
  const cases: [string, unknown, string][] = [
    [
      "numbers as values and items",
      { replicas: 3, ratio: 0.75, big: 1e21, list: [1, 1.5, -0, 1e-7] },
      "big: 1e+21\nlist:\n- 1\n- 1.5\n- 0\n- 1e-07\nratio: 0.75\nreplicas: 3\n",
    ],
    ["number keys are strings", { "1": 1, "1.5": 1.5, "1e3": 1000 }, '"1": 1\n"1.5": 1.5\n"1e3": 1000\n'],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    expect(toGoYaml(input)).toBe(expected);
  });
});
