// GET /app-config.json (no token): where the app served from here finds its server and bridge, so a pairing screen
// is right with any BRIDGE_PORT, BRIDGE_PUBLIC_URL or server.app_url (docs/security.md "What the app is told"). The
// body follows client/wire/app-config.ts. It names no secret: never a token, never a key (a key the app did not get
// from the QR code or the printed link is confirmed by its fingerprint). Contract: client/wire/routes/app-config.ts.
import type { FastifyInstance } from "fastify";
import { appConfigSchema, type AppConfig } from "../../../client/wire/app-config.ts";
import { appConfigRoute } from "../../../client/wire/routes/app-config.ts";
import type { Config } from "../../config/schema.ts";
import type { ServerContext } from "../../context.ts";
import { pairingUrls } from "../../pairing/urls.ts";
import { serveRoute } from "../serve-route.ts";

export function appConfigOf(
  ctx: Pick<ServerContext, "serverId" | "urls"> & { config?: Pick<Config, "offline"> },
): AppConfig {
  const urls = pairingUrls(ctx);
  const offline = ctx.config?.offline;
  return appConfigSchema.parse({
    server_id: ctx.serverId,
    server_url: urls.serverUrl,
    bridge_url: urls.bridgeUrl === "" ? null : urls.bridgeUrl,
    app_url: urls.appUrl ?? urls.serverUrl,
    ...(offline ? { offline: { max_mb: offline.max_mb } } : {}),
  });
}

export function registerAppConfigRoute(app: FastifyInstance, ctx: ServerContext): void {
  // Computed once: every value is fixed at start (a change of `offline` through Settings is told after a restart). The contract is open: served without a token, like the app's files.
  const body = JSON.stringify(appConfigOf(ctx));
  serveRoute(app, appConfigRoute, ({ reply }) =>
    reply.type("application/json; charset=utf-8").header("cache-control", "no-cache").send(body),
  );
}
