import { describe, expect, it } from "vitest";
import { nestingOver } from "../../src/manifest/depth.js";

/** The nesting limit reads the text, not a parse: what nests counts, what only looks like it does not. */
describe("nestingOver", () => {
  const deepBlock = (n: number) => ["root:", ...Array.from({ length: n }, (_, i) => `${"  ".repeat(i + 1)}k${i}:${i === n - 1 ? " 1" : ""}`)].join("\n");

  it("counts block indentation, sequence dashes and flow brackets, and names the first line over the limit", () => {
    expect(nestingOver(deepBlock(10), 20)).toBeUndefined();
    expect(nestingOver(deepBlock(30), 20)).toBe(21);
    expect(nestingOver(`a: ${"[".repeat(25)}${"]".repeat(25)}`, 20)).toBe(1);
    expect(nestingOver(`a:\n  ${"- ".repeat(25)}x`, 20)).toBe(2);
    expect(nestingOver(`{"a": ${'{"b": '.repeat(30)}1${"}".repeat(30)}}`, 20)).toBe(1);
    // A flow collection spread over lines keeps its depth from line to line.
    expect(nestingOver(["a: [", ...Array.from({ length: 30 }, () => "  ["), "  ]"].join("\n"), 20)).toBe(21);
  });

  it("brackets in block scalars, quoted strings and comments are text", () => {
    const brackets = "[".repeat(50);
    const text = [
      "script: |",
      `  echo ${brackets}`,
      `  ${"{".repeat(50)}`,
      "other: >-",
      `  ${brackets}`,
      `quoted: "${brackets}"`,
      `single: 'it''s ${brackets}'`,
      `commented: 1 # ${brackets}`,
      "list:",
      "  - |",
      `    ${brackets}`,
      "end: true",
    ].join("\n");
    expect(nestingOver(text, 20)).toBeUndefined();
  });

  it("documents start over at ---; CRLF line endings count like LF", () => {
    expect(nestingOver([deepBlock(15), "---", deepBlock(15)].join("\n"), 20)).toBeUndefined();
    expect(nestingOver(deepBlock(30).replace(/\n/g, "\r\n"), 20)).toBe(21);
  });

  it("what the quick scan cannot clear is measured on the syntax tree: anchors and tags before block scalars, quotes over lines, top-level block scalars, brackets in plain scalars", () => {
    const many = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join("");
    const head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n";
    for (const text of [
      `${head}  nginx.conf: &conf |\n${many(140, (i) => `    location /p${i} { # route ${i}\n`)}`,
      `${head}  x: !!str |\n${many(140, () => "    if (a) { // x\n")}`,
      `${head}${many(140, (i) => `  k${i}: "item ${i}\n    [see issue #${i}] done"\n`)}`,
      `${head}${many(140, (i) => `  k${i}: 'first\n    {x} #{y} {z'\n`)}`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- |\n${many(140, () => "  {\n")}`,
      `${head}${many(140, (i) => `  r${i}: ^a[b-\n`)}`,
    ]) {
      expect(nestingOver(text), text.slice(head.length, head.length + 40)).toBeUndefined();
    }
  });

  it("stays linear on long runs of spaces and brackets", () => {
    const spaces = `a: ${" ".repeat(2_000_000)}b`;
    const started = performance.now();
    expect(nestingOver(spaces)).toBeUndefined();
    expect(nestingOver(`a: "${"[".repeat(1_000_000)}"`)).toBeUndefined();
    expect(nestingOver(`a: ${"[".repeat(1_000_000)}`)).toBe(1); // a bracket bomb stops at the limit
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
