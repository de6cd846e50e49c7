import fs from "node:fs";
import path from "node:path";
import { RunFunctionRequest } from "@crossplane-org/function-sdk-typescript";
import { describe, expect, it } from "vitest";
import { runCelFilter } from "../../src/render/functions/cel-filter.js";
import { HAS_SHARED, SHARED, describeShared } from "../helpers.js";
import { responseJson } from "../gotemplate/protojson.js";

/** function-cel-filter's TestRunFunction cases, whole responses compared. */

const cases: any[] = HAS_SHARED ? JSON.parse(fs.readFileSync(path.join(SHARED, "conformance/cel-filter/fn.json"), "utf8")) : [];

describeShared("function-cel-filter (../shared/conformance/cel-filter/fn.json)", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(responseJson(runCelFilter(RunFunctionRequest.fromJSON(c.request))), c.reason).toEqual(c.want.response);
    });
  }
});

describe("function-cel-filter errors", () => {
  const request = (filters: unknown[]) =>
    RunFunctionRequest.fromJSON({ input: { filters }, observed: { composite: { resource: { spec: { n: 1 } } } }, desired: { resources: { a: {} } } });
  it("a non-boolean expression is fatal", () => {
    const rsp = runCelFilter(request([{ name: "a", expression: "observed.composite.resource.spec.n" }]));
    expect(rsp.results[0].message).toBe(
      'cannot evaluate CEL expression "observed.composite.resource.spec.n" for filter 0: expression "observed.composite.resource.spec.n" must return a boolean, but will return double instead',
    );
  });
  it("a missing field is fatal, a bad pattern too", () => {
    expect(runCelFilter(request([{ name: "a", expression: "observed.composite.resource.spec.x == 1" }])).results[0].message).toMatch(
      /cannot evaluate CEL program/,
    );
    expect(runCelFilter(request([{ name: "(", expression: "true" }])).results[0].message).toBe(
      'cannot compile regular expression "^($" for filter 0: error parsing regexp: missing closing ): `^($`',
    );
  });
});
