/**
 * The pull requests the README's pictures show, as the PR comment's markdown: `npm run screenshot`
 * draws them (docs/images/<name>.png) and keeps the markdown each was drawn from beside it
 * (docs/images/<name>.md); test/commands/screenshot.test.ts fails when that markdown is stale.
 * Commits are made with fixed dates, so the same change always has the same commit ids.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatDiff, runDiff } from "../src/run/diff.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const SCENARIOS = {
  /** A change that renders: the Service's port changes, the web app gets a PodDisruptionBudget, an XR breaks its schema. */
  "pr-comment": (repo: string) => {
    const composition = path.join(repo, "crossplane/composition.yaml");
    let text = fs.readFileSync(composition, "utf8").replace("targetPort: 8080", "targetPort: 9090");
    text = text.replace(
      "          - name: service\n",
      "          - name: budget\n            base:\n              apiVersion: policy/v1\n              kind: PodDisruptionBudget\n              spec:\n                minAvailable: 1\n            patches:\n              - type: FromCompositeFieldPath\n                fromFieldPath: metadata.name\n                toFieldPath: spec.selector.matchLabels[app]\n          - name: service\n",
    );
    fs.writeFileSync(composition, text);
    const xr = path.join(repo, "crossplane/xr.yaml");
    fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("replicas: 3", "replicas: 0"));
  },
  /** A change composition-ci cannot render: the Composition moves to function-kcl (untrusted), its Service port changes. */
  "pr-comment-unrendered": (repo: string) => {
    const composition = path.join(repo, "crossplane/composition.yaml");
    const kcl =
      "    - step: kcl\n      functionRef: {name: function-kcl}\n      input: {apiVersion: krm.kcl.dev/v1alpha1, kind: KCLInput, spec: {source: 'items = []'}}\n";
    let text = fs.readFileSync(composition, "utf8").replace("targetPort: 8080", "targetPort: 9090");
    text = text.replace("  pipeline:\n", `  pipeline:\n${kcl}`);
    fs.writeFileSync(composition, text);
    fs.appendFileSync(
      path.join(repo, "crossplane/functions.yaml"),
      "---\napiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-kcl}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-kcl:v0.11.0}\n",
    );
    const xr = path.join(repo, "crossplane/xr.yaml");
    fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("replicas: 3", "replicas: 4"));
  },
} as const;

export type ScenarioName = keyof typeof SCENARIOS;

/** The PR comment for a scenario: the examples committed as the base, the scenario's change in the working tree. */
export async function scenarioMarkdown(name: ScenarioName): Promise<string> {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "cci-screenshot-"));
  try {
    fs.cpSync(path.join(root, "examples"), repo, { recursive: true });
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: "dev",
      GIT_AUTHOR_EMAIL: "dev@example.org",
      GIT_COMMITTER_NAME: "dev",
      GIT_COMMITTER_EMAIL: "dev@example.org",
      GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, stdio: "pipe" });
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-qm", "base");
    SCENARIOS[name](repo);
    const saved = process.env.COMPOSITION_CI_OFFLINE;
    process.env.COMPOSITION_CI_OFFLINE = "1";
    try {
      return formatDiff(await runDiff({ root: repo, paths: ["."], base: "main", runUrl: "https://github.com/acme/platform/actions/runs/42" }), "markdown");
    } finally {
      if (saved === undefined) delete process.env.COMPOSITION_CI_OFFLINE;
      else process.env.COMPOSITION_CI_OFFLINE = saved;
    }
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}
