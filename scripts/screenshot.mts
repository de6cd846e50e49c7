/**
 * Renders the PR comments composition-ci writes for two changes to the examples/ repository (one
 * that renders, one it cannot render), with a GitHub-flavoured markdown renderer (marked) and
 * GitHub's markdown CSS, in headless Chromium, to docs/images/<scenario>.png, and keeps the
 * markdown each was drawn from as docs/images/<scenario>.md (a test fails when it is stale).
 *
 * Needs Chromium: on Debian or Ubuntu `sudo apt-get install chromium fonts-noto-color-emoji` (or set
 * CHROMIUM=/path).
 * Not part of `npm test`. Run: npm run screenshot
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { $, which } from "zx";
import { marked } from "marked";
import { SCENARIOS, scenarioMarkdown, type ScenarioName } from "./screenshot-scenarios.js";

$.verbose = false;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");

const chromium = process.env.CHROMIUM ?? (await which("chromium", { nothrow: true })) ?? (await which("chromium-browser", { nothrow: true }));
if (!chromium) {
  console.error("screenshot: Chromium is not installed. On Debian or Ubuntu: sudo apt-get install chromium (or set CHROMIUM=/path/to/chromium).");
  process.exit(2);
}

for (const name of Object.keys(SCENARIOS) as ScenarioName[]) {
  const markdown = await scenarioMarkdown(name);
  const out = path.join(root, "docs/images", `${name}.png`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(path.join(root, "docs/images", `${name}.md`), markdown);
  await draw(markdown, out);
  console.log(`wrote ${path.relative(root, out)}`);
}

async function draw(markdown: string, out: string): Promise<void> {
  const css = fs.readFileSync(path.join(root, "node_modules/github-markdown-css/github-markdown-light.css"), "utf8");
  const body = await marked.parse(markdown, { gfm: true });
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
  body { margin: 0; background: #fff; } .comment { box-sizing: border-box; width: 880px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }
  .header { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; font: 14px -apple-system, "Segoe UI", sans-serif; color: #57606a; }
  .markdown-body { padding: 16px; }</style></head>
  <body><div class="comment"><div class="header"><b>github-actions</b> bot commented</div><div class="markdown-body">${body}</div></div>
  <script>document.querySelectorAll("details").forEach((d, i) => { if (i === 0) d.open = true; });</script></body></html>`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cci-screenshot-page-"));
  const page = path.join(work, "comment.html");
  fs.writeFileSync(page, html);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "cci-chromium-"));
  await $({
    quiet: true,
  })`${chromium} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=${profile} --hide-scrollbars --window-size=912,1180 --screenshot=${out} file://${page}`;
}
