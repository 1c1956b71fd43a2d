// Share links (docs/people.md "Share links"): the owner of a chat makes a link to a snapshot of it. The server draws
// the link's token (128 random bits) and key (256), seals the snapshot under the key (XChaCha20-Poly1305, bound to
// the token), stores only the sealed blob and gives the key out once, in the link's fragment; it keeps no copy.
// Who may call (the owner) is the chat guard's: these routes are "manage" in server/http/session-access.ts.
import { randomBytes } from "node:crypto";
import { sealShareSnapshot, toBase64Url } from "../../client/wire/crypto/index.ts";
import {
  DEFAULT_SHARE_LINK_SECONDS,
  MAX_SHARE_LINKS,
  MAX_SHARE_SNAPSHOT_BYTES,
  SHARE_LINK_GONE_MESSAGE,
  type ShareLink,
  type ShareLinkCreated,
} from "../../client/wire/routes/share-links.ts";
import type { Clock } from "../clock.ts";
import { conflict, notFound, tooLarge } from "../errors.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { buildSnapshot, type AssetReader } from "./snapshot.ts";
import type { BlobPart, ShareLinkRow, ShareLinkStore } from "./share-link-store.ts";

export interface ShareLinkServiceParts {
  store: ShareLinkStore;
  clock: Clock;
  sessions: Pick<SessionService, "get">;
  /** The chat's owner's id and name (the chat guard has checked the caller is that owner). */
  ownerOf(sessionId: string): { id: string; name: string };
  /** A stored image of the chat (its own or its fork source's). */
  readAsset(sessionId: string, assetId: string): ReturnType<AssetReader>;
  /** `<app url>`: where the link opens the app. */
  appUrl(): string;
}

export class ShareLinkService {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly parts: ShareLinkServiceParts) {}

  create(sessionId: string, expiresIn: number = DEFAULT_SHARE_LINK_SECONDS): ShareLinkCreated {
    const now = this.parts.clock.now();
    this.parts.store.purge(now);
    if (this.parts.store.ofSession(sessionId, now).length >= MAX_SHARE_LINKS)
      throw conflict("too_many_share_links", `a chat has at most ${MAX_SHARE_LINKS} live share links`);
    const owner = this.parts.ownerOf(sessionId);
    const snapshot = buildSnapshot(this.parts.sessions.get(sessionId), owner.name, new Date(now).toISOString(), (id) =>
      this.parts.readAsset(sessionId, id),
    );
    const json = JSON.stringify(snapshot);
    if (Buffer.byteLength(json) > MAX_SHARE_SNAPSHOT_BYTES)
      throw tooLarge("share_snapshot_too_large", `the chat's snapshot exceeds ${MAX_SHARE_SNAPSHOT_BYTES} bytes`, {
        max_bytes: MAX_SHARE_SNAPSHOT_BYTES,
      });
    const token = toBase64Url(randomBytes(16));
    const key = randomBytes(32);
    const blob = JSON.stringify({ v: 1, ...sealShareSnapshot(key, token, json) });
    const expiresAt = now + expiresIn * 1000;
    this.parts.store.insert({
      token,
      session_id: sessionId,
      owner_id: owner.id,
      created_at: now,
      expires_at: expiresAt,
      blob,
    });
    this.changed();
    return { url: linkUrl(this.parts.appUrl(), token, toBase64Url(key)), token, expires_at: iso(expiresAt) };
  }

  list(sessionId: string): ShareLink[] {
    return this.parts.store.ofSession(sessionId, this.parts.clock.now()).map(viewOf);
  }

  revoke(sessionId: string, token: string): void {
    if (!this.parts.store.revoke(sessionId, token, this.parts.clock.now()))
      throw notFound("share_link_not_found", "this chat has no live share link with this token");
    this.changed();
  }

  /** A live link's sealed blob (JSON text); 404 share_link_not_found for every other token, alike. */
  blob(token: string): string {
    const blob = this.parts.store.blob(token, this.parts.clock.now());
    if (blob === undefined) throw notFound("share_link_not_found", SHARE_LINK_GONE_MESSAGE);
    return blob;
  }

  /** A part of a live link's sealed blob, for the bridge (undefined for every other token, alike). */
  blobPart(token: string, offset: number, length: number): BlobPart | undefined {
    return this.parts.store.blobPart(token, this.parts.clock.now(), offset, length);
  }

  /** The newest `limit` live links (token and expiry), for the bridge. */
  live(limit: number): ShareLinkRow[] {
    return this.parts.store.live(this.parts.clock.now(), limit);
  }

  /** Calls `listener` after every change of the live set this service makes; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Something outside ended links (a chat deleted or transferred, a person removed): the dead rows go, and the
   * listeners hear of it.
   */
  changed(): void {
    this.parts.store.purge(this.parts.clock.now());
    for (const listener of this.listeners) listener();
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function viewOf(row: ShareLinkRow): ShareLink {
  return { token: row.token, created_at: iso(row.created_at), expires_at: iso(row.expires_at) };
}

/** `<app url>#/shared/<token>.<key>` (any fragment the app url had is replaced). */
export function linkUrl(appUrl: string, token: string, key: string): string {
  const url = new URL(appUrl);
  url.hash = `/shared/${token}.${key}`;
  return url.toString();
}
