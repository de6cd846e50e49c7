import http from "node:http";
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

export class FakeGitHub {
  readonly requests: Recorded[] = [];
  comments: Comment[] = [];
  forbidWrites = false;
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
    if (req.method === "GET" && url.pathname === "/user") return json(403, { message: "Resource not accessible by integration" });
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
      const comment = { id: this.nextId++, body: JSON.parse(body).body, user: { login: "github-actions[bot]" }, html_url: `https://github.test/${OWNER}/${NAME}/pull/${PR}#c` };
      comment.html_url += comment.id;
      this.comments.push(comment);
      return json(201, comment);
    }
    const patch = url.pathname.match(new RegExp(`^/repos/${OWNER}/${NAME}/issues/comments/(\\d+)$`));
    if (req.method === "PATCH" && patch) {
      const comment = this.comments.find((c) => c.id === Number(patch[1]));
      if (!comment) return json(404, { message: "Not Found" });
      comment.body = JSON.parse(body).body;
      return json(200, comment);
    }
    json(404, { message: `no route ${req.method} ${url.pathname}` });
  }
}

