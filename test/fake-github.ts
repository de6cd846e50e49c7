import http from "node:http";
import { gitHubClient, type GitHubClient } from "../src/report/github/client.js";
import type { AddressInfo } from "node:net";

/** A GitHub REST API on 127.0.0.1 with the few endpoints the Action uses; records every request. */

export const OWNER = "acme";
export const NAME = "platform";
export const PR = 7;

export interface Recorded {
  method: string;
  url: string;
  body: string;
}

export interface Comment {
  id: number;
  body: string;
  user: { login: string };
  html_url: string;
}

export interface Issue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  labels: { name: string }[];
  user: { login: string };
  html_url: string;
  comments: string[];
}

/** A fault the API answers with, for the next `times` requests that match (`hang`: never answers). */
export interface Fault {
  method: string;
  path: RegExp;
  status?: number;
  headers?: Record<string, string>;
  message?: string;
  /** The body to answer with (default `{message}`). */
  body?: unknown;
  times: number;
  hang?: boolean;
}

export class FakeGitHub {
  readonly requests: Recorded[] = [];
  comments: Comment[] = [];
  /** The pull request's labels. */
  prLabels: string[] = [];
  issues: Issue[] = [];
  faults: Fault[] = [];
  forbidWrites = false;
  /** GET /user answers with this login (a personal token); unset, it answers 403 as for an installation token. */
  userLogin: string | undefined;
  /** POST /graphql `viewer { login }` answers with this (as for a GitHub App's token); unset, there is no GraphQL. */
  viewerLogin: string | undefined;
  /** Who the comments and issues this API creates are written by. */
  author = "github-actions[bot]";
  private server!: http.Server;
  private nextId = 1000;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => this.handle(req, res, body));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    this.requests.push({ method: req.method!, url: req.url!, body });
    const url = new URL(req.url!, "http://x");
    const json = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(data));
    };
    const list = `/repos/${OWNER}/${NAME}/issues/${PR}/comments`;
    const fault = this.faults.find((f) => f.times > 0 && f.method === req.method && f.path.test(url.pathname));
    if (fault) {
      fault.times--;
      if (fault.hang) return; // the socket stays open and nothing answers
      return json(fault.status ?? 500, fault.body ?? { message: fault.message ?? "fault" }, fault.headers ?? {});
    }
    if (this.handleIssues(req, url, body, json)) return;
    if (req.method === "GET" && url.pathname === "/user")
      return this.userLogin ? json(200, { login: this.userLogin }) : json(403, { message: "Resource not accessible by integration" });
    if (req.method === "POST" && url.pathname === "/graphql" && this.viewerLogin) return json(200, { data: { viewer: { login: this.viewerLogin } } });
    if (req.method === "GET" && url.pathname === list) {
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const page = Number(url.searchParams.get("page") ?? 1);
      const items = this.comments.slice((page - 1) * perPage, page * perPage);
      const last = Math.max(1, Math.ceil(this.comments.length / perPage));
      const link: Record<string, string> = page < last ? { link: `<http://${req.headers.host}${list}?per_page=${perPage}&page=${page + 1}>; rel="next"` } : {};
      return json(200, items, link);
    }
    if (this.forbidWrites && (req.method === "POST" || req.method === "PATCH")) return json(403, { message: "Resource not accessible by integration" });
    if (req.method === "POST" && url.pathname === list) {
      const comment = {
        id: this.nextId++,
        body: JSON.parse(body).body,
        user: { login: this.author },
        html_url: `https://github.test/${OWNER}/${NAME}/pull/${PR}#c`,
      };
      comment.html_url += comment.id;
      this.comments.push(comment);
      return json(201, comment);
    }
    const labels = `/repos/${OWNER}/${NAME}/issues/${PR}/labels`;
    if (req.method === "GET" && url.pathname === labels)
      return json(
        200,
        this.prLabels.map((name) => ({ name })),
      );
    if (req.method === "POST" && url.pathname === labels) {
      for (const name of (JSON.parse(body) as { labels: string[] }).labels) if (!this.prLabels.includes(name)) this.prLabels.push(name);
      return json(
        200,
        this.prLabels.map((name) => ({ name })),
      );
    }
    if (req.method === "DELETE" && url.pathname.startsWith(`${labels}/`)) {
      const name = decodeURIComponent(url.pathname.slice(labels.length + 1));
      if (!this.prLabels.includes(name)) return json(404, { message: "Label does not exist" });
      this.prLabels = this.prLabels.filter((l) => l !== name);
      return json(
        200,
        this.prLabels.map((n) => ({ name: n })),
      );
    }
    const patch = url.pathname.match(new RegExp(`^/repos/${OWNER}/${NAME}/issues/comments/(\\d+)$`));
    if (req.method === "DELETE" && patch) {
      this.comments = this.comments.filter((c) => c.id !== Number(patch[1]));
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === "PATCH" && patch) {
      const comment = this.comments.find((c) => c.id === Number(patch[1]));
      if (!comment) return json(404, { message: "Not Found" });
      comment.body = JSON.parse(body).body;
      return json(200, comment);
    }
    json(404, { message: `no route ${req.method} ${url.pathname}` });
  }

  private handleIssues(
    req: http.IncomingMessage,
    url: URL,
    body: string,
    json: (status: number, data: unknown, headers?: Record<string, string>) => void,
  ): boolean {
    const base = `/repos/${OWNER}/${NAME}/issues`;
    if (req.method === "GET" && url.pathname === base) {
      const label = url.searchParams.get("labels");
      const state = url.searchParams.get("state") ?? "open";
      const perPage = Number(url.searchParams.get("per_page") ?? 30);
      const page = Number(url.searchParams.get("page") ?? 1);
      const matching = this.issues.filter((i) => (!label || i.labels.some((l) => l.name === label)) && (state === "all" || i.state === state));
      const last = Math.max(1, Math.ceil(matching.length / perPage));
      const link: Record<string, string> =
        page < last
          ? { link: `<http://${req.headers.host}${base}?labels=${label ?? ""}&state=${state}&per_page=${perPage}&page=${page + 1}>; rel="next"` }
          : {};
      json(200, matching.slice((page - 1) * perPage, page * perPage), link);
      return true;
    }
    if (this.forbidWrites && (req.method === "POST" || req.method === "PATCH")) return false;
    if (req.method === "POST" && url.pathname === base) {
      const data = JSON.parse(body) as { title: string; body: string; labels?: string[] };
      const number = this.nextId++;
      const issue: Issue = {
        number,
        title: data.title,
        body: data.body,
        state: "open",
        labels: (data.labels ?? []).map((name) => ({ name })),
        user: { login: this.author },
        html_url: `https://github.test/${OWNER}/${NAME}/issues/${number}`,
        comments: [],
      };
      this.issues.push(issue);
      json(201, issue);
      return true;
    }
    const one = url.pathname.match(new RegExp(`^${base}/(\\d+)(/comments)?$`));
    const issue = one && this.issues.find((i) => i.number === Number(one[1]));
    if (!one || !issue) return false;
    if (req.method === "PATCH" && !one[2]) {
      const data = JSON.parse(body) as Partial<Issue>;
      if (data.state) issue.state = data.state;
      if (data.body !== undefined) issue.body = data.body;
      json(200, issue);
      return true;
    }
    if (req.method === "POST" && one[2]) {
      issue.comments.push((JSON.parse(body) as { body: string }).body);
      json(201, { id: this.nextId++, body: issue.comments.at(-1), html_url: issue.html_url });
      return true;
    }
    return false;
  }
}

/** The Action's client for the fake API: quick retries, a short timeout, nothing logged. */
export function quietOctokit(baseUrl: string): GitHubClient {
  return gitHubClient({ token: "t", baseUrl, retryBaseMs: 5, timeoutMs: 2000, throttle: false });
}
