/**
 * Renders the PR comment composition-ci writes for a change to the examples/ repository, with a
 * GitHub-flavoured markdown renderer (marked) and GitHub's markdown CSS, in headless Chromium, to
 * docs/images/pr-comment.png (the picture at the top of the README).
 *
 * Needs Chromium: on Debian or Ubuntu `sudo apt-get install chromium fonts-noto-color-emoji` (or set
 * CHROMIUM=/path).
 * Not part of `npm test`. Run: npm run screenshot
 */
import { formatDiff, runDiff } from "../src/commands/diff.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { $, which } from "zx";
import { marked } from "marked";

$.verbose = false;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const out = path.join(root, "docs/images/pr-comment.png");

const chromium = process.env.CHROMIUM ?? (await which("chromium", { nothrow: true })) ?? (await which("chromium-browser", { nothrow: true }));
if (!chromium) {
  console.error("screenshot: Chromium is not installed. On Debian or Ubuntu: sudo apt-get install chromium (or set CHROMIUM=/path/to/chromium).");
  process.exit(2);
}

// A pull request against the examples: the Service's port changes, the web app gets a PodDisruptionBudget.
const repo = fs.mkdtempSync(path.join(os.tmpdir(), "cci-screenshot-"));
fs.cpSync(path.join(root, "examples"), repo, { recursive: true });
const git = (...args: string[]) => $({ cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: "dev", GIT_AUTHOR_EMAIL: "dev@example.org", GIT_COMMITTER_NAME: "dev", GIT_COMMITTER_EMAIL: "dev@example.org" } })`git ${args}`;
await git("init", "-q", "-b", "main");
await git("add", "-A");
await git("commit", "-qm", "base");
const composition = path.join(repo, "crossplane/composition.yaml");
let text = fs.readFileSync(composition, "utf8").replace("targetPort: 8080", "targetPort: 9090");
text = text.replace(
  "          - name: service\n",
  "          - name: budget\n            base:\n              apiVersion: policy/v1\n              kind: PodDisruptionBudget\n              spec:\n                minAvailable: 1\n            patches:\n              - type: FromCompositeFieldPath\n                fromFieldPath: metadata.name\n                toFieldPath: spec.selector.matchLabels[app]\n          - name: service\n",
);
fs.writeFileSync(composition, text);
const xr = path.join(repo, "crossplane/xr.yaml");
fs.writeFileSync(xr, fs.readFileSync(xr, "utf8").replace("replicas: 3", "replicas: 0"));

const markdown = formatDiff(await runDiff({ root: repo, paths: ["."], base: "main", runUrl: "https://github.com/acme/platform/actions/runs/42" }), "markdown");

const css = fs.readFileSync(path.join(root, "node_modules/github-markdown-css/github-markdown-light.css"), "utf8");
const body = await marked.parse(markdown, { gfm: true });
const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
body { margin: 0; background: #fff; } .comment { box-sizing: border-box; width: 880px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; font: 14px -apple-system, "Segoe UI", sans-serif; color: #57606a; }
.markdown-body { padding: 16px; }</style></head>
<body><div class="comment"><div class="header"><b>github-actions</b> bot commented</div><div class="markdown-body">${body}</div></div>
<script>document.querySelectorAll("details").forEach((d, i) => { if (i === 0) d.open = true; });</script></body></html>`;
const page = path.join(repo, "comment.html");
fs.writeFileSync(page, html);
fs.mkdirSync(path.dirname(out), { recursive: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "cci-chromium-"));
await $({ quiet: true })`${chromium} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=${profile} --hide-scrollbars --window-size=912,1180 --screenshot=${out} file://${page}`;
console.log(`wrote ${path.relative(root, out)}`);
