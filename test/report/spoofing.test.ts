import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { marked } from "marked";
import type { DiffReport } from "../../src/report/diff.js";
import type { DriftReport } from "../../src/drift/report.js";
import type { Finding } from "../../src/core/finding.js";
import { formatDiffMarkdown, formatDriftMarkdown } from "../../src/report/formats/markdown.js";
import { code, escapeHtmlText, escapeMarkdown, fileLink, tableCell, tableCode, urlPath } from "../../src/core/markdown.js";
import { commentMarker, upsertStickyComment } from "../../src/report/github/comment.js";
import { syncDriftIssue } from "../../src/report/github/drift-issue.js";
import type { GitHubClient } from "../../src/report/github/client.js";
import { formatTestReport } from "../../src/testing/report.js";
import type { TestReport } from "../../src/testing/types.js";
import { decideVerdict } from "../../src/report/verdict.js";
import { FakeGitHub, NAME, OWNER, PR, quietOctokit } from "../fake-github.js";

/**
 * Issue 39.4: text from a pull request's head reaches the PR comment and the job summaries as
 * text, never as a mention, an image, a link, HTML or another comment's marker; and a marker is
 * ours only on the first line of a comment our own identity wrote.
 */

const HOSTILE = [
  "@octocat",
  "x)@someone.yaml",
  "<img src=x onerror=alert(1)>",
  "![p](https://evil.test/p.png)",
  "[click](https://evil.test)",
  "<!-- composition-ci:other -->",
  "www.evil.test",
  "https://evil.test/a",
  "a|b",
  "`@codey` ``x``",
  "acme/other#12",
  "</summary></details><a href=//evil.test>x</a>",
  "mail@evil.test",
  "<details open>",
];
const ALL = HOSTILE.join(" ");
const LINK_BASE = "https://github.com/acme/platform/blob/feedface/";
const RUN = "https://github.com/acme/platform/actions/runs/1";

/** One pass over the entities marked leaves (a `&amp;#64;` stays the text `&#64;`, as a browser shows it). */
function decode(html: string): string {
  return html.replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|#39);/gi, (m, e: string) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return { amp: "&", lt: "<", gt: ">", quot: '"' }[e.toLowerCase()] ?? m;
  });
}

const ALLOWED_TAGS = new Set([
  "h3",
  "p",
  "strong",
  "em",
  "code",
  "pre",
  "ul",
  "li",
  "details",
  "summary",
  "sub",
  "br",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "blockquote",
  "hr",
]);

/** What GitHub would do with the markdown, judged on its HTML (GitHub renders GFM as marked does). */
function inert(markdown: string, allowedLinks: string[] = []): void {
  const html = marked.parse(markdown, { gfm: true, async: false });
  for (const m of html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)) expect(ALLOWED_TAGS, `<${m[1]}> in\n${html}`).toContain(m[1]!.toLowerCase());
  expect(html).not.toMatch(/<img/i);
  expect(html).not.toContain("<!--");
  for (const m of html.matchAll(/<a [^>]*href="([^"]*)"/g)) {
    const href = decode(m[1]!);
    expect(
      allowedLinks.some((prefix) => href.startsWith(prefix)),
      `link to ${href}`,
    ).toBe(true);
    // A repository path inside an allowed link is one path: nothing of it ends the link early.
    expect(href).not.toMatch(/[()@ ]/);
  }
  // Mentions, cross-references and autolinks are made from text outside code and links.
  const text = decode(html.replace(/<(code|pre|a)\b[^>]*>[\s\S]*?<\/\1>/g, " ").replace(/<[^>]+>/g, " "));
  expect(text, text).not.toMatch(/(^|[^\w`])@[A-Za-z0-9]/);
  expect(text).not.toMatch(/#\d/);
  expect(text).not.toMatch(/https?:\/\/|www\./);
  // A marker shown as text (in a diff) is harmless: a marker is ours only on a comment's first line.
  expect(markdown).not.toMatch(/^<!--/);
}

const finding = (extra: Partial<Finding> = {}): Finding => ({
  rule: "schema/cel",
  severity: "error",
  message: `bad ${ALL}`,
  file: "apps/x)@someone.yaml",
  line: 3,
  kind: ALL,
  name: ALL,
  ...extra,
});

function diffReport(): DiffReport {
  const head = [finding(), finding({ rule: "test/failed", message: `CompositionTest ${ALL} fails:\n  ${ALL}` })];
  return {
    version: 1,
    tool: { name: "composition-ci", version: "test" },
    base: { ref: "main", commit: "a".repeat(40) },
    head: { ref: "pr", commit: "b".repeat(40) },
    sources: { total: 3, considered: 3, rendered: 1, notRendered: 1, failed: 1, all: true },
    changes: [
      {
        key: "k1",
        kind: ALL,
        name: ALL,
        file: `x)@someone.yaml ${ALL}`,
        via: `Composition ${ALL}`,
        status: "changed",
        observedReads: [ALL],
        objects: [
          { key: `ConfigMap/${ALL}`, kind: ALL, name: ALL, status: "changed", diff: `--- a\n+++ b\n-  x: 1\n+  x: "${ALL}"`, replacedBy: [ALL] },
          { key: `Bucket/${ALL}`, kind: ALL, name: ALL, status: "removed" },
        ],
      },
      { key: "k2", kind: ALL, name: ALL, file: ALL, via: ALL, status: "failed", failedNested: [ALL], objects: [] },
      {
        key: "k3",
        kind: ALL,
        name: `${ALL} 2`,
        file: ALL,
        via: ALL,
        status: "not-rendered",
        notRendered: [{ what: ALL, step: ALL, reason: ALL, fix: ALL }],
        objects: [],
      },
      { key: "k4", kind: ALL, name: ALL, file: ALL, via: ALL, status: "still-failing", objects: [] },
      { key: "k5", kind: ALL, name: ALL, file: `b/${ALL}`, via: ALL, status: "still-failing", objects: [] },
    ],
    objects: { added: 0, changed: 1, removed: 1 },
    findings: { new: head, fixed: [finding({ message: `fixed ${ALL}` })], unchanged: [finding({ message: `old ${ALL}` })] },
    verdict: decideVerdict(head, head, { failOn: "error" }),
    unrenderedFiles: [ALL],
    run: { url: RUN },
  };
}

describe("text from the repository in the PR comment", () => {
  it("names, files, kinds, messages and diffs make no mention, HTML, image, link, cross-reference or marker", () => {
    // No linkBase here: the link's destination is checked on its own below.
    for (const maxChars of [65_000, 6_000, 2_500]) inert(formatDiffMarkdown(diffReport(), { maxChars, fullReportHint: "see report-dir" }), [RUN]);
  });

  // Needs src/report/formats/markdown.ts `where()` to build its link with md.ts `fileLink` (or `urlPath`) instead of `encodeURI`.
  it("a finding's link to its file keeps the whole path inside the link: `x)@someone.yaml` neither ends it nor mentions", () => {
    const md = formatDiffMarkdown(diffReport(), { maxChars: 65_000, linkBase: LINK_BASE });
    inert(md, [RUN, LINK_BASE]);
    expect(md).toContain(`(${LINK_BASE}apps/x%29%40someone.yaml#L3)`);
  });

  it("the drift report: sources, objects and details", () => {
    const report: DriftReport = {
      version: 1,
      tool: { name: "composition-ci", version: "test" },
      baselines: { snapshot: "rendered", cluster: false },
      sources: 1,
      states: { rendered: 1, notRendered: 0, failed: 0 },
      items: [{ id: "1", kind: "object-changed", source: ALL, object: ALL, detail: `--- a\n+++ b\n+ ${ALL}`, state: "new" }],
      fingerprint: "f",
      run: { url: RUN },
    };
    inert(formatDriftMarkdown(report, { maxChars: 65_000 }), [RUN]);
  });
});

describe("text from the repository in the test mode's job summary", () => {
  const report: TestReport = {
    tests: [
      {
        kind: "CompositionTest",
        name: ALL,
        file: `tests/${ALL}.yaml`,
        line: 2,
        status: "failed",
        source: ALL,
        failures: [{ object: ALL, message: ALL, file: ALL, line: 4, differences: [] }],
        durationMs: 1,
      },
      { kind: "golden", name: ALL, file: "x`|`@y.yaml", line: 1, status: "passed", failures: [], durationMs: 1 },
    ],
    unreadable: [{ file: `u/${ALL}`, line: 1, message: ALL }],
    durationMs: 2,
  };

  it("test names, files and messages are text: not only `|` is escaped", () => {
    const md = formatTestReport("markdown", report, { toolVersion: "test" });
    inert(md);
    // The table keeps its three columns on every row.
    const rows = marked.parse(md, { gfm: true, async: false }).match(/<tr>[\s\S]*?<\/tr>/g)!;
    expect(rows.length).toBe(4);
    for (const row of rows) expect(row.match(/<t[dh]>/g)).toHaveLength(3);
  });
});

describe("escaping helpers", () => {
  it("a path in a link's URL is one path: parentheses, @, spaces, # and ? are encoded; slashes are kept", () => {
    expect(urlPath("a b/x)@someone(1)#?.yaml")).toBe("a%20b/x%29%40someone%281%29%23%3F.yaml");
    expect(urlPath("apps/ok-file_1.yaml")).toBe("apps/ok-file_1.yaml");
    expect(fileLink("x)@y.yaml:3", LINK_BASE, "x)@y.yaml", 3)).toBe(`[x\\)@&#8203;y.yaml:3](${LINK_BASE}x%29%40y.yaml#L3)`);
  });

  it("cross-references are broken, as mentions are", () => {
    for (const out of [escapeMarkdown("see acme/other#12 and #3"), escapeHtmlText("see #3")]) expect(decode(out)).not.toMatch(/#\d/);
  });

  it("table cells: a pipe never adds a column, in text or in code", () => {
    const md = `| a | b |\n|---|---|\n| ${tableCell("x|y @z")} | ${tableCode("p|q`r")} |\n`;
    const html = marked.parse(md, { gfm: true, async: false });
    expect(html.match(/<td>/g)).toHaveLength(2);
    expect(html).toContain("<code>p|q`r</code>");
    expect(code("a|b")).toBe("`a|b`");
  });
});

describe("the sticky comment is found only where it is ours", () => {
  const github = new FakeGitHub();
  let octokit: GitHubClient;
  let base = "";
  beforeAll(async () => {
    base = await github.start();
    octokit = quietOctokit(base);
  });
  afterAll(() => github.stop());
  beforeEach(() => {
    github.comments = [];
    github.userLogin = undefined;
    github.viewerLogin = undefined;
    github.author = "github-actions[bot]";
  });
  const upsert = (key: string, client = octokit) =>
    upsertStickyComment({
      octokit: client,
      owner: OWNER,
      repo: NAME,
      issueNumber: PR,
      key,
      body: "the report",
      cleanBody: "clean",
      mode: "always",
      hasChanges: true,
    });
  const comment = (id: number, body: string, login = "github-actions[bot]") => ({ id, body, user: { login }, html_url: `https://github.test/c${id}` });

  it("a marker that is not the first line (another job's report quoting it, a diff that holds it) is not ours", async () => {
    // Job "other" posted a report whose diff shows a forged `<!-- composition-ci:main -->`.
    github.comments = [
      comment(1, `${commentMarker("other")}\n\`\`\`diff\n+ ${commentMarker("main")}\n\`\`\``),
      comment(2, `text first\n${commentMarker("main")}`),
    ];
    const res = await upsert("main");
    expect(res.action).toBe("created");
    expect(github.comments.find((c) => c.id === 1)!.body).toContain("```diff");
    expect(github.comments.find((c) => c.id === 2)!.body).toBe(`text first\n${commentMarker("main")}`);
    expect(github.comments.filter((c) => c.body.startsWith(commentMarker("main")))).toHaveLength(1);
  });

  it("someone else's comment with the marker on its first line is never updated or deleted", async () => {
    github.comments = [comment(1, `${commentMarker("main")}\nforged`, "mallory"), comment(2, `${commentMarker("main")}\nalso forged`, "github-actions")];
    expect((await upsert("main")).action).toBe("created");
    expect(github.comments.map((c) => c.body)).toEqual([
      `${commentMarker("main")}\nforged`,
      `${commentMarker("main")}\nalso forged`,
      `${commentMarker("main")}\nthe report`,
    ]);
  });

  it("duplicate stickies of one key (left by earlier runs) are cleaned up to one, the oldest, when it is updated", async () => {
    github.comments = [
      comment(5, `${commentMarker("main")}\nrun 1`),
      comment(6, "unrelated"),
      comment(7, `${commentMarker("main")}\r\nrun 2`),
      comment(8, `${commentMarker("other")}\nkept`),
    ];
    const res = await upsert("main");
    expect(res).toMatchObject({ action: "updated", url: "https://github.test/c5" });
    expect(github.comments.map((c) => [c.id, c.body])).toEqual([
      [5, `${commentMarker("main")}\nthe report`],
      [6, "unrelated"],
      [8, `${commentMarker("other")}\nkept`],
    ]);
  });

  it("a GitHub App's token (no /user): its bot login comes from GraphQL's viewer; github-actions[bot]'s markers are not its own", async () => {
    github.viewerLogin = "acme-ci";
    github.author = "acme-ci[bot]";
    github.comments = [comment(1, `${commentMarker("main")}\nanother workflow's`), comment(2, `${commentMarker("main")}\nours`, "acme-ci[bot]")];
    const client = quietOctokit(base);
    expect((await upsert("main", client)).action).toBe("updated");
    expect(github.comments.map((c) => c.body)).toEqual([`${commentMarker("main")}\nanother workflow's`, `${commentMarker("main")}\nthe report`]);
  });

  it("a personal token: /user names it", async () => {
    github.userLogin = "release-bot";
    github.author = "release-bot";
    github.comments = [comment(1, `${commentMarker("main")}\nbot's`), comment(2, `${commentMarker("main")}\nmine`, "release-bot")];
    const client = quietOctokit(base);
    expect((await upsert("main", client)).action).toBe("updated");
    expect(github.comments[0]!.body).toBe(`${commentMarker("main")}\nbot's`);
    expect(github.comments[1]!.body).toBe(`${commentMarker("main")}\nthe report`);
  });

  it("the drift issue's marker counts only on the first line too", async () => {
    const report: DriftReport = {
      version: 1,
      tool: { name: "composition-ci", version: "t" },
      baselines: { cluster: false },
      sources: 1,
      states: { rendered: 1, notRendered: 0, failed: 0 },
      items: [{ id: "1", kind: "object-changed", source: "s", state: "new" }],
      fingerprint: "f",
    };
    github.issues = [
      {
        number: 1,
        title: "other",
        body: "quoting <!-- composition-ci-drift:default -->",
        state: "open",
        labels: [{ name: "composition-ci-drift" }],
        user: { login: "github-actions[bot]" },
        html_url: "https://github.test/i1",
        comments: [],
      },
    ];
    const res = await syncDriftIssue({ octokit, owner: OWNER, repo: NAME, key: "default", report, markdown: "drift" });
    expect(res.action).toBe("created");
    expect(github.issues[0]!.body).toBe("quoting <!-- composition-ci-drift:default -->");
  });
});
