import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as YAML from "yaml";
import { EventPositionIndex, PositionIndex } from "../../src/manifest/positions.js";
import { HAS_SHARED, REPO, SHARED } from "../helpers.js";

function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every JSON pointer into a value, plus one that leaves it (to test where a miss stops). */
function pointers(value: unknown, prefix = ""): string[] {
  const out = [prefix, `${prefix}/no-such-field`];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pointers(v, `${prefix}/${i}`)));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...pointers(v, `${prefix}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`));
  }
  return out;
}

/** Compares every pointer of the file; disagreements are collected (one assertion per file keeps the corpus run short). */
function compare(file: string): number {
  const text = fs.readFileSync(file, "utf8");
  let fast: EventPositionIndex;
  try {
    fast = new EventPositionIndex(text);
  } catch {
    return 0; // js-yaml rejects it, or it has anchors: the yaml tree is used for such files
  }
  const slow = new PositionIndex(text);
  let checked = 0;
  const disagree: string[] = [];
  YAML.parseAllDocuments(text, { uniqueKeys: false }).forEach((doc, i) => {
    for (const p of pointers(doc.toJS({ maxAliasCount: 100 }))) {
      const [a, b] = [fast.locate(i, p), slow.locate(i, p)];
      if (a.line !== b.line || a.column !== b.column) disagree.push(`document ${i} ${p}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      checked++;
    }
  });
  expect(disagree.slice(0, 10), file).toEqual([]);
  return checked;
}

describe("pointer positions from js-yaml events agree with the yaml document tree", () => {
  it("on the examples and on hand-written edge cases", () => {
    let checked = 0;
    for (const f of yamlFiles(path.join(REPO, "examples"))) checked += compare(f);
    const edge = path.join(REPO, "node_modules/.cache/positions-edge.yaml");
    fs.mkdirSync(path.dirname(edge), { recursive: true });
    fs.writeFileSync(
      edge,
      `# comment\n"quoted key": 'v'\nlist:\n- a\n-   b: 1\n    c: [x, {y: z}]\n~: null-key\ntrue: yes\nblock: |\n  text\n---\n---\nsecond: {flow: 1, "q": 2}\n`,
    );
    checked += compare(edge);
    expect(checked).toBeGreaterThan(100);
  });

  it.skipIf(!HAS_SHARED)(
    "on every file of ../shared/corpus",
    () => {
      let checked = 0;
      // A file whose text another file already had gives the same answers: checked once.
      const seen = new Set<string>();
      for (const f of yamlFiles(path.join(SHARED, "corpus"))) {
        const text = fs.readFileSync(f, "utf8");
        if (seen.has(text)) continue;
        seen.add(text);
        checked += compare(f);
      }
      expect(checked).toBeGreaterThan(10_000);
    },
    120_000,
  );
});
