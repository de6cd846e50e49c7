import { describe, expect, it } from "vitest";
import { PackageLayout, parentDir } from "../../src/manifest/packages.js";

/** Proximity as documented, computed the slow way: same package first, then most leading directories shared. */
function nearestByDefinition(roots: string[], candidates: string[], from: string): string[] {
  const packageOf = (dir: string) => roots.filter((r) => r === "" || dir === r || dir.startsWith(`${r}/`)).sort((a, b) => b.length - a.length)[0];
  const fromDir = parentDir(from);
  const own = roots.length ? packageOf(fromDir) : undefined;
  const mine = roots.length ? candidates.filter((c) => packageOf(parentDir(c)) === own) : [];
  const pool = mine.length ? mine : candidates;
  const shared = (a: string, b: string) => {
    if (a === "" || b === "") return 0;
    const x = a.split("/");
    const y = b.split("/");
    let n = 0;
    while (n < x.length && n < y.length && x[n] === y[n]) n++;
    return n;
  };
  const depths = pool.map((c) => shared(fromDir, parentDir(c)));
  const best = Math.max(...depths);
  return pool.filter((_, i) => depths[i] === best);
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("PackageLayout.nearestAll", () => {
  it("answers as the definition does on random trees (packages, ties, prefixes that are not directories)", () => {
    const names = ["a", "ab", "b", "pkg", "pkg2", "x"];
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = random(seed);
      const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
      const dir = () => Array.from({ length: Math.floor(rnd() * 4) }, () => pick(names)).join("/");
      const file = () => [dir(), `${pick(["f", "g"])}.yaml`].filter(Boolean).join("/");
      const roots = [...new Set(Array.from({ length: Math.floor(rnd() * 3) }, dir))];
      const candidates = [...new Set(Array.from({ length: 2 + Math.floor(rnd() * 6) }, file))];
      const layout = new PackageLayout(roots);
      for (let q = 0; q < 20; q++) {
        const from = file();
        expect(
          layout.nearestAll(candidates, (c) => c, from),
          `seed ${seed}: roots ${JSON.stringify(roots)}, from ${from}`,
        ).toEqual(nearestByDefinition(roots, candidates, from));
      }
    }
  });

  it("prefers the asking file's own package over a nearer directory of another", () => {
    const layout = new PackageLayout(["apis/one", "apis/two"]);
    const candidates = ["apis/one/xrd.yaml", "apis/two/sub/xrd.yaml"];
    expect(layout.nearest(candidates, (c) => c, "apis/two/examples/xr.yaml")).toBe("apis/two/sub/xrd.yaml");
    expect(layout.nearest(candidates, (c) => c, "apis/one/deep/er/xr.yaml")).toBe("apis/one/xrd.yaml");
    expect(layout.nearestAll(candidates, (c) => c, "examples/xr.yaml")).toEqual(candidates);
  });
});
