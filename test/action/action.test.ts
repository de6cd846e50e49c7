import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitRepo, REPO } from "../helpers.js";
import { FakeGitHub, NAME, OWNER, PR } from "../fake-github.js";

/**
 * The Action end to end, the way the runner runs it: `node index.js` (bundled from the current
 * source) with INPUT_* variables, an event payload, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, against
 * a GitHub API served on 127.0.0.1 by this test, on a temporary git repository.
 */

const SECRET = "hunter2-super-secret";
const REPO_SECRET = "s3cret-in-the-repo";

function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

const SECRET_RESOURCE = `          - name: credentials
            base:
              apiVersion: v1
              kind: Secret
              stringData:
                password: ${SECRET}
`;

function bigConfigMap(lines: number): string {
  const data = Array.from({ length: lines }, (_, i) => `                key-${i}: "value number ${i} of a large configuration file"`).join("\n");
  return `          - name: big-config
            base:
              apiVersion: v1
              kind: ConfigMap
              data:
${data}
`;
}

/** A repository with a base commit (the examples) and a head commit that changes them. */
function makeRepo(): { dir: string; base: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-action-"));
  copyDir(path.join(REPO, "examples"), dir);
  fs.writeFileSync(
    path.join(dir, "db-secret.yaml"),
    `apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData:\n  password: ${REPO_SECRET}-old\n`,
  );
  const base = gitRepo(dir, { commit: false }).commit("base");
  const composition = path.join(dir, "crossplane/composition.yaml");
  let text = fs.readFileSync(composition, "utf8");
  text = text.replace("                  - port: 80\n", "                  - port: 81\n");
  text = text.replace("          - name: service\n", `${SECRET_RESOURCE}${bigConfigMap(1500)}          - name: service\n`);
  fs.writeFileSync(composition, text);
  const xrd = path.join(dir, "crossplane/xrd.yaml");
  fs.writeFileSync(xrd, fs.readFileSync(xrd, "utf8").replace("default: 8080", "default: 9090"));
  fs.writeFileSync(
    path.join(dir, "db-secret.yaml"),
    `apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData:\n  password: ${REPO_SECRET}-new\n`,
  );
  const xr = path.join(dir, "crossplane/xr.yaml");
  fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("replicas: 3", "replicas: 0"));
  return { dir, base };
}

function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = fs.readFileSync(file, "utf8");
  const re = /^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out[m[1]!] = m[3]!;
  return out;
}

describe("the Action (node dist/index.js, as the runner runs it)", () => {
  const github = new FakeGitHub();
  let api = "";
  let bundle = "";
  let repo: { dir: string; base: string };

  beforeAll(async () => {
    api = await github.start();
    const out = path.join(REPO, "node_modules/.cache/composition-ci-test-bundle");
    execFileSync("node", [path.join(REPO, "scripts/bundle.mjs"), out], { cwd: REPO });
    bundle = path.join(out, "index.js");
    repo = makeRepo();
    for (let i = 0; i < 120; i++)
      github.comments.push({
        id: i + 1,
        body: i === 5 ? "<!-- composition-ci:default --> someone else's" : `comment ${i}`,
        user: { login: i === 5 ? "mallory" : "alice" },
        html_url: "",
      });
  }, 60_000);

  afterAll(() => github.stop());

  function runAction(extra: Record<string, string> = {}, on: { dir: string; base: string } = repo) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-runner-"));
    const files = {
      event: path.join(work, "event.json"),
      output: path.join(work, "output"),
      summary: path.join(work, "summary.md"),
      reports: path.join(work, "reports"),
    };
    fs.writeFileSync(
      files.event,
      JSON.stringify({ pull_request: { number: PR, base: { sha: on.base, ref: "main" }, head: { sha: "feedface", repo: { full_name: `${OWNER}/${NAME}` } } } }),
    );
    fs.writeFileSync(files.output, "");
    fs.writeFileSync(files.summary, "");
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? os.tmpdir(),
      GITHUB_EVENT_PATH: files.event,
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_API_URL: api,
      GITHUB_SERVER_URL: "https://github.test",
      GITHUB_REPOSITORY: `${OWNER}/${NAME}`,
      RUNNER_TEMP: work,
      "INPUT_GITHUB-TOKEN": "ghs_test_token",
      "INPUT_REPORT-DIR": files.reports,
      INPUT_COMMENT: "on-change",
      ...extra,
    };
    return new Promise<{ code: number; stdout: string; files: typeof files }>((resolve) => {
      const child = spawn("node", [bundle], { cwd: on.dir, env });
      let stdout = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stdout += d));
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, files }));
    });
  }

  const everythingWritten = (run: { stdout: string; files: Record<string, string> }) => {
    // `::add-mask::` lines are how the runner learns what to hide in logs; they are never shown.
    const logs = run.stdout.split("\n").filter((l) => !l.startsWith("::add-mask::"));
    expect(run.stdout).toContain(`::add-mask::${SECRET}`);
    const texts = [...logs, fs.readFileSync(run.files.summary!, "utf8"), fs.readFileSync(run.files.output!, "utf8"), ...github.requests.map((r) => r.body)];
    for (const f of fs.readdirSync(run.files.reports!)) texts.push(fs.readFileSync(path.join(run.files.reports!, f), "utf8"));
    return texts.join("\n");
  };

  it("a change to a source that cannot render: the headline says the diff is incomplete, never '0 sources changed', and the verdict output is incomplete", async () => {
    const xrd =
      "apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xapps.example.org}\nspec:\n  group: example.org\n  names: {kind: XApp, plural: xapps}\n  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {cidr: {type: string}}}}}}}]\n";
    const composition =
      "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: xapps}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XApp}\n  mode: Pipeline\n  pipeline:\n    - step: kcl\n      functionRef: {name: function-kcl}\n      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: 'items = []'}}\n";
    const functions =
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kcl}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.11.0}\n";
    const xr = (cidr: string) => `apiVersion: example.org/v1\nkind: XApp\nmetadata: {name: net, namespace: default}\nspec: {cidr: "${cidr}"}\n`;
    const git = gitRepo({ "xrd.yaml": xrd, "composition.yaml": composition, "functions.yaml": functions, "xr.yaml": xr("10.0.0.0/16") });
    const base = git.git("rev-parse", "HEAD").trim();
    fs.writeFileSync(path.join(git.dir, "xr.yaml"), xr("10.1.0.0/16"));
    const run = await runAction({ INPUT_OFFLINE: "true", INPUT_COMMENT: "never" }, { dir: git.dir, base });
    const summary = fs.readFileSync(run.files.summary, "utf8");
    expect(summary).toContain("### ⚠️ composition-ci: 1 of 1 affected source could not be rendered: the rendered diff is incomplete");
    expect(summary).not.toContain("**0 sources changed**");
    // What is known without rendering: the example's own change.
    expect(summary).toContain("<details><summary>The example as written (changed by this pull request)</summary>");
    expect(summary).toContain("-  cidr: 10.0.0.0/16\n+  cidr: 10.1.0.0/16");
    const outputs = readOutputs(run.files.output);
    expect(outputs.verdict).toBe("incomplete");
    expect(outputs.changed).toBe("true");
  }, 60_000);

  it("first run: one comment with the composed-resource diff, masked secrets, truncated under the limit; outputs set", async () => {
    const run = await runAction();
    expect(run.stdout).toContain("comment created");
    const mine = github.comments.filter((c) => c.user.login === "github-actions[bot]" && c.body.startsWith("<!-- composition-ci:default"));
    expect(mine).toHaveLength(1);
    const body = mine[0]!.body;
    expect(body.startsWith("<!-- composition-ci:default -->")).toBe(true);
    expect(body.length).toBeLessThan(65_536);
    expect(body).toContain("✂️");
    expect(body).toContain("WebApp");
    expect(github.comments[5]!.body).toBe("<!-- composition-ci:default --> someone else's");
    // Two pages to find it, two more after creating it (a run racing this one may have created one too),
    // two more for the parts an earlier, longer report may have left.
    expect(github.requests.filter((r) => r.method === "GET" && r.url.includes("/comments")).length).toBe(6);
    const summary = fs.readFileSync(run.files.summary, "utf8");
    expect(summary).toContain("-    - port: 80");
    expect(summary).toContain("+    - port: 81");
    expect(summary).toContain("+      targetPort: 9090");
    expect(summary).toMatch(/\+  password: <masked sha256:[0-9a-f]{8}>/);
    expect(summary).toContain("schema/");
    const all = everythingWritten(run);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(REPO_SECRET);
    const outputs = readOutputs(run.files.output);
    expect(outputs.changed).toBe("true");
    expect(Number(outputs.errors)).toBeGreaterThan(0);
    expect(outputs["comment-url"]).toBe(mine[0]!.html_url);
    expect(fs.existsSync(outputs["sarif-path"]!)).toBe(true);
    expect(JSON.parse(fs.readFileSync(outputs["sarif-path"]!, "utf8")).version).toBe("2.1.0");
    expect(fs.readFileSync(outputs["report-path"]!, "utf8").length).toBeGreaterThan(65_536);
    expect(run.stdout).toMatch(/::error title=schema\/limit,file=crossplane\/xr\.yaml,line=8/);
    expect(run.code).toBe(1);
  }, 60_000);

  it("second run updates the same comment; never a second one", async () => {
    const before = github.comments.length;
    const run = await runAction();
    expect(run.stdout).toContain("comment updated");
    expect(github.comments.length).toBe(before);
    // The log: a banner, the run in a group, a verdict line last.
    expect(run.stdout).toMatch(/^composition-ci \S+ · mode pr · paths \.$/m);
    expect(run.stdout).toContain("::group::composition-ci pr");
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe("composition-ci pr: fails (the job summary has the report)");
    expect(github.requests.some((r) => r.method === "PATCH")).toBe(true);
  }, 60_000);

  it("a read-only token (a fork's pull request) does not fail on the 403: summary and reports are written", async () => {
    github.forbidWrites = true;
    try {
      const run = await runAction({ "INPUT_FAIL-ON": "never", "INPUT_COMMENT-KEY": "fork" });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("workflow_run");
      expect(fs.readFileSync(run.files.summary, "utf8")).toContain("composition-ci");
      expect(readOutputs(run.files.output)["comment-url"]).toBe("");
    } finally {
      github.forbidWrites = false;
    }
  }, 60_000);

  it("mode: validate checks the tree: summary, annotations, SARIF, outputs, no comment", async () => {
    const posts = github.requests.length;
    const run = await runAction({ INPUT_MODE: "validate" });
    expect(run.code).toBe(1);
    expect(github.requests.length).toBe(posts);
    const outputs = readOutputs(run.files.output);
    expect(Number(outputs.errors)).toBeGreaterThan(0);
    expect(outputs.changed).toBe("false");
    expect(fs.readFileSync(run.files.summary, "utf8")).toContain("schema/limit");
    // As check does, it runs the repository's tests: the head's replicas: 0 fails the example's CompositionTest.
    expect(fs.readFileSync(run.files.summary, "utf8")).toContain("test/failed");
    expect(run.stdout).toMatch(/::error title=schema\/limit,file=crossplane\/xr\.yaml,line=8/);
    expect(everythingWritten(run)).not.toContain(REPO_SECRET);
  }, 60_000);

  it("mode: drift keeps one drift issue: created with the label, secrets masked; fail-on-drift fails the step", async () => {
    const run = await runAction({ INPUT_MODE: "drift", INPUT_SNAPSHOT: "rendered-missing", "INPUT_FAIL-ON-DRIFT": "true" });
    expect(run.stdout).toContain("drift issue: created");
    expect(run.code).toBe(1);
    expect(github.issues).toHaveLength(1);
    expect(github.issues[0]!.labels).toEqual([{ name: "composition-ci-drift" }]);
    expect(github.issues[0]!.body).toContain("source-added");
    const outputs = readOutputs(run.files.output);
    expect(Number(outputs["drift-items"])).toBeGreaterThan(0);
    expect(outputs["comment-url"]).toBe(github.issues[0]!.html_url);
    const again = await runAction({ INPUT_MODE: "drift", INPUT_SNAPSHOT: "rendered-missing" });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("drift issue: updated");
    expect(github.issues).toHaveLength(1);
    expect(everythingWritten(again)).not.toContain(SECRET);
    const requests = github.requests.length;
    const quiet = await runAction({ INPUT_MODE: "drift", INPUT_SNAPSHOT: "rendered-missing", INPUT_COMMENT: "never" });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain("the drift issue is not touched");
    expect(github.requests.length).toBe(requests);
  }, 60_000);

  it("pr mode with a committed drift snapshot: a change that makes it stale says so, with the command that refreshes it", async () => {
    const { triples } = await import("../fixtures/triples.js");
    const { runCli } = await import("../helpers.js");
    const files = triples(1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-action-snap-"));
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), text);
    }
    expect((await runCli(["drift", ".", "--snapshot", "drift-snapshot", "--update-snapshot"], dir)).code).toBe(0);
    const git = gitRepo(dir, { commit: false });
    const base = git.commit("base with its snapshot");
    fs.writeFileSync(path.join(dir, "t0/composition.yaml"), files["t0/composition.yaml"]!.replace("data: {size: small}", "data: {size: small, tier: gold}"));
    const run = await runAction(
      { INPUT_SNAPSHOT: "drift-snapshot", "INPUT_COMMENT-KEY": "snapshot", INPUT_COMMENT: "always", "INPUT_FAIL-ON": "never" },
      { dir, base },
    );
    const comment = github.comments.find((c) => c.body.startsWith("<!-- composition-ci:snapshot -->"))!;
    expect(comment.body).toContain("### 📸 The drift snapshot in `drift-snapshot` is stale");
    expect(comment.body).toContain("`composition-ci drift --snapshot drift-snapshot --update-snapshot`");
    expect(run.stdout).toContain("::warning::the drift snapshot in drift-snapshot is stale for 1 source");
  }, 90_000);

  it("the comment's summary: a field change and a deletion seen in two XRs, each listed once, with what the Composition and XRD changes mean", async () => {
    const xrd = (extra = "") =>
      `apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: xnets.example.org}\nspec:\n  group: example.org\n  scope: Namespaced\n  names: {kind: XNet, plural: xnets}\n  versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {cidr: {type: string}${extra}}}}}}}]\n`;
    const composition = (cidr: string, gateway: boolean) => `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: xnets}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XNet}
  mode: Pipeline
  pipeline:
    - step: pt
      functionRef: {name: function-patch-and-transform}
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: vpc
            base: {apiVersion: v1, kind: ConfigMap, data: {cidr: "${cidr}"}}
${gateway ? "          - name: gateway\n            base: {apiVersion: v1, kind: ConfigMap, data: {role: gateway}}\n" : ""}`;
    const functions =
      "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n";
    const xr = (name: string) => `apiVersion: example.org/v1\nkind: XNet\nmetadata: {name: ${name}, namespace: default}\nspec: {cidr: a}\n`;
    const git = gitRepo({
      "xrd.yaml": xrd(),
      "composition.yaml": composition("10.0.0.0/16", true),
      "functions.yaml": functions,
      "a.yaml": xr("a"),
      "b.yaml": xr("b"),
    });
    const base = git.git("rev-parse", "HEAD").trim();
    fs.writeFileSync(path.join(git.dir, "composition.yaml"), composition("10.1.0.0/16", false));
    fs.writeFileSync(path.join(git.dir, "xrd.yaml"), xrd(", zone: {type: string}"));
    await runAction({ "INPUT_COMMENT-KEY": "summary", INPUT_COMMENT: "always", "INPUT_FAIL-ON": "never" }, { dir: git.dir, base });
    const body = github.comments.find((c) => c.body.startsWith("<!-- composition-ci:summary -->"))!.body;
    expect(body).toContain('~ ConfigMap vpc: data.cidr "10.0.0.0/16" → "10.1.0.0/16"   (in 2 XRs)');
    expect(body).toContain("- ConfigMap gateway   (deleted in 2 XRs)");
    expect(body.match(/ConfigMap gateway/g)).toHaveLength(1);
    expect(body).toContain("- `ConfigMap/gateway` is **removed** in 2 sources");
    expect(body).toContain("- Composition `xnets` (`composition.yaml`)\n  - ⚠️ **breaking**: `step pt: resource gateway` removed");
    expect(body).toContain("- CompositeResourceDefinition `xnets.example.org` (`xrd.yaml`)\n  - `spec.zone` added");
  }, 90_000);

  it("labels: true labels the pull request with what merging it does, one label at a time", async () => {
    const { triples } = await import("../fixtures/triples.js");
    const files = triples(1);
    const git = gitRepo(files);
    const base = git.git("rev-parse", "HEAD").trim();
    const file = path.join(git.dir, "t0/composition.yaml");
    const run = () =>
      runAction({ INPUT_LABELS: "true", "INPUT_COMMENT-KEY": "labels", INPUT_COMMENT: "never", "INPUT_FAIL-ON": "never" }, { dir: git.dir, base });
    github.prLabels = ["needs-review"];
    fs.writeFileSync(file, files["t0/composition.yaml"]!.replace("data: {size: small}", "data: {size: small, tier: gold}"));
    await run();
    expect(github.prLabels).toEqual(["needs-review", "composition-ci:labels/changes"]);
    // The composed resource takes another name: the old one is deleted when this merges.
    fs.writeFileSync(file, files["t0/composition.yaml"]!.replace("- name: config", "- name: settings"));
    await run();
    expect(github.prLabels).toEqual(["needs-review", "composition-ci:labels/deletes"]);
    fs.writeFileSync(file, files["t0/composition.yaml"]!);
    await run();
    expect(github.prLabels).toEqual(["needs-review", "composition-ci:labels/no-changes"]);
  }, 90_000);

  it("a report past the comment limit goes on in numbered comments; a later, shorter report removes the parts it no longer needs", async () => {
    const { triples } = await import("../fixtures/triples.js");
    const files = triples(6);
    const git = gitRepo(files);
    const base = git.git("rev-parse", "HEAD").trim();
    // Each source's change is its own (~15 kB of diff): together past one comment, each block within one.
    const grow = (i: number, lines: number) => {
      const file = path.join(git.dir, `t${i}/composition.yaml`);
      const data = Array.from({ length: lines }, (_, k) => `k${k}: "source ${i} value ${k} of a long configuration"`).join(", ");
      fs.writeFileSync(file, files[`t${i}/composition.yaml`]!.replace("data: {size: small}", `data: {size: small, ${data}}`));
    };
    for (let i = 0; i < 6; i++) grow(i, 250);
    const key = "parts";
    const mine = () => github.comments.filter((c) => c.user.login === "github-actions[bot]" && c.body.startsWith(`<!-- composition-ci:${key}`));
    await runAction({ "INPUT_COMMENT-KEY": key, "INPUT_FAIL-ON": "never" }, { dir: git.dir, base });
    const first = mine();
    expect(first.length).toBeGreaterThan(1);
    expect(first[0]!.body.split("\n")[0]).toBe(`<!-- composition-ci:${key} -->`);
    expect(first[0]!.body).toContain(`(part 1/${first.length}).`);
    expect(first[1]!.body.split("\n")[0]).toBe(`<!-- composition-ci:${key}:part-2 -->`);
    expect(first[1]!.body).toContain(`composition-ci report (${key}), part 2/${first.length}`);
    for (const c of first) expect(c.body.length).toBeLessThan(65_536);
    // Nothing was dropped: every source's diff is in one of the parts, none is cut.
    const all = first.map((c) => c.body).join("\n");
    for (let i = 0; i < 6; i++) expect(all).toContain(`source ${i} value 249`);
    expect(all).not.toContain("✂️");
    // A shorter report: one comment again, the parts deleted.
    for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(git.dir, `t${i}/composition.yaml`), files[`t${i}/composition.yaml`]!);
    grow(0, 5);
    await runAction({ "INPUT_COMMENT-KEY": key, "INPUT_FAIL-ON": "never" }, { dir: git.dir, base });
    expect(mine().map((c) => c.body.split("\n")[0])).toEqual([`<!-- composition-ci:${key} -->`]);
    expect(mine()[0]!.id).toBe(first[0]!.id);
  }, 90_000);
});

describe("the Action when the GitHub API misbehaves: outputs and the summary are always written", () => {
  const github = new FakeGitHub();
  let api = "";
  let bundle = "";
  let repo: { dir: string; base: string };
  const comments = `/repos/${OWNER}/${NAME}/issues/${PR}/comments`;

  beforeAll(async () => {
    api = await github.start();
    const out = path.join(REPO, "node_modules/.cache/composition-ci-test-bundle");
    if (!fs.existsSync(path.join(out, "index.js"))) execFileSync("node", [path.join(REPO, "scripts/bundle.mjs"), out], { cwd: REPO });
    bundle = path.join(out, "index.js");
    repo = makeRepo();
  }, 60_000);

  afterAll(() => github.stop());

  function run(extra: Record<string, string> = {}) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-runner-"));
    const files = { event: path.join(work, "event.json"), output: path.join(work, "output"), summary: path.join(work, "summary.md") };
    fs.writeFileSync(files.event, JSON.stringify({ pull_request: { number: PR, base: { sha: repo.base, ref: "main" }, head: { sha: "feedface" } } }));
    for (const f of [files.output, files.summary]) fs.writeFileSync(f, "");
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? os.tmpdir(),
      GITHUB_EVENT_PATH: files.event,
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_API_URL: api,
      GITHUB_REPOSITORY: `${OWNER}/${NAME}`,
      RUNNER_TEMP: work,
      COMPOSITION_CI_GITHUB_RETRY_MS: "5",
      COMPOSITION_CI_GITHUB_TIMEOUT_MS: "1500",
      "INPUT_GITHUB-TOKEN": "ghs_test_token",
      "INPUT_FAIL-ON": "never",
      INPUT_COMMENT: "always",
      ...extra,
    };
    return new Promise<{ code: number; stdout: string; outputs: Record<string, string>; summary: string }>((resolve) => {
      const child = spawn("node", [bundle], { cwd: repo.dir, env });
      let stdout = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stdout += d));
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, outputs: readOutputs(files.output), summary: fs.readFileSync(files.summary, "utf8") }));
    });
  }

  const mine = () => github.comments.filter((c) => c.user.login === "github-actions[bot]");

  it("a 500 on listing and a 502 on creating are retried", async () => {
    github.faults.push(
      { method: "GET", path: new RegExp(comments), status: 500, times: 1 },
      { method: "POST", path: new RegExp(comments), status: 502, times: 1 },
    );
    const before = github.requests.length;
    const r = await run();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("comment created");
    expect(mine()).toHaveLength(1);
    expect(r.outputs["comment-url"]).toBe(mine()[0]!.html_url);
    // what the API saw: the 500'd listing and its retry, then the 502'd creation and its retry
    const calls = github.requests
      .slice(before)
      .filter((q) => q.url.split("?")[0] === comments)
      .map((q) => q.method);
    expect(calls.slice(0, 4)).toEqual(["GET", "GET", "POST", "POST"]);
    expect(calls.filter((m) => m === "POST")).toHaveLength(2);
  }, 60_000);

  it("a deleted sticky comment (404 on update) is created again", async () => {
    github.faults.push({ method: "PATCH", path: /\/issues\/comments\/\d+$/, status: 404, message: "Not Found", times: 1 });
    const r = await run();
    expect(r.stdout).toContain("comment created");
    expect(r.code).toBe(0);
  }, 60_000);

  it("two runs that both created a comment leave one: the oldest", async () => {
    github.comments = [
      { id: 1, body: "<!-- composition-ci:race -->\nfirst run's", user: { login: "github-actions[bot]" }, html_url: "https://github.test/c1" },
    ];
    // The other run's comment lands between this run's listing (which misses it) and its creating one.
    github.faults.push({ method: "GET", path: new RegExp(comments), status: 200, body: [], times: 1 });
    const r = await run({ "INPUT_COMMENT-KEY": "race" });
    expect(r.code).toBe(0);
    const left = github.comments.filter((c) => c.body.startsWith("<!-- composition-ci:race -->"));
    expect(left.map((c) => c.id)).toEqual([1]);
    expect(left[0]!.body).not.toContain("first run's");
    expect(r.outputs["comment-url"]).toBe("https://github.test/c1");
  }, 60_000);

  it("a secondary rate limit is said as such, not as a read-only token; outputs are set", async () => {
    github.faults.push({
      method: "GET",
      path: new RegExp(comments),
      status: 403,
      headers: { "retry-after": "1" },
      message: "You have exceeded a secondary rate limit",
      times: 10,
    });
    const r = await run({ "INPUT_COMMENT-KEY": "limited" });
    github.faults = [];
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("read-only token");
    expect(
      r.stdout,
      r.stdout
        .split("\n")
        .filter((l) => !l.startsWith("::add-mask"))
        .join("\n")
        .slice(0, 3000),
    ).toMatch(/comment could not be posted .*rate limit/);
    expect(r.outputs.errors).toBeDefined();
    expect(r.summary).toContain("composition-ci");
  }, 60_000);

  it("a rate limit that lifts in an hour (or retry-after: 600) is not waited for: the summary says the comment was not posted, the step ends on its verdict", async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    github.faults.push(
      {
        method: "GET",
        path: new RegExp(comments),
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
        message: "API rate limit exceeded",
        times: 3,
      },
      {
        method: "POST",
        path: new RegExp(comments),
        status: 403,
        headers: { "retry-after": "600" },
        message: "You have exceeded a secondary rate limit",
        times: 3,
      },
    );
    const started = Date.now();
    // No COMPOSITION_CI_GITHUB_MAX_WAIT_MS: the default bound (60 s) is what decides not to wait.
    const r = await run({ "INPUT_COMMENT-KEY": "hour" });
    const second = await run({ "INPUT_COMMENT-KEY": "hour" });
    github.faults = [];
    expect(Date.now() - started).toBeLessThan(50_000);
    for (const x of [r, second]) {
      expect(x.code).toBe(0);
      expect(x.outputs.verdict).toBe("pass");
      expect(x.outputs["comment-url"]).toBe("");
      expect(x.summary).toContain("composition-ci");
      expect(x.summary).toMatch(/The pull request comment could not be posted \(GitHub's rate limit/);
    }
    expect(r.stdout).toMatch(/lifts in 36\d\ds, more than this run waits/);
  }, 120_000);

  it("an API that never answers times out; the step still reports, and passes on fail-on: never", async () => {
    github.faults.push({ method: "GET", path: /./, hang: true, times: 100 });
    const started = Date.now();
    // Each request gives up after 500 ms here (1.5 s in the other tests): the retries of several requests add up.
    const r = await run({ "INPUT_COMMENT-KEY": "hang", COMPOSITION_CI_GITHUB_TIMEOUT_MS: "500" });
    github.faults = [];
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("comment could not be posted");
    expect(r.outputs["comment-url"]).toBe("");
    expect(r.outputs.verdict).toBe("pass");
    expect(r.summary).toContain("composition-ci");
  }, 60_000);
});
