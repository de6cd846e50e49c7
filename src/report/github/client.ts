import { getOctokit } from "@actions/github";
import { defaults } from "@actions/github/lib/utils";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { TOOL_VERSION } from "../../version.js";

/**
 * The GitHub API client: @actions/github's Octokit (GitHub Enterprise Server's API URL from
 * GITHUB_API_URL, the runner's proxy settings), retrying server errors with backoff, waiting out
 * primary and secondary rate limits (a few times, and for at most `maxRateLimitWaitMs` in all: a
 * limit that resets in an hour, or `retry-after: 600`, is given up on at once, and the caller writes
 * its report without the API), and giving up on a request that does not answer within
 * `timeoutMs`, so the run never hangs on the API.
 */
export type GitHubClient = ReturnType<typeof getOctokit>;

export interface ClientOptions {
  token: string;
  /** Default: GITHUB_API_URL, else https://api.github.com. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Backoff base for retries (plugin-retry squares it by the attempt); small in tests. */
  retryBaseMs?: number;
  /** Where the client's own messages go (rate-limit waits); silent by default. */
  log?: (message: string) => void;
  /** Pace requests as GitHub asks (on by default; a test's local API needs no pacing). */
  throttle?: boolean;
  /** The longest this client waits out rate limits, all waits together (default 60 s). */
  maxRateLimitWaitMs?: number;
}

const RATE_LIMIT_RETRIES = 2;
export const MAX_RATE_LIMIT_WAIT_MS = 60_000;

export function gitHubClient(options: ClientOptions): GitHubClient {
  const say = options.log ?? (() => {});
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const budget = options.maxRateLimitWaitMs ?? MAX_RATE_LIMIT_WAIT_MS;
  let waited = 0;
  const onLimit = (kind: string) => (retryAfter: number, request: { method?: string; url?: string }, _octokit: unknown, retryCount: number) => {
    const what = `GitHub ${kind} rate limit on ${request.method ?? ""} ${request.url ?? ""}`;
    if (retryCount >= RATE_LIMIT_RETRIES) return false;
    const ms = Math.max(0, retryAfter) * 1000;
    if (waited + ms > budget) {
      say(
        `${what}: it lifts in ${retryAfter}s, more than this run waits for GitHub (${Math.round((budget - waited) / 1000)}s left of ${budget / 1000}s); giving up`,
      );
      return false;
    }
    waited += ms;
    say(`${what}: retrying in ${retryAfter}s`);
    return true;
  };
  const octokit = getOctokit(
    options.token,
    {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : process.env.GITHUB_API_URL ? { baseUrl: process.env.GITHUB_API_URL } : {}),
      userAgent: `composition-ci/${TOOL_VERSION}`,
      log: quiet,
      throttle: { enabled: options.throttle !== false, onRateLimit: onLimit("primary"), onSecondaryRateLimit: onLimit("secondary") },
      retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 451], retryAfterBaseValue: options.retryBaseMs ?? 1000 },
      request: { ...defaults.request, fetch: timedFetch((defaults.request?.fetch ?? globalThis.fetch) as Fetch, options.timeoutMs ?? 30_000) },
    },
    retry,
    throttling,
  );
  return octokit;
}

type Fetch = (url: string, init?: Record<string, unknown>) => Promise<unknown>;

/** The runner's proxy-aware fetch, each attempt of which gives up after `ms`. */
function timedFetch(fetch: Fetch, ms: number): Fetch {
  return (url, init) => withTimeout(ms, (signal) => fetch(url, { ...init, signal }));
}

/**
 * An attempt that does not answer within `ms` is abandoned with an error (no status: not retried).
 * The abort signal is passed on too, but the proxy's fetch may not honour it: the race decides.
 */
async function withTimeout<T>(ms: number, send: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`GitHub did not answer within ${ms / 1000}s`));
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve(send(controller.signal)), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether an API error is a rate limit (a 403 or 429 that says so), not a permission problem. */
export function isRateLimited(err: unknown): boolean {
  const e = err as { status?: number; message?: string; response?: { headers?: Record<string, string> } };
  if (e.status === 429) return true;
  return (
    e.status === 403 &&
    (/rate limit/i.test(e.message ?? "") || e.response?.headers?.["x-ratelimit-remaining"] === "0" || e.response?.headers?.["retry-after"] !== undefined)
  );
}
