// Property-style test: seeded random JSON trees (random-json.ts) against the YAML Go made of them
// once (random.json). Go is not needed to run it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";
import { randomDocuments } from "./random-json.js";

interface Fixture {
  seed: number;
  count: number;
  cases: (string | { error: string } | null)[];
}

const fixture = JSON.parse(readFileSync(new URL("./random.json", import.meta.url), "utf8")) as Fixture;
const documents = randomDocuments(fixture.seed, fixture.count);

describe("random JSON trees print as Go prints them", () => {
  it("has a Go output for every document", () => {
    expect(fixture.cases).toHaveLength(documents.length);
    expect(fixture.cases.filter((c) => typeof c === "string").length).toBeGreaterThan(600);
  });

  it.each(documents.map((document, i) => [i, document, fixture.cases[i]] as const))("document %i", (_i, document, expected) => {
    if (expected === null) return; // Go's own order of these keys depends on its map iteration order
    if (typeof expected === "string") expect(toGoYaml(document)).toBe(expected);
    else expect(() => toGoYaml(document)).toThrow(/^yaml: /);
  });
});
