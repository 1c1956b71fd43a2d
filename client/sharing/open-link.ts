// Opening a share link (docs/people.md "Share links"): the link's fragment `#/shared/<token>.<key>` names the sealed
// snapshot (`token`, sent to the server or the bridge as `GET /shared/<token>`) and the key that opens it (never sent
// anywhere). No pairing and no device token: anyone with the link may read what it shows, and nobody without it.
import { HttpApi, type FetchLike } from "../transport/http.ts";
import { callRoute } from "../api/call-route.ts";
import { CryptoError, fromBase64Url, openShareSnapshot } from "../wire/crypto/index.ts";
import {
  SHARE_KEY_PATTERN,
  SHARE_TOKEN_PATTERN,
  sharedBlobRoute,
  sharedSnapshotSchema,
  type SharedBlob,
  type SharedSnapshot,
} from "../wire/routes/share-links.ts";

/** A share link's two halves. */
export interface SharedLinkParts {
  token: string;
  /** base64url of the 32-byte key. */
  key: string;
}

/** The text is no share link, or its key does not open the blob (code `invalid_share_link`, docs/errors.md). */
export class SharedLinkError extends Error {
  override readonly name = "SharedLinkError";
  readonly code = "invalid_share_link";
}

/** The token and key of a share link (a whole URL, its `#/shared/…` fragment, or `<token>.<key>`); else undefined. */
export function parseSharedLink(link: string): SharedLinkParts | undefined {
  const hashAt = link.indexOf("#");
  const fragment = hashAt === -1 ? link : link.slice(hashAt + 1);
  const match = /^(?:\/?shared\/)?([^./]+)\.([^./]+)$/.exec(fragment.trim());
  if (!match) return undefined;
  const [, token, key] = match as unknown as [string, string, string];
  return SHARE_TOKEN_PATTERN.test(token) && SHARE_KEY_PATTERN.test(key) ? { token, key } : undefined;
}

/** The snapshot a blob holds, opened with the link's key and checked against the wire schema. */
export function openSharedBlob(parts: SharedLinkParts, blob: SharedBlob): SharedSnapshot {
  const key = fromBase64Url(parts.key, 32);
  if (!key) throw new SharedLinkError("the link's key is not 32 bytes of base64url");
  let json: unknown;
  try {
    json = JSON.parse(openShareSnapshot(key, parts.token, blob));
  } catch (error) {
    if (error instanceof CryptoError) throw new SharedLinkError("the link's key does not open this snapshot");
    throw new SharedLinkError("the snapshot is not JSON");
  }
  const parsed = sharedSnapshotSchema.safeParse(json);
  if (!parsed.success) throw new SharedLinkError(`the snapshot breaks its schema: ${parsed.error.message}`);
  return parsed.data;
}

export interface OpenSharedLinkOptions {
  /** The server's or the bridge's HTTP address (the app: where it was served from, or its app-config's). */
  baseUrl: string;
  fetch?: FetchLike;
  signal?: AbortSignal;
}

/**
 * Fetches and opens a share link. Throws SharedLinkError for text that is no link or a key that does not open it,
 * and the transport's ResponseError with code `share_link_not_found` (404) for a link that was revoked, has
 * expired or never existed (`rate_limited`, 429, when asked too often).
 */
export async function openSharedLink(link: string, options: OpenSharedLinkOptions): Promise<SharedSnapshot> {
  const parts = parseSharedLink(link);
  if (!parts) throw new SharedLinkError("not a share link: expected …#/shared/<token>.<key>");
  const http = new HttpApi({ baseUrl: options.baseUrl, token: "", ...(options.fetch ? { fetch: options.fetch } : {}) });
  const blob = await callRoute(
    http,
    sharedBlobRoute,
    { params: { token: parts.token } },
    options.signal ? { signal: options.signal } : {},
  );
  return openSharedBlob(parts, blob);
}
