// Where an app finds this server and its bridge: told to the app in POST /pairing (as a QR code) and in the
// pairing reply. The config's server.public_url wins; otherwise the addresses the processes listen on (DESIGN.md env).
import type { ServerContext } from "../context.ts";

export interface PairingUrls {
  bridgeUrl: string;
  serverUrl: string;
}

export function pairingUrls(ctx: Pick<ServerContext, "urls">): PairingUrls {
  return { bridgeUrl: ctx.urls.bridge, serverUrl: ctx.urls.server };
}
