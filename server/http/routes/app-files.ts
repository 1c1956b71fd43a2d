// The companion app at `/` (docs/app.md "Run it"): the built files of app/dist, served without a token by
// @fastify/static (a well-kept plugin: ranges, ETags, content types and path-traversal refusal come with it).
// Hashed files under assets/ never change, so browsers keep them a year; everything else (index.html, sw.js, the
// manifest, icons) is revalidated on every load, so a new build reaches users at once. Without a build, `/`
// answers a short page saying how to make one. The folder is read when the server starts. Each of these routes
// carries the one contract of an app file, client/wire/routes/app-files.ts (registered by the static plugin, one
// route per file, not by serveRoute).
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { APP_CONTENT_SECURITY_POLICY, appFileRoute } from "../../../client/wire/routes/app-files.ts";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join, relative, sep } from "node:path";

/** <repo>/app/dist, where the app's build writes. */
export const DEFAULT_APP_DIR = fileURLToPath(new URL("../../../app/dist", import.meta.url));

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

export function registerAppFiles(app: FastifyInstance, appDir: string = DEFAULT_APP_DIR): void {
  void app.register(async (scope) => {
    // Every route of this scope is one of the app's files, and only those are served open: their contract
    // (client/wire/routes/app-files.ts) says so, as any open route's does.
    scope.addHook("onRoute", (route) => {
      route.config = { ...route.config, contract: appFileRoute };
    });
    if (!existsSync(join(appDir, "index.html"))) {
      scope.get("/", async (_request, reply) =>
        reply.type("text/html; charset=utf-8").header("cache-control", REVALIDATE).send(notBuiltPage(appDir)),
      );
      return;
    }
    await scope.register(fastifyStatic, {
      root: appDir,
      prefix: "/",
      // One route per file of the build, found at start: no catch-all, so an unknown path is an ordinary 404 and
      // an API path keeps its own refusals (401, 414) instead of falling into the app's folder.
      wildcard: false,
      // Dotfiles (.env, .git) are never part of a build: answered as if absent.
      dotfiles: "ignore",
      cacheControl: false,
      setHeaders: (response, path) => {
        response.setHeader("cache-control", isHashedAsset(appDir, path) ? IMMUTABLE : REVALIDATE);
        // The page itself carries the policy (a shared chat's link opens it too); its files need none.
        if (relative(appDir, path) === "index.html")
          response.setHeader("content-security-policy", APP_CONTENT_SECURITY_POLICY);
      },
    });
  });
}

function isHashedAsset(appDir: string, path: string): boolean {
  return relative(appDir, path).startsWith(`assets${sep}`);
}

function notBuiltPage(appDir: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>chat-relay: the app is not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>The companion app is not built</h1>
<p>The server is running, but it found no <code>index.html</code> in <code>${escapeHtml(appDir)}</code>.</p>
<p>Build it: run <code>npm ci</code> at the top of the repository (it builds the app into <code>app/dist</code>), or the
build script in <code>app/</code> (docs/app.md), then restart the server and reload this page.
The HTTP API works meanwhile; every route but <code>/health</code> needs a token.</p>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
