// The companion app's files at `/` on the bridge's port (docs/bridge.md "The app on the bridge"), so a phone that reaches only the
// bridge can open the app, pair and use it. The same build the server serves (app/dist), the same cache rules
// (server/http/routes/app-files.ts): hashed files under assets/ never change and are kept a year; index.html, sw.js, the
// manifest and icons are revalidated on every load, so a new build reaches users at once.
//
// Files go out through @fastify/send (the engine under @fastify/static): path decoding, `..` and NUL refusal,
// dotfiles, ranges, ETags and conditional requests come from a well-kept library instead of a hand-written file
// server. Without a build, `/` answers a short page saying so.
import send from "@fastify/send";
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { APP_CONTENT_SECURITY_POLICY } from "../../client/wire/routes/app-files.ts";

/** <repo>/app/dist, where the app's build writes. */
export const DEFAULT_APP_DIR = fileURLToPath(new URL("../../app/dist", import.meta.url));

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

export type NotFound = (response: ServerResponse, path: string) => void;

/** Answers GET and HEAD for the app's files under `appDir`; `notFound` answers what is not one. */
export function appFiles(appDir: string, notFound: NotFound) {
  // Read once per request, not at start: a build made while the bridge runs is served without a restart.
  const built = () => existsSync(join(appDir, "index.html"));
  return async (request: IncomingMessage, response: ServerResponse, path: string): Promise<void> => {
    if (!built()) {
      if (path === "/" || path === "/index.html")
        return answer(response, 200, "text/html; charset=utf-8", notBuiltPage(), request.method === "HEAD");
      return notFound(response, path);
    }
    const result = await send(request, path, {
      root: appDir,
      dotfiles: "ignore",
      index: "index.html",
      cacheControl: false,
      extensions: false,
    });
    if (result.type !== "file") {
      // A missing file, a dotfile, a directory (no redirect: `//host` would make it an open redirect), a traversal
      // attempt (send answers 403): one 404, which tells a prober nothing about what exists outside the build.
      result.stream.destroy();
      return notFound(response, path);
    }
    const file = relative(appDir, result.metadata.path);
    const hashed = file.startsWith(`assets${sep}`);
    // The page itself carries the policy (server/http/routes/app-files.ts sends the same one).
    const policy = file === "index.html" ? { "content-security-policy": APP_CONTENT_SECURITY_POLICY } : {};
    response.writeHead(result.statusCode, {
      ...result.headers,
      "cache-control": hashed ? IMMUTABLE : REVALIDATE,
      ...policy,
    });
    result.stream.pipe(response);
  };
}

/** The app's URL on a bridge whose endpoint is `endpoint` (ws://h:p/socket → http://h:p/; wss → https). */
export function appUrlFor(endpoint: string): string {
  const url = new URL(endpoint);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = url.pathname.replace(/\/socket\/?$/, "/");
  url.search = "";
  return url.toString();
}

function answer(response: ServerResponse, status: number, type: string, body: string, headOnly: boolean): void {
  response.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "cache-control": REVALIDATE,
  });
  response.end(headOnly ? undefined : body);
}

function notBuiltPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>chat-relay: the app is not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>The companion app is not built</h1>
<p>This bridge is running, but it found no app build to serve here.</p>
<p>Build it: run <code>npm ci</code> at the top of the repository (it builds the app into <code>app/dist</code>), then
reload this page. Live events and pairing work meanwhile at <code>/socket</code>.</p>
</body></html>
`;
}
