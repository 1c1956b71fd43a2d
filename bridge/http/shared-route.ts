// GET /shared/{token} on the bridge (docs/bridge.md "Share links"): what the server's own route answers
// (server/http/routes/share-links.ts), so a phone that reaches only the bridge opens a share link too. No credential;
// each address may read RATE.perAddress times per window (429 rate_limited with Retry-After, as the server); a
// token that is not one, and every link that is not live, is the same 404 share_link_not_found body as the server's;
// the blob itself comes from the server on every read (sharing/shared-blobs.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { SHARE_LINK_GONE_MESSAGE, SHARE_TOKEN_PATTERN } from "../../client/wire/routes/share-links.ts";
import type { Clock } from "../clock.ts";
import { AddressRateLimiter } from "../rate-limiter.ts";
import { peerAddress } from "../socket/peer-address.ts";
import type { SharedBlobs } from "../sharing/shared-blobs.ts";

export const SHARED_PATH_PREFIX = "/shared/";

/** The server's budget (server/sharing/read-limiter.ts): 60 reads per address per minute, 10,000 addresses. */
const RATE = { perAddress: 60, windowMs: 60_000, maxAddresses: 10_000 };

/** The type and cache rule the server answers with (JSON text, never kept by a cache on the way). */
const JSON_TYPE = "application/json; charset=utf-8";

export function sharedRoute(blobs: SharedBlobs, clock: Clock) {
  const reads = new AddressRateLimiter(
    clock,
    RATE.perAddress,
    Number.MAX_SAFE_INTEGER,
    RATE.windowMs,
    RATE.maxAddresses,
  );
  return async (request: IncomingMessage, response: ServerResponse, path: string): Promise<void> => {
    const address = peerAddress(request.socket.remoteAddress);
    if (reads.limited(address)) {
      const wait = reads.secondsLeft();
      return answer(
        request,
        response,
        429,
        errorText("rate_limited", "too many share link reads from this address", {
          retry_after: wait,
        }),
        { "retry-after": String(wait) },
      );
    }
    reads.record(address);
    const token = path.slice(SHARED_PATH_PREFIX.length);
    const read = SHARE_TOKEN_PATTERN.test(token) ? await blobs.read(token) : { kind: "not_found" as const };
    if (read.kind === "found") return answer(request, response, 200, read.text);
    if (read.kind === "not_found")
      return answer(request, response, 404, errorText("share_link_not_found", SHARE_LINK_GONE_MESSAGE));
    return answer(
      request,
      response,
      503,
      errorText("share_link_unavailable", "no server that could hold this link answered the bridge; try again soon"),
      { "retry-after": "5" },
    );
  };
}

/** The one error body (docs/errors.md), as the server's error handler writes it. */
function errorText(code: string, message: string, details?: unknown): string {
  return JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } });
}

function answer(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, {
    "content-type": JSON_TYPE,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    // As the server's CORS hook: a page of another origin may read it (no credential is involved).
    ...(request.headers.origin ? { "access-control-allow-origin": "*" } : {}),
    ...extra,
  });
  response.end(body);
}
