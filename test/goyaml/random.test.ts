// Property-style test: seeded random JSON trees (random-json.ts) against the YAML Go made of them
// once (random.json). Go is not needed to run it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toGoYaml } from "../../src/goyaml/index.js";
import { keyLess, sortKeys } from "../../src/goyaml/keys.js";
import { randomDocuments } from "./random-json.js";

interface Fixture {
  seed: number;
  count: number;
  cases: (string | { error: string } | null)[];
}

/** The keys of each map in a JSON value, as Go's map holds them: encoding/json reads a lone surrogate as U+FFFD. */
function* mapKeys(value: unknown): Generator<string[]> {
  if (typeof value !== "object" || value === null) return;
  if (!Array.isArray(value)) yield [...new Set(Object.keys(value).map((k) => Buffer.from(k, "utf8").toString("utf8")))];
  for (const item of Object.values(value)) yield* mapKeys(item);
}

function* permutations(keys: string[]): Generator<string[]> {
  if (keys.length <= 1) {
    yield keys;
    return;
  }
  for (let i = 0; i < keys.length; i++) for (const rest of permutations(keys.toSpliced(i, 1))) yield [keys[i], ...rest];
}

/** go-yaml v2's sort.Sort(keyList) of a map's keys in one iteration order: Go's sort is an insertion sort up to 12 items. */
function goSort(keys: string[]): string {
  const sorted = [...keys];
  for (let i = 1; i < sorted.length; i++) {
    for (let j = i; j > 0 && keyLess(sorted[j], sorted[j - 1]); j--) [sorted[j - 1], sorted[j]] = [sorted[j], sorted[j - 1]];
  }
  return JSON.stringify(sorted);
}

const fixture = JSON.parse(readFileSync(new URL("./random.json", import.meta.url), "utf8")) as Fixture;
const documents = randomDocuments(fixture.seed, fixture.count);

describe("random JSON trees print as Go prints them", () => {
  it("has a Go output for every document", () => {
    expect(fixture.cases).toHaveLength(documents.length);
    expect(fixture.cases.filter((c) => typeof c === "string").length).toBeGreaterThan(600);
  });

  it.each(documents.map((document, i) => [i, document, fixture.cases[i]] as const))("document %i", (_i, document, expected) => {
    const maps = [...mapKeys(document)].map((keys) => ({ keys, goOrders: [...new Set([...permutations(keys)].map(goSort))] }));
    // null: a map whose key order in Go depends on its map iteration order, and only then
    expect(maps.some((m) => m.goOrders.length > 1)).toBe(expected === null);
    if (expected === null) {
      // Go converts it, and the order toGoYaml prints each map's keys in (sortKeys) is one Go's sort makes from some iteration order
      expect(() => toGoYaml(document)).not.toThrow();
      for (const { keys, goOrders } of maps) expect(goOrders).toContain(JSON.stringify(sortKeys(keys.map((k) => [k, null])).map(([k]) => k)));
    } else if (typeof expected === "string") expect(toGoYaml(document)).toBe(expected);
    else expect(() => toGoYaml(document)).toThrow(/^yaml: /);
  });
});
