// The app's origin in tests: serves the built app (app/dist) at / and passes every other path to the chat
// server, as the server itself does in production (the app's files need no token; the API answers as ever).
// Stopping it is "the server went away" for the browser.
import { createServer, request as httpRequest, type Server } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import type { AddressInfo } from "node:net";
import { APP_DIST } from "../../../scripts/build-app.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webmanifest": "application/manifest+json",
};

export class AppFront {
  private server: Server | undefined;
  port = 0;

  constructor(private readonly apiTarget: () => string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = (this.server = createServer((req, res) => void this.handle(req, res)));
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://front").pathname;
    const file = appFile(path);
    if (file && req.method === "GET") {
      try {
        const body = await readFile(join(APP_DIST, file));
        res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
        return;
      } catch {
        // not an app file: the API's 404
      }
    }
    const target = new URL(req.url ?? "/", this.apiTarget());
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  }
}

/** The app's files: /, /index.html, /sw.js, /manifest.webmanifest, /assets/*, /icons/*. */
function appFile(path: string): string | undefined {
  if (path === "/" || path === "/index.html") return "index.html";
  const clean = normalize(path).replace(/^\/+/, "");
  if (clean.startsWith("..")) return undefined;
  if (["sw.js", "manifest.webmanifest"].includes(clean) || clean.startsWith("assets/") || clean.startsWith("icons/")) return clean;
  return undefined;
}
