import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers.js";

/**
 * The house's rules (docs/architecture.md, issue 35), checked on the imports of src/ as
 * TypeScript reads them (`ts.preProcessFile`, type-only imports included): every room is on a
 * floor, a room imports only rooms on lower floors (never one beside it or above it), and no
 * file imports itself through others. `npx vitest run test/architecture.test.ts` says which
 * import breaks a rule.
 */

/** From the bottom up; rooms on one floor do not import each other. */
const FLOORS: string[][] = [
  ["core", "go", "version"],
  ["goyaml", "gotemplate", "cache"],
  ["manifest", "oci", "git"],
  ["secrets", "config", "project"],
  ["rendered", "trust"],
  ["cel", "runtimes"],
  ["validate"],
  ["policy"],
  ["kpt"],
  ["render"],
  ["packages"],
  ["drift"],
  ["report"],
  ["testing"],
  ["run"],
  ["commands", "action"],
  ["main"],
  ["cli", "index"],
];

const SRC = path.join(REPO, "src");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

function roomOf(file: string): string {
  const [first] = path.relative(SRC, file).split(path.sep);
  return first!.replace(/\.ts$/, "");
}

/** Each file's imports of other files of src/ (resolved from `./x.js` to `./x.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, ".ts")));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(REPO, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const floor = new Map(FLOORS.flatMap((rooms, i) => rooms.map((room) => [room, i] as const)));

/** Imports from a room to one on its own floor or above. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from !== to && floor.get(from)! <= floor.get(to)!) upward.push(`${path.relative(REPO, file)} -> ${path.relative(REPO, target)}`);
    }
  }
  return upward;
}

describe("the house", () => {
  const graph = importGraph();

  it("every room of src/ is on a floor", () => {
    const rooms = new Set([...graph.keys()].map(roomOf));
    expect([...rooms].filter((room) => !floor.has(room)).sort()).toEqual([]);
  });

  it("no room imports a room beside it or above it", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("no file imports itself through others", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("the checks can fail: an upward import and a circle are found", () => {
    const fake = new Map([
      [path.join(SRC, "core/a.ts"), [path.join(SRC, "core/b.ts")]],
      [path.join(SRC, "core/b.ts"), [path.join(SRC, "core/a.ts")]],
    ]);
    expect(circles(fake)).toEqual([["src/core/a.ts", "src/core/b.ts"]]);
    const up = new Map([[path.join(SRC, "manifest/m.ts"), [path.join(SRC, "report/r.ts"), path.join(SRC, "oci/o.ts"), path.join(SRC, "core/c.ts")]]]);
    expect(upwardImports(up)).toEqual(["src/manifest/m.ts -> src/report/r.ts", "src/manifest/m.ts -> src/oci/o.ts"]);
  });
});
