import { describe, expect, it } from "vitest";
import { schemaAtPath } from "../../src/validate/schema-path.js";
import { applyStructural } from "../../src/validate/structural.js";
import type { OpenAPISchema } from "../../src/validate/schemas/types.js";

const schema: OpenAPISchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        policy: { type: "string", default: "Automatic" },
        note: { type: "string" },
        maybe: { type: "string", nullable: true },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", properties: { name: { type: "string" }, protocol: { type: "string", default: "TCP" } } },
        },
        labels: { type: "object", additionalProperties: { type: "string" } },
      },
    },
    untouched: { type: "object", properties: { a: { type: "string" } } },
  },
};

describe("structural defaults and pruning", () => {
  it("defaults absent fields and prunes nulls without changing the input", () => {
    const input = {
      spec: { note: null, maybe: null, ports: [{ name: "http" }, { name: "dns", protocol: "UDP" }], labels: { a: "x", b: null } },
      untouched: { a: "kept" },
    };
    const before = JSON.stringify(input);
    const { value, errors } = applyStructural(schema, input);
    expect(JSON.stringify(input)).toBe(before);
    expect(value).toEqual({
      spec: {
        maybe: null,
        ports: [
          { name: "http", protocol: "TCP" },
          { name: "dns", protocol: "UDP" },
        ],
        labels: { a: "x" },
        policy: "Automatic",
      },
      untouched: { a: "kept" },
    });
    expect(errors).toEqual([]);
    const out = value as typeof input;
    expect(out.untouched).toBe(input.untouched); // shared, not copied
    expect(out.spec.ports[1]).toBe(input.spec.ports[1]);
  });

  it("returns the input itself when nothing needs a change", () => {
    const input = { spec: { policy: "Manual", ports: [{ name: "a", protocol: "TCP" }] } };
    expect(applyStructural(schema, input).value).toBe(input);
  });

  it("reports duplicate keys of map lists at the duplicate, after defaults", () => {
    const input = { spec: { policy: "Manual", ports: [{ name: "a" }, { name: "b" }, { name: "a", protocol: "TCP" }] } };
    expect(applyStructural(schema, input).errors).toEqual([
      { pointer: "/spec/ports/2", rule: "schema/duplicate", message: 'duplicate entry with name="a" (first at index 0); list items are keyed by name' },
    ]);
  });

  it("a property named like an Object method is absent until the object has it", () => {
    const odd: OpenAPISchema = { type: "object", properties: { constructor: { type: "string", default: "made" }, toString: { type: "string" } } };
    expect(applyStructural(odd, {}).value).toEqual({ constructor: "made" });
    expect(applyStructural(odd, { constructor: "mine" }).value).toEqual({ constructor: "mine" });
    const labels: OpenAPISchema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } };
    expect(applyStructural(labels, { a: "x", constructor: null }).value).toEqual({ a: "x" }); // pruned like any other extra key
  });

  it("a field path through such a name is missing unless the schema declares it", () => {
    const withSpec: OpenAPISchema = { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } };
    expect(schemaAtPath(withSpec, "spec.constructor").status).toBe("missing");
    expect(schemaAtPath(withSpec, "spec.size").status).toBe("found");
  });
});
