import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatDiff, runDiff } from "../../src/run/diff.js";
import { hasChanges, type DiffReport } from "../../src/report/diff.js";
import { editFile, gitRepo, REPO, runCli } from "../helpers.js";
import { triples } from "../fixtures/triples.js";

function tmpBaseDirs(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith("composition-ci-base-"));
}

/** One source whose render has a finding (a ConfigMap's data gets an integer: render/schema). */
function renderFindingAtBase(): Record<string, string> {
  const files = triples(1);
  files["t0/xrd.yaml"] = files["t0/xrd.yaml"]!.replace("size: {type: string}", "size: {type: string}, count: {type: integer}");
  files["t0/composition.yaml"] = files["t0/composition.yaml"]!.replace(
    "toFieldPath: data.size}",
    "toFieldPath: data.size}\n              - {type: FromCompositeFieldPath, fromFieldPath: spec.count, toFieldPath: data.count}",
  );
  files["t0/xr.yaml"] = files["t0/xr.yaml"]!.replace("spec: {size: large}", "spec: {size: large, count: 5}");
  return files;
}

describe("diff: what a change does, rendered", () => {
  it("renders only the sources whose files changed: one Composition of many", async () => {
    const { dir } = gitRepo(triples(60));
    editFile(dir, "t7/composition.yaml", "data: {size: small}", "data: {size: small, tier: gold}");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.sources).toEqual({ total: 60, considered: 1, rendered: 1, notRendered: 0, failed: 0, all: false });
    expect(report.changes.map((c) => `${c.name}:${c.status}`)).toEqual(["thing7:changed"]);
    expect(report.changes[0]!.objects[0]!.diff).toContain("+  tier: gold");
  }, 30_000);

  it("an XR whose file can no longer be read at head is not removed: its diff is unknown and nothing it makes is said to be deleted", async () => {
    const { dir } = gitRepo(triples(2));
    editFile(dir, "t0/xr.yaml", "metadata:", "metadata:\n  name: [unclosed");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const change = report.changes.find((c) => c.file === "t0/xr.yaml")!;
    expect(change).toMatchObject({ status: "not-rendered", notRenderedAt: "head", objects: [] });
    expect(change.notRendered![0]!.reason).toMatch(/^the file cannot be read at head/);
    expect(report.findings.new.map((f) => `${f.rule} ${f.file}`)).toEqual(["yaml/syntax t0/xr.yaml"]);
    expect(report.changes.some((c) => c.status === "removed")).toBe(false);
  }, 30_000);

  it("what rendering found at base is not fixed when head could not render that source: it is unknown", async () => {
    const { dir } = gitRepo(renderFindingAtBase());
    editFile(dir, "t0/xr.yaml", "metadata:", "metadata:\n  name: [unclosed");
    const result = await runDiff({ root: dir, paths: ["."], base: "main" });
    const { findings } = result.report;
    expect(findings.unknown?.map((f) => f.rule)).toEqual(["render/schema"]);
    expect(findings.fixed.map((f) => f.rule)).not.toContain("render/schema");
    const markdown = formatDiff(result, "markdown");
    expect(markdown).toContain("findings: 1 new, 0 fixed, 1 unknown at head");
    expect(markdown).toContain("**Found at base where head did not render or no longer checks: whether this change fixes them is unknown**");
  }, 30_000);

  it("an XR moved to another file that fails at head leaves what rendering found at base unknown, not fixed", async () => {
    const { dir, git } = gitRepo(renderFindingAtBase());
    git("mv", "t0/xr.yaml", "t0/thing.yaml");
    // At head the one source fails: its Composition names a function the repository does not have.
    editFile(dir, "t0/composition.yaml", "functionRef: {name: function-patch-and-transform}", "functionRef: {name: function-missing}");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.changes.map((c) => `${c.file} ${c.status}`)).toEqual(["t0/thing.yaml not-rendered"]);
    expect(report.findings.unknown?.map((f) => f.rule)).toEqual(["render/schema"]);
    expect(report.findings.fixed.map((f) => f.rule)).not.toContain("render/schema");
  }, 30_000);

  it("a composed resource whose name the pipeline changes keeps its name, as Crossplane keeps an existing one's: updated, not replaced", async () => {
    const files = triples(1);
    files["t0/composition.yaml"] = files["t0/composition.yaml"]!.replace(
      "toFieldPath: data.size}",
      "toFieldPath: data.size}\n              - {type: FromCompositeFieldPath, fromFieldPath: metadata.name, toFieldPath: metadata.name}",
    );
    const { dir } = gitRepo(files);
    editFile(
      dir,
      "t0/composition.yaml",
      "fromFieldPath: metadata.name, toFieldPath: metadata.name",
      "fromFieldPath: metadata.name, toFieldPath: metadata.labels.owner",
    );
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const [object] = report.changes[0]!.objects;
    expect(object).toMatchObject({ kind: "ConfigMap", status: "changed" });
    expect(object!.replacedBy).toBeUndefined();
    expect(object!.fields).toContainEqual({ path: "metadata.labels.owner", after: "thing0" });
    expect(object!.fields!.map((f) => f.path)).not.toContain("metadata.name");
  }, 30_000);

  it("an XR still in the repository whose Composition and XRD are gone at head is not removed: its diff is unknown", async () => {
    const { dir } = gitRepo(triples(1));
    fs.rmSync(path.join(dir, "t0/xrd.yaml"));
    fs.rmSync(path.join(dir, "t0/composition.yaml"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.changes.map((c) => `${c.file} ${c.status} ${c.notRenderedAt}`)).toEqual(["t0/xr.yaml not-rendered head"]);
    expect(report.changes[0]!.objects).toEqual([]);
  }, 30_000);

  it("an XRD removed, a Composition renamed and one whose file cannot be read are said where the definitions' changes are", async () => {
    const { dir } = gitRepo(triples(3));
    fs.rmSync(path.join(dir, "t0/xrd.yaml"));
    editFile(dir, "t1/composition.yaml", "metadata: {name: xthing1s.example.org}", "metadata: {name: xthing1s-v2}");
    editFile(dir, "t2/composition.yaml", "metadata:", "metadata: [unclosed\nx:");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const said = (report.definitions ?? []).map(
      (d) => `${d.kind} ${d.name}: ${d.changes.map((c) => `${c.breaking ? "!" : ""}${c.what.split(":")[0]}`).join("; ")}`,
    );
    expect(said).toEqual(
      expect.arrayContaining([
        "CompositeResourceDefinition xthing0s.example.org: !removed",
        "Composition xthing1s.example.org: !renamed to xthing1s-v2",
        "Composition xthing2s.example.org: its file cannot be read at head",
      ]),
    );
  }, 30_000);

  it("a changed file that only sources which did not render read is named too, unless the report describes all it holds", async () => {
    const files = triples(1);
    files["t0/xr.yaml"] += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {level: low}\n";
    const { dir } = gitRepo(files);
    // At head the Composition names a function the repository does not have: the one source reading both files fails there.
    editFile(dir, "t0/composition.yaml", "functionRef: {name: function-patch-and-transform}", "functionRef: {name: function-missing}");
    editFile(dir, "t0/xr.yaml", "level: low", "level: high");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.changes.find((c) => c.file === "t0/xr.yaml")?.status).not.toBe("changed");
    // The Composition's change is told without rendering; the ConfigMap beside the XR is not.
    expect(report.unrenderedFiles).toEqual(["t0/xr.yaml"]);
  }, 30_000);

  it("a changed object beside a source that renders is named: the source's diff does not show what it does not read", async () => {
    const files = triples(1);
    files["t0/xr.yaml"] += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {level: low}\n";
    const { dir } = gitRepo(files);
    editFile(dir, "t0/xr.yaml", "level: low", "level: high");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.unrenderedFiles).toEqual(["t0/xr.yaml"]);
    // The XR's own change is its own diff: its file is not named for that.
    editFile(dir, "t0/xr.yaml", "level: high", "level: low");
    editFile(dir, "t0/xr.yaml", "size: large", "size: medium");
    const own = (await runDiff({ root: dir, paths: ["."], base: "main" })).report;
    expect(own.changes.map((c) => c.status)).toEqual(["changed"]);
    expect(own.unrenderedFiles).toBeUndefined();
  }, 30_000);

  it("diff.ignore in the config hides fields (of a kind or of every object) and whole kinds from the review; diff.context sets the hunks' context", async () => {
    const { dir, git } = gitRepo({ ...triples(1), ".composition-ci.yaml": "diff:\n  ignore:\n    - {kind: ConfigMap, path: data.size}\n  context: 0\n" });
    const composition = path.join(dir, "t0/composition.yaml");
    const edit = (from: string, to: string) => fs.writeFileSync(composition, fs.readFileSync(composition, "utf8").replace(from, to));
    edit("data: {size: small}", "data: {size: small, tier: gold}");
    fs.writeFileSync(path.join(dir, "t0/xr.yaml"), fs.readFileSync(path.join(dir, "t0/xr.yaml"), "utf8").replace("size: large", "size: medium"));
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    const [object] = report.changes[0]!.objects;
    expect(object!.fields).toEqual([{ path: "data.tier", after: "gold" }]);
    expect(object!.diff).not.toContain("size");
    expect(object!.diff!.split("\n").filter((l) => l.startsWith(" "))).toEqual([]); // no context lines
    git("checkout", "-q", "--", ".");
    edit("data: {size: small}", "data: {size: small, tier: gold}");
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), "diff:\n  ignore:\n    - {kind: ConfigMap}\n");
    const hidden = (await runDiff({ root: dir, paths: ["."], base: "main" })).report;
    expect(hidden.changes[0]!.objects).toEqual([]);
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), "diff:\n  ignore:\n    - {kind: ConfigMap, path: 'data[unclosed'}\n");
    const bad = await runCli(["diff", "--base", "main"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("diff: ignore[0].path:");
  }, 30_000);

  it("--format text prints the same report for a terminal: no markup, diffs indented, nothing cut", async () => {
    const { dir } = gitRepo(triples(1));
    editFile(dir, "t0/composition.yaml", "data: {size: small}", "data: {size: small, tier: gold}");
    const { code, stdout } = await runCli(["diff", "--base", "main", "--format", "text", "--fail-on", "never"], dir);
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toBe("✅ composition-ci: passes (fail-on: never)");
    expect(stdout).toContain("1 source changed · objects +0 ~1 −0");
    expect(stdout).toContain("    +  tier: gold");
    expect(stdout).toContain('~ ConfigMap config: data.tier (none) → "gold"');
    expect(stdout).not.toMatch(/\*\*|<details>|<sub>|```/);
  }, 30_000);

  it("a changed file no source renders from is named, not passed over: its objects apply as written", async () => {
    const { dir } = gitRepo({
      ...triples(2),
      "apps/app.yaml": "apiVersion: cloud.example.org/v1alpha1\nkind: App\nmetadata: {name: shop}\nspec: {tag: 1.0.0}\n",
      "README.md": "# repo\n",
    });
    fs.writeFileSync(path.join(dir, "apps/app.yaml"), "apiVersion: cloud.example.org/v1alpha1\nkind: App\nmetadata: {name: shop}\nspec: {tag: 1.1.0}\n");
    fs.writeFileSync(path.join(dir, "README.md"), "# the repo\n");
    // Alone, such a change is still worth a comment (on-change) and the `changed` output.
    const alone = (await runDiff({ root: dir, paths: ["."], base: "main", failOn: "never" })).report;
    expect(alone.changes).toEqual([]);
    expect(alone.findings.new.length + alone.findings.fixed.length).toBe(0);
    expect(alone.verdict.failed).toBe(false);
    expect(hasChanges(alone)).toBe(true);
    editFile(dir, "t1/composition.yaml", "data: {size: small}", "data: {size: large}");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.unrenderedFiles).toEqual(["apps/app.yaml"]);
    const { stdout } = await runCli(["diff", "--base", "main"], dir);
    expect(stdout).toContain(
      "1 changed file no rendered diff shows (`apps/app.yaml`): its objects apply as written, or its definitions are not in the repository",
    );
  }, 30_000);

  it("a changed Function, the config file, or --all render everything that depends on them", async () => {
    const { dir, git } = gitRepo(triples(5));
    fs.writeFileSync(path.join(dir, "functions.yaml"), fs.readFileSync(path.join(dir, "functions.yaml"), "utf8").replace("v0.8.2", "v0.8.3"));
    const moved = (await runDiff({ root: dir, paths: ["."], base: "main" })).report;
    expect(moved.sources.rendered).toBe(5);
    // The function runs built in: what its new version changes is said, not shown as "unchanged".
    const said = moved.findings.new.filter((f) => f.rule === "render/builtin-version");
    expect(said).toHaveLength(1);
    expect(said[0]!).toMatchObject({ severity: "warning", file: "functions.yaml" });
    expect(said[0]!.message).toContain(
      "moves from v0.8.2 to v0.8.3, and composition-ci renders it with its built-in model of the function: the rendered diff for the 5 sources that use it (",
    );
    expect(said[0]!.message).toContain(", and 2 more)");
    git("checkout", "-q", "--", ".");
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), "rules: {}\n");
    expect((await runDiff({ root: dir, paths: ["."], base: "main" })).report.sources).toEqual({
      total: 5,
      considered: 5,
      rendered: 5,
      notRendered: 0,
      failed: 0,
      all: true,
    });
    fs.rmSync(path.join(dir, ".composition-ci.yaml"));
    expect((await runDiff({ root: dir, paths: ["."], base: "main", all: true })).report.sources.rendered).toBe(5);
    expect((await runDiff({ root: dir, paths: ["."], base: "main" })).report.sources.rendered).toBe(0);
  }, 30_000);

  it("an XRD default change re-renders its XRs; a new untracked XR is an added source", async () => {
    const { dir } = gitRepo(triples(3));
    editFile(dir, "t1/xrd.yaml", "size: {type: string}", "size: {type: string}, zone: {type: string, default: eu}");
    fs.writeFileSync(
      path.join(dir, "t2/xr-2.yaml"),
      "apiVersion: example.org/v1\nkind: XThing2\nmetadata: {name: another, namespace: default}\nspec: {size: tiny}\n",
    );
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.changes.map((c) => `${c.name}:${c.status}`).sort()).toEqual(["another:added", "thing1:changed"]);
    expect(report.changes.find((c) => c.name === "thing1")!.objects[0]!.diff).toContain("+  zone: eu");
  }, 30_000);

  it("an OAM Component change re-renders its ApplicationConfiguration; --head compares two refs; JSON is versioned", async () => {
    const { dir, git, commit } = gitRepo({
      "oam.yaml": `apiVersion: core.oam.dev/v1alpha2
kind: Component
metadata: {name: web}
spec: {workload: {apiVersion: core.oam.dev/v1alpha2, kind: ContainerizedWorkload, spec: {containers: [{name: web, image: "nginx:1"}]}}}
---
apiVersion: core.oam.dev/v1alpha2
kind: ApplicationConfiguration
metadata: {name: app}
spec: {components: [{componentName: web}]}
`,
    });
    fs.writeFileSync(path.join(dir, "oam.yaml"), fs.readFileSync(path.join(dir, "oam.yaml"), "utf8").replace("nginx:1", "nginx:2"));
    const head = commit("head");
    const status = git("status", "--porcelain");
    const before = tmpBaseDirs().length;
    const { code, stdout } = await runCli(["diff", "--base", "HEAD~1", "--head", head, "--format", "json"], dir);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as DiffReport;
    expect(report.version).toBe(1);
    expect(report.head.commit).toBe(head);
    expect(report.changes).toHaveLength(1);
    expect(report.changes[0]).toMatchObject({ kind: "ApplicationConfiguration", name: "app", status: "changed" });
    expect(report.changes[0]!.objects[0]!.diff).toContain("+    - image: nginx:2");
    expect(git("status", "--porcelain")).toBe(status);
    expect(git("worktree", "list").trim().split("\n")).toHaveLength(1);
    expect(tmpBaseDirs().length).toBe(before);
  }, 30_000);

  it("files marked export-ignore are still in the base tree", async () => {
    const files = triples(1);
    files[".gitattributes"] = "t0/** export-ignore\n";
    const { dir } = gitRepo(files);
    editFile(dir, "t0/composition.yaml", "data: {size: small}", "data: {size: small, tier: gold}");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(report.changes.map((c) => `${c.name}:${c.status}`)).toEqual(["thing0:changed"]);
  }, 30_000);

  it("an unknown base ref, or a directory outside git, is a usage error with the reason", async () => {
    const { dir } = gitRepo({ "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" });
    const unknown = await runCli(["diff", "--base", "no-such-branch"], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"no-such-branch" is not a commit in this repository');
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), "cci-nogit-"));
    const outside = await runCli(["diff", "--base", "main"], plain);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("is not inside a git repository");
    expect((await runCli(["diff"], dir)).code).toBe(2);
  });

  it("the examples diff against themselves to nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-examples-"));
    fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
    gitRepo(dir);
    const { code, stdout } = await runCli(["diff", "--base", "main", "--all"], dir);
    expect(code).toBe(0);
    expect(stdout).toContain("### ✅ composition-ci: passes (fail-on: error)\n\n**0 sources changed** · objects +0 ~0 −0 · findings: 0 new, 0 fixed");
    expect(stdout).toContain("No rendered object changed.");
  });
});

describe("diff of a pull request: the head's config cannot widen what runs or connects", () => {
  it("with --trust-base-config, schemaLocations and functions: added at head are not used", async () => {
    let requests = 0;
    const server = (await import("node:http")).createServer((_req, res) => {
      requests++;
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as import("node:net").AddressInfo).port;
    try {
      const { dir } = gitRepo({ "cm.yaml": "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\n" });
      fs.writeFileSync(
        path.join(dir, ".composition-ci.yaml"),
        `schemaLocations: ['http://127.0.0.1:${port}/{{.ResourceKind}}.json']\nfunctions:\n  evil: {command: [sh, -c, 'touch pwned']}\n`,
      );
      const { report } = await runDiff({ root: dir, paths: ["."], base: "main", trustBaseConfig: true });
      expect(requests).toBe(0);
      expect(report.findings.new.map((f) => f.rule)).toEqual([]);
      await runDiff({ root: dir, paths: ["."], base: "main" });
      expect(requests).toBe(1); // without the option (a trusted checkout), the head's config applies
    } finally {
      server.close();
    }
  }, 30_000);

  it("with --trust-base-config, a head that turns off its own rules is still checked by the base's, and told so", async () => {
    const { dir } = gitRepo({ "ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" });
    fs.writeFileSync(path.join(dir, ".composition-ci.yaml"), 'rules:\n  "schema/*": off\nignore: ["bad.yaml"]\n');
    fs.writeFileSync(path.join(dir, "bad.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: many}\n");
    const { report } = await runDiff({ root: dir, paths: ["."], base: "main", trustBaseConfig: true });
    expect(report.verdict.failed).toBe(true);
    expect(report.findings.new.map((f) => `${f.severity} ${f.rule}`)).toEqual(expect.arrayContaining(["warning config/head-not-applied", "error schema/type"]));
    const untrusted = await runDiff({ root: dir, paths: ["."], base: "main" });
    expect(untrusted.report.verdict.failed).toBe(false); // a trusted checkout applies its own config
  }, 30_000);
});
