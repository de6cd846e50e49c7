import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runDiff, type DiffOptions } from "../../src/run/diff.js";
import { materialize } from "../../src/git/git.js";
import { gitRepo, tempRepo, type GitRepo } from "../helpers.js";
import { triples } from "../fixtures/triples.js";

/**
 * diff shares work between its trees (base files hard-linked to the head's, files parsed once,
 * objects checked once per schema content): its report must be the one a full, separate
 * validation of each tree gives, also when definitions change under unchanged files.
 */

const CRD = (required: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object,${required} properties: {color: {type: string}, size: {type: integer, maximum: 10}}}
`;

function repoWithDefinitions(): GitRepo {
  const files: Record<string, string> = {
    ...triples(4),
    "widgets/crd.yaml": CRD(""),
    "widgets/widget.yaml": "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {color: red, size: 12}\n",
    "broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n",
    "ignored.yaml": "apiVersion: nowhere.example.org/v1\nkind: Gizmo\nmetadata:\n  name: g\n  annotations: {composition-ci.dev/ignore: schema/missing}\n",
    "unknown.yaml": "apiVersion: nowhere.example.org/v1\nkind: Gizmo\nmetadata: {name: h}\n",
  };
  const repo = gitRepo(files);
  const dir = repo.dir;
  const edit = (rel: string, from: string, to: string) => {
    const abs = path.join(dir, rel);
    const text = fs.readFileSync(abs, "utf8");
    expect(text).toContain(from);
    fs.writeFileSync(abs, text.replace(from, to));
  };
  // Definitions change under files that do not: the unchanged XR and Widget meet other schemas.
  edit("t1/xrd.yaml", "size: {type: string}", "size: {type: integer}");
  edit("widgets/crd.yaml", "spec: {type: object,", "spec: {type: object, required: [shape],");
  edit("t2/composition.yaml", "data: {size: small}", "data: {size: small, tier: gold}");
  // A second definition of t3's type, and a file gone.
  fs.writeFileSync(path.join(dir, "dup.yaml"), fs.readFileSync(path.join(dir, "t3/xrd.yaml"), "utf8"));
  fs.rmSync(path.join(dir, "t0/xr.yaml"));
  return repo;
}

async function bothWays(options: DiffOptions) {
  const shared = await runDiff(options);
  const full = await runDiff({ ...options, fullValidation: true });
  return { shared, full };
}

describe("diff: work shared between the trees changes nothing in the report", () => {
  it("the working tree against its base, with definitions changed under unchanged files", async () => {
    const { dir } = repoWithDefinitions();
    const { shared, full } = await bothWays({ root: dir, paths: ["."], base: "main" });
    expect(JSON.stringify(shared.report)).toBe(JSON.stringify(full.report));
    expect(shared.headFindings).toEqual(full.headFindings);
    const rules = (fs: { rule: string; file?: string }[]) => fs.map((f) => `${f.file}:${f.rule}`);
    // Not a trivial comparison: unchanged files got new findings and lost old ones.
    expect(rules(shared.report.findings.new)).toEqual(expect.arrayContaining(["t1/xr.yaml:schema/type", "widgets/widget.yaml:schema/required"]));
    expect(shared.report.findings.unchanged.map((f) => `${f.file}:${f.rule}`)).toEqual(
      expect.arrayContaining(["broken.yaml:yaml/syntax", "unknown.yaml:schema/missing", "widgets/widget.yaml:schema/limit"]),
    );
    expect(shared.headFindings.find((f) => f.file === "ignored.yaml")?.suppressed).toBe(true);
  }, 30_000);

  it("two commits (--head), and the same again with trusted base config", async () => {
    const { dir, commit } = repoWithDefinitions();
    commit("head");
    for (const trustBaseConfig of [false, true]) {
      const { shared, full } = await bothWays({ root: dir, paths: ["."], base: "HEAD~1", head: "HEAD", trustBaseConfig });
      expect(JSON.stringify(shared.report)).toBe(JSON.stringify(full.report));
      expect(shared.headFindings).toEqual(full.headFindings);
      expect(shared.report.findings.new.map((f) => `${f.file}:${f.rule}`)).toEqual(
        expect.arrayContaining(["t1/xr.yaml:schema/type", "widgets/widget.yaml:schema/required"]),
      );
    }
  }, 30_000);
});

describe("materialize: a base tree of hard links is the tree a checkout writes", () => {
  it("unchanged files are links to the head's, everything else is checked out", async () => {
    const dir = tempRepo({ "a.yaml": "a: 1\n", "dir/b.yaml": "b: 1\n", "dir/deep/c.yaml": "c: 1\n", "run.sh": "#!/bin/sh\n", "same.yaml": "s: 1\n" });
    fs.chmodSync(path.join(dir, "run.sh"), 0o755);
    fs.symlinkSync("a.yaml", path.join(dir, "link.yaml"));
    gitRepo(dir);
    fs.writeFileSync(path.join(dir, "a.yaml"), "a: 2\n"); // changed
    fs.rmSync(path.join(dir, "dir/b.yaml")); // deleted
    fs.writeFileSync(path.join(dir, "new.yaml"), "n: 1\n"); // untracked
    fs.rmSync(path.join(dir, "dir/deep/c.yaml"));
    fs.symlinkSync("../../same.yaml", path.join(dir, "dir/deep/c.yaml")); // a link now, with other bytes
    const linked = await materialize("main", dir, { linkFrom: dir });
    const written = await materialize("main", dir);
    try {
      expect(snapshot(linked.dir)).toEqual(snapshot(written.dir));
      expect(snapshot(linked.dir)).toEqual({
        "a.yaml": "a: 1\n",
        "dir/b.yaml": "b: 1\n",
        "dir/deep/c.yaml": "c: 1\n",
        "link.yaml": "-> a.yaml",
        "run.sh": "#!/bin/sh\n",
        "same.yaml": "s: 1\n",
      });
      expect(fs.statSync(path.join(linked.dir, "same.yaml")).ino).toBe(fs.statSync(path.join(dir, "same.yaml")).ino);
      expect(fs.statSync(path.join(linked.dir, "a.yaml")).ino).not.toBe(fs.statSync(path.join(dir, "a.yaml")).ino);
    } finally {
      linked.cleanup();
      written.cleanup();
    }
    expect(fs.readFileSync(path.join(dir, "same.yaml"), "utf8")).toBe("s: 1\n");
  });
});

/** Every file below a directory: its bytes, or where a link leads. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(path.join(root, r))}`;
      else out[r] = fs.readFileSync(path.join(root, r), "utf8");
    }
  };
  walk("");
  return out;
}
