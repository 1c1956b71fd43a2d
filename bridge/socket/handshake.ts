// What a socket presents when it connects: the protocol version and, for an app, its device token, either in the
// query (`?token=`) or as the 1.8 client's subprotocol `base64url.bearer.phx.<base64(token)>`.
import type { IncomingMessage } from "node:http";
import { parseVsn, type Vsn } from "../protocol/serializer.ts";

export const SOCKET_PATH = "/socket/websocket";
const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.phx.";

export type Handshake =
  { ok: true; vsn: Vsn; token: string | undefined } | { ok: false; status: number; problem: string };

export function readHandshake(request: IncomingMessage): Handshake {
  const url = parseTarget(request.url ?? "/");
  if (!url) return { ok: false, status: 400, problem: "bad request target" };
  if (url.pathname !== SOCKET_PATH) return { ok: false, status: 404, problem: "no such endpoint" };
  const vsn = parseVsn(url.searchParams.get("vsn"));
  if (!vsn) return { ok: false, status: 400, problem: "unsupported vsn" };
  const token =
    tokenFromProtocols(request.headers["sec-websocket-protocol"]) ?? url.searchParams.get("token") ?? undefined;
  if (token !== undefined && (token.length === 0 || token.length > 200))
    return { ok: false, status: 400, problem: "bad token" };
  return { ok: true, vsn, token };
}

/** The request target as a URL; undefined when it cannot parse (`GET http://[ HTTP/1.1`): a 400, never a throw. */
function parseTarget(target: string): URL | undefined {
  try {
    return new URL(target, "http://bridge");
  } catch {
    return undefined;
  }
}

function tokenFromProtocols(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const protocol of header.split(",").map((p) => p.trim())) {
    if (!protocol.startsWith(TOKEN_PROTOCOL_PREFIX)) continue;
    // The client encodes with btoa (standard base64) and strips '='; Buffer reads it without padding.
    return Buffer.from(protocol.slice(TOKEN_PROTOCOL_PREFIX.length), "base64").toString("utf8");
  }
  return undefined;
}

/** Answers `phoenix` when the client offers it (the 1.8 client requires it with a token subprotocol). */
export function chooseProtocol(protocols: Set<string>): string | false {
  return protocols.has("phoenix") ? "phoenix" : false;
}
