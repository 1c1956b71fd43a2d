// What the server tells the bridge its `GET /app-config.json` answers, sent with every join of its link: a bridge that
// serves the server's app (`server.app_url` on the bridge) answers it too, so an app opened there finds its server
// and bridge without a link's parameters (docs/bridge.md "App config"). Never a key: only public URLs and the id.
import { appConfigSchema, type AppConfig } from "../../client/wire/app-config.ts";
import type { Config } from "../config/schema.ts";
import type { ServerContext } from "../context.ts";
import { pairingUrls } from "../pairing/urls.ts";

/**
 * The server's app config; undefined when its URLs do not make one (the join then goes without it). `linkUrl`, where
 * the forwarder reaches the bridge, stands in for a bridge URL the server's own settings do not give.
 */
export function linkAppConfig(
  ctx: Pick<ServerContext, "urls" | "serverId"> & { config?: Pick<Config, "offline"> },
  linkUrl: string,
): AppConfig | undefined {
  const urls = pairingUrls(ctx);
  const offline = ctx.config?.offline;
  const config = {
    server_id: ctx.serverId,
    server_url: urls.serverUrl,
    bridge_url: urls.bridgeUrl === "" ? linkUrl : urls.bridgeUrl,
    app_url: urls.appUrl ?? `${urls.serverUrl.replace(/\/+$/, "")}/`,
    ...(offline ? { offline: { max_mb: offline.max_mb } } : {}),
  };
  const parsed = appConfigSchema.safeParse(config);
  return parsed.success ? parsed.data : undefined;
}
