import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gitHubClient, isRateLimited } from "../../src/report/github/client.js";
import { upsertStickyComment } from "../../src/report/github/comment.js";
import { FakeGitHub, NAME, OWNER, PR } from "../fake-github.js";

/**
 * Issue 39.6: a rate limit that lifts in an hour, or `retry-after: 600`, must not hold the run:
 * the client waits out limits for a bounded time in all, then gives up, and the caller reports
 * without the comment. The real throttling plugin runs here (pacing on), against a loopback API.
 */

describe("rate limits are waited out for a bounded time, then given up on", () => {
  const github = new FakeGitHub();
  let base = "";
  const list = new RegExp(`/repos/${OWNER}/${NAME}/issues/${PR}/comments$`);
  beforeAll(async () => {
    base = await github.start();
  });
  afterAll(() => github.stop());
  beforeEach(() => {
    github.faults = [];
    github.comments = [];
  });

  const post = async (maxRateLimitWaitMs?: number) => {
    const said: string[] = [];
    const octokit = gitHubClient({
      token: "t",
      baseUrl: base,
      retryBaseMs: 5,
      timeoutMs: 2000,
      log: (m) => said.push(m),
      ...(maxRateLimitWaitMs !== undefined ? { maxRateLimitWaitMs } : {}),
    });
    const started = Date.now();
    const outcome = await upsertStickyComment({
      octokit,
      owner: OWNER,
      repo: NAME,
      issueNumber: PR,
      key: "k",
      body: "report",
      cleanBody: "clean",
      mode: "always",
      hasChanges: true,
    }).then(
      (res) => ({ res, err: undefined }),
      (err: unknown) => ({ res: undefined, err }),
    );
    return { ...outcome, ms: Date.now() - started, said };
  };

  it("a primary limit whose reset is an hour away: given up at once (with the default 60 s bound), as a rate limit", async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    github.faults.push({
      method: "GET",
      path: list,
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
      message: "API rate limit exceeded for installation",
      times: 10,
    });
    const r = await post();
    expect(r.res).toBeUndefined();
    expect(isRateLimited(r.err)).toBe(true);
    expect(r.ms).toBeLessThan(5000);
    expect(r.said.join("\n")).toMatch(/lifts in 360\ds, more than this run waits .*giving up/);
    expect(github.comments).toHaveLength(0);
  });

  it("a secondary limit with retry-after: 600: given up at once", async () => {
    github.faults.push({
      method: "GET",
      path: list,
      status: 403,
      headers: { "retry-after": "600" },
      message: "You have exceeded a secondary rate limit",
      times: 10,
    });
    const r = await post();
    expect(isRateLimited(r.err)).toBe(true);
    expect(r.ms).toBeLessThan(5000);
    expect(r.said.join("\n")).toMatch(/lifts in 600s/);
  });

  it("a 429 with retry-after: 600: not waited out", async () => {
    github.faults.push({ method: "GET", path: list, status: 429, headers: { "retry-after": "600" }, message: "Too many requests", times: 10 });
    const r = await post();
    expect(isRateLimited(r.err)).toBe(true);
    expect(r.ms).toBeLessThan(5000);
  });

  it("short waits are taken while they fit the bound, all waits together; the next one is not", async () => {
    github.faults.push({
      method: "GET",
      path: list,
      status: 403,
      headers: { "retry-after": "1" },
      message: "You have exceeded a secondary rate limit",
      times: 10,
    });
    const before = github.requests.filter((q) => list.test(q.url.split("?")[0]!)).length;
    const r = await post(1500);
    const attempts = github.requests.filter((q) => list.test(q.url.split("?")[0]!)).length - before;
    expect(isRateLimited(r.err)).toBe(true);
    expect(attempts).toBe(2); // the first, and one retry after 1 s; a second 1 s wait would pass 1.5 s
    expect(r.ms).toBeGreaterThanOrEqual(900);
    expect(r.ms).toBeLessThan(5000);
    expect(r.said.join("\n")).toMatch(/retrying in 1s[\s\S]*giving up/);
  });

  it("a limit that lifts within the bound is waited out and the comment is posted", async () => {
    github.faults.push({
      method: "GET",
      path: list,
      status: 403,
      headers: { "retry-after": "1" },
      message: "You have exceeded a secondary rate limit",
      times: 1,
    });
    const r = await post();
    expect(r.err).toBeUndefined();
    expect(r.res?.action).toBe("created");
    expect(github.comments).toHaveLength(1);
  });
});
