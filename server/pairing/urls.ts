// Where an app finds this server and its bridge: told to the app in POST /pairing (the pair_url behind the QR
// code) and, through the forwarder, in the bridge's pairing reply. The config's server.public_url and
// BRIDGE_PUBLIC_URL win. Otherwise the addresses the processes listen on, except that a wildcard HOST (0.0.0.0,
// ::) is no address a phone can dial: the machine's LAN address stands in for it (docs/client.md "Pairing").
import { networkInterfaces } from "node:os";
import type { ServerContext } from "../context.ts";

export interface PairingUrls {
  bridgeUrl: string;
  serverUrl: string;
  /** Where pair_url opens the app (the config's server.app_url); unset: serverUrl, as the server serves the app. */
  appUrl?: string;
}

export interface AdvertiseInput {
  /** HOST: what the server and the bridge listen on. */
  host: string;
  /** http://HOST:PORT, where the server listens. */
  serverUrl: string;
  /** BRIDGE_URL, where the server finds the bridge ("" for none). */
  bridgeUrl: string;
  /** The config's server.public_url. */
  publicUrl?: string | undefined;
  /** BRIDGE_PUBLIC_URL. */
  bridgePublicUrl?: string | undefined;
  /** The machine's LAN address; defaults to the first non-internal IPv4 of os.networkInterfaces(). */
  lanAddress?: () => string | undefined;
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "[::]"]);

/** The URLs handed to apps. */
export function advertisedUrls(input: AdvertiseInput): PairingUrls {
  const wildcard = WILDCARD_HOSTS.has(input.host);
  const lan = wildcard ? (input.lanAddress ?? firstLanAddress)() : undefined;
  return {
    serverUrl: input.publicUrl ?? (lan ? withHost(input.serverUrl, lan, WILDCARD_HOSTS) : input.serverUrl),
    bridgeUrl:
      input.bridgePublicUrl ?? (lan && input.bridgeUrl ? withHost(input.bridgeUrl, lan, LOCAL_HOSTS) : input.bridgeUrl),
  };
}

/** The first non-internal IPv4 address of this machine, or undefined when it has none (offline, loopback only). */
export function firstLanAddress(
  interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces(),
): string | undefined {
  for (const addresses of Object.values(interfaces)) {
    const found = addresses?.find((address) => address.family === "IPv4" && !address.internal);
    if (found) return found.address;
  }
  return undefined;
}

/** `url` with its host replaced by `host` when the current one is in `replaceable`; otherwise unchanged. */
function withHost(url: string, host: string, replaceable: ReadonlySet<string>): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!replaceable.has(parsed.hostname)) return url;
  parsed.hostname = host;
  // URL keeps a trailing "/" on an empty path; the configured form had none.
  return url.endsWith("/") ? parsed.toString() : parsed.toString().replace(/\/$/, "");
}

export function pairingUrls(ctx: Pick<ServerContext, "urls">): PairingUrls {
  return {
    bridgeUrl: ctx.urls.bridgePublic ?? ctx.urls.bridge,
    serverUrl: ctx.urls.server,
    ...(ctx.urls.app ? { appUrl: ctx.urls.app } : {}),
  };
}
