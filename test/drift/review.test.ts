import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { renderAndValidate } from "../../src/run/check.js";
import { loadConfig } from "../../src/config/config.js";
import { updateSnapshotCommand } from "../../src/drift/command.js";
import type { DriftReport } from "../../src/drift/report.js";
import { snapshotState } from "../../src/drift/snapshot.js";
import { staleSnapshot, staleSnapshotMessage } from "../../src/drift/stale.js";
import { diffSources } from "../../src/rendered/diff.js";
import { formatDriftMarkdown } from "../../src/report/formats/markdown.js";
import type { GitHubClient } from "../../src/report/github/client.js";
import { syncDriftIssue } from "../../src/report/github/drift-issue.js";
import { maskerFor } from "../../src/rendered/secrets.js";
import { validateRepo } from "../../src/run/validate.js";
import { FakeGitHub, NAME, OWNER, quietOctokit } from "../fake-github.js";
import { REPO, runCli } from "../helpers.js";

/** A copy of examples/ (two sources: WebApp storefront, ApplicationConfiguration storefront). */
function examples(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-drift-review-"));
  fs.cpSync(path.join(REPO, "examples"), dir, { recursive: true });
  return dir;
}

const cli = (cwd: string, ...argv: string[]) => runCli(argv, cwd);
const json = async (cwd: string, ...argv: string[]) => JSON.parse((await cli(cwd, ...argv, "--format", "json")).stdout) as DriftReport;

function edit(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  fs.writeFileSync(file, text.replace(from, to));
}

const report = (baselines: DriftReport["baselines"], items = 2): DriftReport => ({
  version: 1,
  tool: { name: "composition-ci", version: "test" },
  baselines,
  sources: 2,
  states: { rendered: 2, notRendered: 0, failed: 0 },
  items: Array.from({ length: items }, (_, i) => ({
    id: `i${i}`,
    kind: "object-changed" as const,
    source: "WebApp a (a.yaml)",
    object: `Service/s${i}`,
    detail: "--- snapshot/x\n+++ render/x",
    state: "new" as const,
  })),
  fingerprint: `f${items}`,
});

describe("the first night: no previous report is claimed", () => {
  it('a previous report named but not there yet: "first report", nothing called new, no "since"', () => {
    const md = formatDriftMarkdown(report({ snapshot: "rendered", cluster: false, previousMissing: "drift.json" }), { maxChars: 65_000 });
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 2 items");
    expect(md).toContain("; first report: nothing to compare with yet (no earlier `drift.json`).</sub>");
    expect(md).not.toContain("since");
    expect(md).not.toContain("new");
    expect(md).not.toContain("🆕");
  });

  it("no previous report given: nothing said of one, nothing called new", () => {
    const md = formatDriftMarkdown(report({ snapshot: "rendered", cluster: false }), { maxChars: 65_000 });
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 2 items");
    expect(md).toContain("<sub>2 of 2 sources rendered; compared with the snapshot in `rendered`.</sub>");
    expect(md).not.toMatch(/new|since|🆕|first report/);
  });

  it("a previous report that was read: new and persisting, since it", () => {
    const r = report({ snapshot: "rendered", cluster: false, previous: "drift.json" });
    r.items[1]!.state = "persisting";
    const md = formatDriftMarkdown(r, { maxChars: 65_000 });
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 2 items (1 new)");
    expect(md).toContain("; new or persisting since `drift.json`.</sub>");
    expect(md).toContain("- 🆕 **object-changed** `Service/s0`");
    expect(md).toContain("- **object-changed** `Service/s1`");
    expect(md).not.toContain("first report");
  });

  it("the CLI: --previous naming a file not there yet is the first report; once it is there, items are new or persisting since it", async () => {
    const dir = examples();
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    edit(path.join(dir, "crossplane/composition.yaml"), "                  - port: 80\n", "                  - port: 81\n");
    const first = await cli(dir, "drift", "--snapshot", "rendered", "--previous", "previous/drift.json", "--format", "json");
    expect(first.code).toBe(0);
    const firstReport = JSON.parse(first.stdout) as DriftReport;
    expect(firstReport.baselines).toEqual({ snapshot: "rendered", cluster: false, previousMissing: "drift.json" });
    const md = (await cli(dir, "drift", "--snapshot", "rendered", "--previous", "previous/drift.json")).stdout;
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 1 item");
    expect(md).toContain("first report: nothing to compare with yet (no earlier `drift.json`)");
    expect(md).not.toMatch(/since|🆕|\bnew\b/);

    fs.mkdirSync(path.join(dir, "previous"));
    fs.writeFileSync(path.join(dir, "previous/drift.json"), first.stdout);
    const second = await json(dir, "drift", "--snapshot", "rendered", "--previous", "previous/drift.json");
    expect(second.baselines).toEqual({ snapshot: "rendered", cluster: false, previous: "drift.json" });
    expect(second.items.map((i) => i.state)).toEqual(["persisting"]);
    const md2 = (await cli(dir, "drift", "--snapshot", "rendered", "--previous", "previous/drift.json")).stdout;
    expect(md2.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 1 item (0 new)");
    expect(md2).toContain("new or persisting since `drift.json`");
  }, 30_000);

  describe("the drift issue's comment", () => {
    const github = new FakeGitHub();
    let octokit: GitHubClient;
    beforeAll(async () => {
      octokit = quietOctokit(await github.start());
    });
    afterAll(() => github.stop());

    it("counts new items only against a previous report that was read", async () => {
      const sync = (r: DriftReport) =>
        syncDriftIssue({ octokit, owner: OWNER, repo: NAME, key: "first-night", report: r, markdown: formatDriftMarkdown(r, { maxChars: 65_000 }) });
      expect((await sync(report({ snapshot: "rendered", cluster: false, previousMissing: "drift.json" }, 1))).action).toBe("created");
      const issue = github.issues.at(-1)!;
      expect(issue.body).toContain("first report: nothing to compare with yet");
      expect(issue.body).not.toContain("since");
      await sync(report({ snapshot: "rendered", cluster: false, previousMissing: "drift.json" }, 2));
      expect(issue.comments.at(-1)).toBe("The drift changed: now 2 items.");
      await sync(report({ snapshot: "rendered", cluster: false, previous: "drift.json" }, 3));
      expect(issue.comments.at(-1)).toBe("The drift changed: now 3 items (3 new).");
    });
  });
});

describe("a snapshot directory that is not there is named with the command that creates it", () => {
  it("the CLI reports it (exit 0; 1 with --fail-on-drift), says so on stderr and in the report, every source added", async () => {
    const dir = examples();
    const r = await cli(dir, "drift", "--snapshot", "rendered");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "note: the snapshot directory rendered does not exist yet, so every source counts as added; create it with `composition-ci drift --snapshot rendered --update-snapshot` and commit it\n",
    );
    expect(r.stdout.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 2 items (no snapshot in `rendered` yet)");
    expect(r.stdout).toContain("compared with no snapshot (`rendered` does not exist yet)");
    expect(r.stdout).toContain(
      "> 📸 The snapshot directory `rendered` does not exist yet, so every source counts as added. Create it with `composition-ci drift --snapshot rendered --update-snapshot`, review it and commit it: the next run compares with it.",
    );
    // Said once: not also as "refresh the snapshot".
    expect(r.stdout.match(/--update-snapshot/g)).toHaveLength(1);
    const report = await json(dir, "drift", "--snapshot", "rendered");
    expect(report.baselines.snapshotMissing).toBe("no-directory");
    expect(report.items.map((i) => i.kind)).toEqual(["source-added", "source-added"]);
    expect((await cli(dir, "drift", "--snapshot", "rendered", "--fail-on-drift")).code).toBe(1);
    expect(fs.existsSync(path.join(dir, "rendered"))).toBe(false);
  }, 30_000);

  it("the command names the paths (and --root) of the run; the update says to commit; then it is compared with", async () => {
    const dir = examples();
    const r = await cli(dir, "drift", "crossplane", "--snapshot", "snap shots/x");
    expect(r.stderr).toContain("create it with `composition-ci drift crossplane --snapshot 'snap shots/x' --update-snapshot` and commit it");
    expect(r.stdout).toContain("Create it with `composition-ci drift crossplane --snapshot 'snap shots/x' --update-snapshot`");
    const above = path.dirname(dir);
    const rooted = await cli(above, "drift", "crossplane", "--root", path.basename(dir), "--snapshot", path.join(path.basename(dir), "snap"));
    expect(rooted.stderr).toContain(`\`composition-ci drift crossplane --snapshot ${path.basename(dir)}/snap --update-snapshot --root ${path.basename(dir)}\``);

    const update = await cli(dir, "drift", "crossplane", "--snapshot", "snap shots/x", "--update-snapshot");
    expect(update.code).toBe(0);
    expect(update.stderr).toContain("next: review and commit snap shots/x");
    expect(update.stderr).not.toContain("note:");
    const after = await cli(dir, "drift", "crossplane", "--snapshot", "snap shots/x");
    expect(after.stderr).toBe("");
    expect(after.stdout.split("\n")[0]).toBe("### ✅ composition-ci drift: none");
  }, 30_000);

  it("a directory with no snapshot file in it is said to hold none; a file where the directory should be is a usage error", async () => {
    const dir = examples();
    fs.mkdirSync(path.join(dir, "rendered"));
    fs.writeFileSync(path.join(dir, "rendered/.gitkeep"), "");
    const r = await cli(dir, "drift", "--snapshot", "rendered");
    expect(r.stderr).toContain("the snapshot directory rendered holds no snapshot file yet");
    expect(r.stdout).toContain("The snapshot directory `rendered` holds no snapshot file yet");
    fs.writeFileSync(path.join(dir, "snap"), "not a directory\n");
    const file = await cli(dir, "drift", "--snapshot", "snap");
    expect(file.code).toBe(2);
    expect(file.stderr).toBe("composition-ci: --snapshot snap: not a directory (a snapshot is a directory of one file per source)\n");
    expect(snapshotState(path.join(dir, "snap"))).toBe("not-a-directory");
    expect(snapshotState(path.join(dir, "nope"))).toBe("no-directory");
    expect(snapshotState(path.join(dir, "rendered"))).toBe("empty");
  }, 30_000);

  it("with the cluster too, the title still says the snapshot is missing", () => {
    const md = formatDriftMarkdown(report({ snapshot: "rendered/", snapshotMissing: "no-directory", cluster: true }, 0), { maxChars: 65_000 });
    expect(md.split("\n")[0]).toBe("### ⚠️ composition-ci drift: no snapshot in `rendered/` yet");
    expect(md).toContain("compared with no snapshot (`rendered/` does not exist yet) and the cluster");
    expect(md).toContain("`composition-ci drift --snapshot rendered/ --update-snapshot`");
  });

  it("the command quotes what a shell would split or expand", () => {
    expect(updateSnapshotCommand("rendered/")).toBe("composition-ci drift --snapshot rendered/ --update-snapshot");
    expect(updateSnapshotCommand("it's here", { paths: [".", "a b", "$HOME"] })).toBe(
      "composition-ci drift 'a b' '$HOME' --snapshot 'it'\\''s here' --update-snapshot",
    );
  });

  describe("the Action's drift mode (in process)", () => {
    let dir = "";
    let out = "";
    afterEach(() => {
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    });

    it("warns with the command, and the summary and report files (the issue's body) name the directory and the command", async () => {
      dir = examples();
      const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "cci-drift-action-"));
      const summary = path.join(reportDir, "summary.md");
      const outputs = path.join(reportDir, "outputs.txt");
      fs.writeFileSync(summary, "");
      fs.writeFileSync(outputs, "");
      for (const [k, v] of Object.entries({
        INPUT_MODE: "drift",
        INPUT_PATHS: "crossplane",
        INPUT_SNAPSHOT: "rendered/",
        INPUT_PREVIOUS: "previous/drift.json",
        INPUT_COMMENT: "never",
        "INPUT_REPORT-DIR": reportDir,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_OUTPUT: outputs,
      }))
        vi.stubEnv(k, v);
      vi.spyOn(process, "cwd").mockReturnValue(dir);
      out = "";
      vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
        out += String(chunk);
        return true;
      });
      const { readInputs } = await import("../../src/action/inputs.js");
      const { driftMode } = await import("../../src/action/drift.js");
      await driftMode(readInputs());
      vi.restoreAllMocks();
      const command = "composition-ci drift crossplane --snapshot rendered/ --update-snapshot";
      expect(out).toContain(`::warning::snapshot: rendered/ does not exist yet, so every source counts as added; create it with \`${command}\` and commit it`);
      expect(out).toContain("previous: previous/drift.json does not exist yet (the first night): this is the first report, nothing to compare with");
      const md = fs.readFileSync(path.join(reportDir, "drift.md"), "utf8");
      for (const text of [md, fs.readFileSync(summary, "utf8")]) {
        expect(text.split("\n")[0]).toBe("### ⚠️ composition-ci drift: 1 item (no snapshot in `rendered/` yet)");
        expect(text).toContain(`Create it with \`${command}\`, review it and commit it`);
        expect(text).toContain("first report: nothing to compare with yet (no earlier `drift.json`)");
        expect(text).not.toMatch(/since|🆕/);
      }
      const written = JSON.parse(fs.readFileSync(path.join(reportDir, "drift.json"), "utf8")) as DriftReport;
      expect(written.baselines).toEqual({ snapshot: "rendered/", snapshotMissing: "no-directory", cluster: false, previousMissing: "drift.json" });
      expect(written.paths).toEqual(["crossplane"]);
    }, 30_000);
  });
});

/** What a tree renders (as the diff's head side does), and its masker. */
async function renderTree(dir: string, ignore: string[] = ["rendered/**"]) {
  const loaded = loadConfig(dir);
  const config = { ...loaded, ignore: [...loaded.ignore, ...ignore] };
  const validated = await validateRepo({ root: dir, paths: ["."], config });
  const { sources } = await renderAndValidate(validated, dir, { allowExec: false, timeoutMs: 60_000 });
  return { sources, masker: maskerFor(validated.manifests, sources, config.secretFields) };
}

describe("staleSnapshot: which snapshot files a pull request makes stale", () => {
  /**
   * A repository with its snapshot committed (in rendered/), then what happened on the default
   * branch since (`before`), its render (the base), and the pull request's change (the head).
   */
  async function pullRequest(change: (dir: string) => unknown, before?: (dir: string) => void) {
    const dir = examples();
    await cli(dir, "drift", "--snapshot", "rendered", "--update-snapshot");
    before?.(dir);
    const base = await renderTree(dir);
    await change(dir);
    const head = await renderTree(dir);
    const changes = diffSources(base.sources, head.sources, head.masker);
    const stale = staleSnapshot(path.join(dir, "rendered"), head.sources, head.masker, changes);
    return { dir, head, changes, stale };
  }
  const port81 = (dir: string) => edit(path.join(dir, "crossplane/composition.yaml"), "                  - port: 80\n", "                  - port: 81\n");

  it("a change that renders nothing differently makes nothing stale, and says nothing", async () => {
    const { stale } = await pullRequest((dir) => edit(path.join(dir, "crossplane/xr.yaml"), "apiVersion:", "# a comment\napiVersion:"));
    expect(stale).toEqual({ state: "present", stale: [], unknown: [] });
    expect(staleSnapshotMessage(stale, "rendered/")).toEqual({ markdown: "" });
  }, 30_000);

  it("a changed Composition: its XR's snapshot file is stale, object by object, as the nightly report would show it", async () => {
    const { dir, stale } = await pullRequest(port81);
    expect(stale.state).toBe("present");
    expect(stale.unknown).toEqual([]);
    expect(stale.stale.map((s) => [s.source, s.file, s.items.map((i) => `${i.kind} ${i.object}`)])).toEqual([
      ["WebApp storefront (crossplane/xr.yaml)", "webapp-shop-storefront.yaml", ["object-changed Service/service"]],
    ]);
    expect(stale.stale[0]!.items[0]!.detail).toContain("-    - port: 80\n+    - port: 81");
    // The same as the nightly drift run, once merged.
    const nightly = await json(dir, "drift", "--snapshot", "rendered");
    expect(nightly.items.map((i) => `${i.source} ${i.kind} ${i.object}`)).toEqual(
      stale.stale.flatMap((s) => s.items.map((i) => `${s.source} ${i.kind} ${i.object}`)),
    );

    const message = staleSnapshotMessage(stale, "rendered/", ["."]);
    expect(message.markdown).toBe(
      [
        "### 📸 The drift snapshot in `rendered/` is stale",
        "",
        "This pull request changes what 1 source renders, and the committed snapshot still holds what it rendered before: once merged, the nightly drift report would show the change as drift.",
        "",
        "- `WebApp storefront (crossplane/xr.yaml)` (`webapp-shop-storefront.yaml`): `Service/service` changed",
        "",
        "If the change is intended, refresh the snapshot in this pull request: `composition-ci drift --snapshot rendered/ --update-snapshot`, and commit it.",
        "",
      ].join("\n"),
    );
    expect(message.warning).toBe(
      "the drift snapshot in rendered/ is stale for 1 source this pull request changes (WebApp storefront (crossplane/xr.yaml)): if the change is intended, run `composition-ci drift --snapshot rendered/ --update-snapshot` and commit it",
    );
  }, 30_000);

  it("a pull request that refreshes the snapshot too leaves nothing stale", async () => {
    const { changes, stale } = await pullRequest(async (d) => {
      port81(d);
      await cli(d, "drift", "--snapshot", "rendered", "--update-snapshot");
    });
    expect(changes.map((c) => c.status).sort()).toEqual(["changed", "unchanged"]);
    expect(stale).toEqual({ state: "present", stale: [], unknown: [] });
  }, 30_000);

  it("drift already in the snapshot is not the pull request's: only the sources it changes are looked at", async () => {
    // Since the snapshot, the OAM app drifted on the default branch (the nightly report's business).
    const { dir, head, stale } = await pullRequest(port81, (d) =>
      edit(path.join(d, "oam/application-configuration.yaml"), "replicaCount: 3", "replicaCount: 4"),
    );
    expect(stale.stale.map((s) => s.source)).toEqual(["WebApp storefront (crossplane/xr.yaml)"]);
    // Without the changes, every source given is compared.
    const all = staleSnapshot(path.join(dir, "rendered"), head.sources, head.masker);
    expect(all.stale.map((s) => s.source)).toEqual([
      "ApplicationConfiguration storefront (oam/application-configuration.yaml)",
      "WebApp storefront (crossplane/xr.yaml)",
    ]);
  }, 30_000);

  it("an added source is not in the snapshot; a removed one's file is still there", async () => {
    const { stale } = await pullRequest((dir) => {
      fs.writeFileSync(
        path.join(dir, "crossplane/xr-2.yaml"),
        "apiVersion: platform.example.org/v1alpha1\nkind: WebApp\nmetadata: {name: checkout, namespace: shop}\nspec: {image: nginx}\n",
      );
      fs.rmSync(path.join(dir, "oam"), { recursive: true });
    });
    expect(stale.stale.map((s) => [s.source, s.file ?? null, s.items.map((i) => i.kind)])).toEqual([
      ["ApplicationConfiguration storefront (oam/application-configuration.yaml)", "applicationconfiguration-shop-storefront.yaml", ["source-removed"]],
      ["WebApp checkout (crossplane/xr-2.yaml)", null, ["source-added"]],
    ]);
    const { markdown } = staleSnapshotMessage(stale, "rendered");
    expect(markdown).toContain("This pull request changes what 2 sources render, and the committed snapshot still holds what they rendered before");
    expect(markdown).toContain(
      "- `ApplicationConfiguration storefront (oam/application-configuration.yaml)` (`applicationconfiguration-shop-storefront.yaml`): no longer rendered, its snapshot file is still there",
    );
    expect(markdown).toContain("- `WebApp checkout (crossplane/xr-2.yaml)`: not in the snapshot");
  }, 30_000);

  it("a changed source that does not render at head is unknown, not stale", async () => {
    const { stale } = await pullRequest((dir) =>
      edit(path.join(dir, "crossplane/composition.yaml"), "name: function-patch-and-transform", "name: function-missing-here"),
    );
    expect(stale.stale).toEqual([]);
    expect(stale.unknown).toEqual(["WebApp storefront (crossplane/xr.yaml)"]);
    const message = staleSnapshotMessage(stale, "rendered");
    expect(message.markdown).toBe(
      "> 📸 1 source this pull request changes did not render here (`WebApp storefront (crossplane/xr.yaml)`): whether its drift snapshot is stale is unknown.\n",
    );
    expect(message.warning).toBeUndefined();
  }, 30_000);

  it("no snapshot directory: nothing is stale, and the message names the command that creates it", async () => {
    const dir = examples();
    const head = await renderTree(dir);
    const stale = staleSnapshot(path.join(dir, "rendered"), head.sources, head.masker, diffSources(head.sources, head.sources, head.masker));
    expect(stale).toEqual({ state: "no-directory", stale: [], unknown: [] });
    expect(staleSnapshotMessage(stale, "rendered/", ["examples"]).markdown).toBe(
      "> 📸 The drift snapshot `rendered/` does not exist yet: `composition-ci drift examples --snapshot rendered/ --update-snapshot` creates it (then commit it).\n",
    );
  }, 30_000);
});
