// Where an app finds this server and its bridge: told to the app in POST /pairing (as a QR code) and in the
// pairing reply. The config's server.public_url wins; otherwise the addresses the processes listen on (DESIGN.md env).
import type { ServerContext } from "../context.ts";

export interface PairingUrls {
  bridgeUrl: string;
  serverUrl: string;
}

export const DEFAULT_BRIDGE_URL = "ws://127.0.0.1:4000/socket";

export function pairingUrls(ctx: ServerContext, env: NodeJS.ProcessEnv = process.env): PairingUrls {
  const host = env.HOST || "127.0.0.1";
  const port = env.PORT || "8787";
  return {
    bridgeUrl: env.BRIDGE_URL ?? DEFAULT_BRIDGE_URL,
    serverUrl: ctx.config.server.public_url ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
  };
}
