import { describe, expect, it } from "vitest";
import { celViolations, selfFieldsRead } from "../../src/validate/cel.js";
import type { OpenAPISchema } from "../../src/validate/schemas/types.js";
import { runCli, tempRepo } from "../helpers.js";

const schema = (rules: object[], extra: Partial<OpenAPISchema> = {}): OpenAPISchema => ({
  type: "object",
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": rules,
      properties: {
        replicas: { type: "integer" },
        min: { type: "integer" },
        ratio: { type: "number" },
        name: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
      },
      ...extra,
    },
  },
});

describe("x-kubernetes-validations (CEL)", () => {
  it("a false rule is a violation at its node, with its message or `failed rule`", () => {
    const s = schema([{ rule: "self.replicas <= 10", message: "at most 10 replicas" }, { rule: "self.min <= self.replicas" }]);
    expect(celViolations(s, { spec: { replicas: 3, min: 1 } })).toEqual([]);
    expect(celViolations(s, { spec: { replicas: 12, min: 20 } })).toEqual([
      { pointer: "/spec", rule: "schema/cel", message: "at most 10 replicas" },
      { pointer: "/spec", rule: "schema/cel", message: "failed rule: self.min <= self.replicas" },
    ]);
  });

  it("fields are named as the API server escapes them: reserved words and punctuation; map keys stay as they are", () => {
    const s: OpenAPISchema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [
            { rule: "!has(self.ref.__namespace__)", message: "no namespace" },
            { rule: "!has(self.ref.max__dash__surge) || self.ref.max__dash__surge > 0", message: "positive surge" },
            { rule: "!('namespace' in self.labels) || self.labels['namespace'] != 'kube-system'", message: "not kube-system" },
          ],
          properties: {
            ref: { type: "object", properties: { name: { type: "string" }, namespace: { type: "string" }, "max-surge": { type: "integer" } } },
            labels: { type: "object", additionalProperties: { type: "string" } },
          },
        },
      },
    };
    expect(celViolations(s, { spec: { ref: { name: "a" }, labels: { namespace: "default" } } })).toEqual([]);
    expect(
      celViolations(s, { spec: { ref: { name: "a", namespace: "b", "max-surge": 0 }, labels: { namespace: "kube-system" } } }).map((v) => v.message),
    ).toEqual(["no namespace", "positive surge", "not kube-system"]);
  });

  it("rules under list items and map values run for each one, at its own path", () => {
    const port: OpenAPISchema = {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self.port > 0", message: "port must be positive" }],
      properties: { port: { type: "integer" } },
    };
    const s: OpenAPISchema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            list: { type: "array", items: port },
            byName: { type: "object", additionalProperties: port },
            plain: { type: "object", properties: { port: { type: "integer" } } },
          },
        },
      },
    };
    const value = { spec: { list: [{ port: 1 }, { port: 0 }], byName: { "a.b": { port: -1 }, ok: { port: 2 } }, plain: { port: -5 } } };
    expect(celViolations(s, value).map((v) => v.pointer)).toEqual(["/spec/list/1", "/spec/byName/a.b"]);
  });

  it("messageExpression, fieldPath, has(), size(), string functions and numbers typed by the schema", () => {
    const s = schema([
      { rule: "!has(self.name) || self.name.lowerAscii() == self.name", messageExpression: "'name ' + self.name + ' must be lowercase'", fieldPath: ".name" },
      { rule: "size(self.tags) <= 2", message: "too many tags" },
      { rule: "self.ratio < 1.5", message: "ratio too high" },
    ]);
    expect(celViolations(s, { spec: { name: "Web", tags: ["a", "b", "c"], ratio: 2 } })).toEqual([
      { pointer: "/spec/name", rule: "schema/cel", message: "name Web must be lowercase" },
      { pointer: "/spec", rule: "schema/cel", message: "too many tags" },
      { pointer: "/spec", rule: "schema/cel", message: "ratio too high" },
    ]);
  });

  it("skips transition rules and absent values; says when a rule cannot run", () => {
    expect(celViolations(schema([{ rule: "self == oldSelf", message: "immutable" }]), { spec: { replicas: 1 } })).toEqual([]);
    expect(celViolations(schema([{ rule: "false" }]), {})).toEqual([]);
    const [parseError] = celViolations(schema([{ rule: "self.replicas <" }]), { spec: {} });
    expect(parseError!.message).toContain("cannot parse");
    const [unsupported] = celViolations(schema([{ rule: "isQuantity(self.name)" }]), { spec: { name: "1Gi" } });
    expect(unsupported).toMatchObject({ severity: "info", rule: "schema/cel" });
    expect(unsupported!.message).toContain("was not evaluated");
    const [missingKey] = celViolations(schema([{ rule: "self.name == 'x'" }]), { spec: {} });
    expect(missingKey!.severity).toBeUndefined();
    expect(missingKey!.message).toContain("evaluating rule: self.name == 'x'");
  });

  it("Kubernetes' list and regex libraries: isSorted, sum, min, max, indexOf, find, findAll", () => {
    const ok = (rule: string) => celViolations(schema([{ rule }]), { spec: { tags: ["a", "b", "b"], replicas: 3, name: "db12-eu345" } });
    for (const rule of [
      "self.tags.isSorted()",
      "[1, 2, 3].sum() == 6 && [1, 5, 2].max() == 5 && [4, 2].min() == 2",
      "self.tags.indexOf('b') == 1 && self.tags.lastIndexOf('b') == 2 && self.tags.indexOf('z') == -1",
      "self.name.find('[0-9]+') == '12' && self.name.findAll('[0-9]+') == ['12', '345'] && self.name.findAll('[0-9]+', 1) == ['12']",
    ])
      expect(ok(rule), rule).toEqual([]);
    expect(ok("[3, 1].isSorted()")).toHaveLength(1);
    expect(ok("[].max() == 0")[0]!.message).toContain("max called on empty list");
  });

  it("matches() runs on RE2: a pathological pattern ends at once", () => {
    const s = schema([{ rule: "!self.name.matches('^(a+)+$')", message: "all a" }]);
    const start = performance.now();
    expect(celViolations(s, { spec: { name: "a".repeat(5000) + "b" } })).toEqual([]);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it("each rule sees every field it reads, its message expression's too, and all of self when it reads self whole", () => {
    const value = { spec: { replicas: 12, min: 20, name: "web", tags: ["a"] } };
    const message = schema([{ rule: "self.replicas >= self.min", messageExpression: "'replicas of ' + self.name + ' below ' + string(self.min)" }]);
    expect(celViolations(message, value).map((v) => v.message)).toEqual(["replicas of web below 20"]);
    // One rule of the node reads self whole: the other's fields are not all it gets.
    const whole = schema([
      { rule: "self.replicas > 0" },
      { rule: "size(self) == 3", message: "not three fields" },
      { rule: "self.all(k, k != 'name')", message: "has a name" },
    ]);
    expect(celViolations(whole, value).map((v) => v.message)).toEqual(["not three fields", "has a name"]);
    expect(celViolations(schema([{ rule: "!has(self.tags) || size(self.tags) == 0", message: "tags" }]), value).map((v) => v.message)).toEqual(["tags"]);
  });

  it("knows which fields of self a rule reads: only those are converted", () => {
    expect([...selfFieldsRead("has(self.replicas) && self.tags.all(t, t != '')")!].sort()).toEqual(["replicas", "tags"]);
    expect([...selfFieldsRead("self.__namespace__ == 'x' || self.a__dash__b > 0")!].sort()).toEqual(["__namespace__", "a__dash__b"]);
    for (const whole of ["size(self) > 0", "self.matches('^a')", "self.all(k, k != 'x')", "self == {}", "self['a'] > 0", "self.tags.exists(self, self == 'a')"])
      expect(selfFieldsRead(whole)).toBeUndefined();
  });

  it("the loop-cost guard still measures the fields a rule does not read", () => {
    const s = schema([{ rule: "self.tags.all(a, self.tags.all(b, a == b))", message: "all equal" }], {
      properties: { tags: { type: "array", items: { type: "string" } }, other: { type: "array", items: { type: "string" } } },
    });
    const [skipped] = celViolations(s, { spec: { tags: ["x", "y"], other: Array.from({ length: 1500 }, (_, i) => `o${i}`) } });
    expect(skipped).toMatchObject({ severity: "info", rule: "schema/cel" });
    expect(skipped!.message).toContain("2 nested loops over values of up to 1500 items");
    expect(celViolations(s, { spec: { tags: ["x", "y"] } }).map((v) => v.message)).toEqual(["all equal"]);
  });

  it("a rule whose nested loops would not end in reasonable time is not run, and says so", () => {
    const s = schema([{ rule: "self.tags.all(a, self.tags.all(b, self.tags.all(c, a + b + c != 'x')))" }]);
    const tags = Array.from({ length: 200 }, (_, i) => `t${i}`);
    const start = performance.now();
    const [skipped] = celViolations(s, { spec: { tags } });
    expect(performance.now() - start).toBeLessThan(1000);
    expect(skipped).toMatchObject({ severity: "info", rule: "schema/cel" });
    expect(skipped!.message).toContain("3 nested loops over values of up to 200 items or characters");
    expect(celViolations(s, { spec: { tags: ["a", "b"] } })).toEqual([]);
  });

  it("an XRD's rules check its XRs, after defaults, with file and line", async () => {
    const dir = tempRepo({
      "xrd.yaml": `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: xdatabases.example.org}
spec:
  group: example.org
  names: {kind: XDatabase, plural: xdatabases}
  versions:
    - name: v1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.tier != 'gold' || self.replicas >= 3"
                  message: gold databases need at least 3 replicas
              properties:
                tier: {type: string, default: gold}
                replicas: {type: integer, default: 1}
`,
      "xr.yaml": "apiVersion: example.org/v1\nkind: XDatabase\nmetadata: {name: db, namespace: default}\nspec:\n  replicas: 2\n",
    });
    const { code, stdout } = await runCli(["validate", ".", "--format", "json"], dir);
    const findings = (JSON.parse(stdout) as { findings: { rule: string; file: string; line: number; message: string }[] }).findings.filter(
      (f) => f.rule === "schema/cel",
    );
    expect(findings).toEqual([expect.objectContaining({ file: "xr.yaml", line: 4, message: "gold databases need at least 3 replicas" })]);
    expect(code).toBe(1);
  });
});

describe("CEL has a cost budget: a manifest cannot stall validation", () => {
  const within = (ms: number, fn: () => unknown) => {
    const started = performance.now();
    const result = fn();
    expect(performance.now() - started).toBeLessThan(ms);
    return result;
  };

  it("nested loops over a long string's split are not run, and say so as info", () => {
    const s = schema([{ rule: "self.name.split('').all(a, self.name.split('').all(b, a != b || a == b))" }]);
    const out = within(2000, () => celViolations(s, { spec: { name: "x".repeat(20_000) } })) as { severity?: string; message: string }[];
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      severity: "info",
      message: expect.stringContaining("was not evaluated: 2 nested loops over values of up to 20000 items or characters"),
    });
  });

  it("a function that squares a string again and again stops at the budget", () => {
    const s = schema([{ rule: "self.name.replace('a', self.name).replace('a', self.name).replace('a', self.name).size() > 0" }]);
    const out = within(5000, () => celViolations(s, { spec: { name: "a".repeat(2000) } })) as { severity?: string; message: string }[];
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ severity: "info", message: expect.stringContaining("over the cost budget: replace built a string of") });
  });

  it("a loop whose body rebuilds a large value stops at the budget (each library call is charged for what it reads and builds)", () => {
    const s = schema([{ rule: "self.name.split('').all(c, self.name.split('').size() > 0)" }]);
    const out = within(5000, () => celViolations(s, { spec: { name: "x".repeat(80_000) } })) as { severity?: string; message: string }[];
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ severity: "info", message: expect.stringContaining("over the cost budget: the evaluation spent over 1000000 units") });
  });

  it("replace is one pass: every 'a' of a 200,000-character string, within the budget, is replaced at once", () => {
    const s = schema([{ rule: "self.name.replace('a', 'b').startsWith('bbb') && !self.name.replace('a', 'b').contains('a')", message: "not replaced" }]);
    expect(within(2000, () => celViolations(s, { spec: { name: "a".repeat(200_000) } }))).toEqual([]);
  });

  it("replace is Go's strings.Replace, as cel-go calls it: all or the first n, an empty pattern before each code point", () => {
    const rules = [
      "'abc'.replace('', 'x') == 'xaxbxcx'",
      "'aaaa'.replace('a', 'b', 2) == 'bbaa'",
      "'aaa'.replace('aa', 'b') == 'ba'",
      "'ab'.replace('a', 'c', 0) == 'ab'",
      "'ab'.replace('a', 'c', -1) == 'cb'",
    ];
    const s = schema(rules.map((rule) => ({ rule })));
    expect(celViolations(s, { spec: { name: "x" } })).toEqual([]);
  });

  it("one loop over a split string within the budget still runs", () => {
    const s = schema([{ rule: "self.name.split('').all(c, c == 'a')", message: "only a" }]);
    expect(celViolations(s, { spec: { name: "aaab" } })).toEqual([{ pointer: "/spec", rule: "schema/cel", message: "only a" }]);
  });
});
