import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/core/finding.js";
import { Manifest, SourceFile } from "../../src/manifest/manifest.js";
import { diffFindings } from "../../src/rendered/diff.js";
import { ObjectMoves } from "../../src/rendered/moves.js";

/** A tree: file → the Compositions (by name) it holds, one document each. */
function tree(files: Record<string, string[]>): Manifest[] {
  return Object.entries(files).flatMap(([file, names]) => {
    const source = new SourceFile(file, "");
    return names.map((name, i) => new Manifest({ apiVersion: "apiextensions.crossplane.io/v1", kind: "Composition", metadata: { name } }, source, i));
  });
}

const finding = (file: string, name?: string, rule = "function/input-invalid"): Finding => ({
  rule,
  severity: "error",
  message: `${rule} message`,
  file,
  line: 3,
  ...(name ? { apiVersion: "apiextensions.crossplane.io/v1", kind: "Composition", name } : {}),
});

function compare(base: Record<string, string[]>, head: Record<string, string[]>, baseFindings: Finding[], headFindings: Finding[]) {
  const moves = new ObjectMoves(tree(base), tree(head));
  const d = diffFindings(baseFindings, headFindings, undefined, (f) => moves.atHead(f));
  const show = (fs: Finding[]) => fs.map((f) => `${f.file}:${f.name ?? "-"}`);
  return { new: show(d.new), fixed: show(d.fixed), unchanged: show(d.unchanged) };
}

describe("findings of objects a change moved or renamed", () => {
  it("an object renamed in its file keeps its finding: unchanged, not new and fixed", () => {
    const d = compare({ "a.yaml": ["old", "other"] }, { "a.yaml": ["new", "other"] }, [finding("a.yaml", "old")], [finding("a.yaml", "new")]);
    expect(d).toEqual({ new: [], fixed: [], unchanged: ["a.yaml:new"] });
  });

  it("two objects that both stay: one fixed and one broken the same way is new and fixed", () => {
    const d = compare({ "a.yaml": ["one", "two"] }, { "a.yaml": ["one", "two"] }, [finding("a.yaml", "one")], [finding("a.yaml", "two")]);
    expect(d).toEqual({ new: ["a.yaml:two"], fixed: ["a.yaml:one"], unchanged: [] });
  });

  it("two objects renamed in one file: which became which is not known, so nothing is paired", () => {
    const d = compare({ "a.yaml": ["one", "two"] }, { "a.yaml": ["three", "four"] }, [finding("a.yaml", "one")], [finding("a.yaml", "three")]);
    expect(d).toEqual({ new: ["a.yaml:three"], fixed: ["a.yaml:one"], unchanged: [] });
  });

  it("a file moved (git mv) keeps its findings, object and file ones, though another file holds the same names", () => {
    const d = compare(
      { "a.yaml": ["x"], "copy.yaml": ["x"] },
      { "dir/b.yaml": ["x"], "copy.yaml": ["x"] },
      [finding("a.yaml", "x"), finding("a.yaml", undefined, "yaml/duplicate-key")],
      [finding("dir/b.yaml", "x"), finding("dir/b.yaml", undefined, "yaml/duplicate-key")],
    );
    expect(d).toEqual({ new: [], fixed: [], unchanged: ["dir/b.yaml:x", "dir/b.yaml:-"] });
  });

  it("two files gone and two new holding the same objects: no file is paired", () => {
    const d = compare({ "a.yaml": ["x"], "b.yaml": ["x"] }, { "c.yaml": ["x"], "d.yaml": ["x"] }, [finding("a.yaml", "x")], [finding("c.yaml", "x")]);
    expect(d).toEqual({ new: ["c.yaml:x"], fixed: ["a.yaml:x"], unchanged: [] });
  });

  it("an object moved out of a file that stays, into another: its finding follows it", () => {
    const d = compare({ "a.yaml": ["x", "y"], "b.yaml": ["z"] }, { "a.yaml": ["x"], "b.yaml": ["z", "y"] }, [finding("a.yaml", "y")], [finding("b.yaml", "y")]);
    expect(d).toEqual({ new: [], fixed: [], unchanged: ["b.yaml:y"] });
  });

  it("two objects of one name in a file (namespaces a finding does not name): a move of one pairs nothing", () => {
    const ns = (file: string, namespace: string) =>
      new Manifest({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace } }, new SourceFile(file, ""), namespace === "ns1" ? 0 : 1);
    const at = (file: string): Finding => ({ rule: "schema/type", severity: "error", message: "m", file, apiVersion: "v1", kind: "ConfigMap", name: "x" });
    const moves = new ObjectMoves([ns("f.yaml", "ns1"), ns("f.yaml", "ns2")], [ns("f.yaml", "ns2"), ns("g.yaml", "ns1")]);
    const d = diffFindings([at("f.yaml")], [at("g.yaml")], undefined, (f) => moves.atHead(f));
    expect([d.new.length, d.fixed.length, d.unchanged.length]).toEqual([1, 1, 0]);
  });

  it("a finding reworded at another severity at the renamed object is new, and the old one fixed", () => {
    const reworded = { ...finding("a.yaml", "new"), message: "another message" };
    const d = compare({ "a.yaml": ["old"] }, { "a.yaml": ["new"] }, [{ ...finding("a.yaml", "old"), severity: "warning" }], [reworded]);
    expect(d).toEqual({ new: ["a.yaml:new"], fixed: ["a.yaml:old"], unchanged: [] });
  });
});
