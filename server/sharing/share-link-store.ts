// The share_links table (docs/people.md "Share links"): one row per link, holding its sealed snapshot and the person
// who made it. Whether a link is live is decided in SQL, in one place (LIVE): not expired, its chat not deleted, and
// the chat still owned by the person who made the link, so deleting or transferring the chat, or removing its owner,
// ends its links at once without a write here; `purge` then drops the rows that are no longer live.
import type { Db } from "../db/database.ts";

export interface ShareLinkRow {
  token: string;
  session_id: string;
  created_at: number;
  expires_at: number;
}

/** A piece of a blob (the bridge fetches blobs in parts: server/forwarder/share-answers.ts). */
export interface BlobPart {
  total: number;
  text: string;
}

/** The live rows: `@now` is the clock's time in ms. */
const LIVE = `FROM share_links l JOIN sessions s ON s.id = l.session_id
  WHERE l.expires_at > @now AND s.deleted_at IS NULL AND s.owner_id = l.owner_id`;

export class ShareLinkStore {
  private readonly insertRow;
  private readonly selectBlob;
  private readonly selectPart;
  private readonly selectOfSession;
  private readonly selectAllLive;
  private readonly deleteRow;
  private readonly deleteDead;

  constructor(db: Db) {
    this.insertRow = db.prepare<[string, string, string, number, number, string]>(
      "INSERT INTO share_links (token, session_id, owner_id, created_at, expires_at, blob) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.selectBlob = db.prepare<[{ now: number; token: string }], { blob: string }>(
      `SELECT l.blob ${LIVE} AND l.token = @token`,
    );
    // SQLite cuts the part (substr counts characters from 1): the row's whole blob never comes into JS for a part.
    this.selectPart = db.prepare<[{ now: number; token: string; offset: number; length: number }], BlobPart>(
      `SELECT length(l.blob) AS total, substr(l.blob, @offset + 1, @length) AS text ${LIVE} AND l.token = @token`,
    );
    this.selectOfSession = db.prepare<[{ now: number; session: string }], ShareLinkRow>(
      `SELECT l.token, l.session_id, l.created_at, l.expires_at ${LIVE} AND l.session_id = @session
       ORDER BY l.created_at, l.token`,
    );
    this.selectAllLive = db.prepare<[{ now: number; limit: number }], ShareLinkRow>(
      `SELECT l.token, l.session_id, l.created_at, l.expires_at ${LIVE} ORDER BY l.created_at DESC LIMIT @limit`,
    );
    this.deleteRow = db.prepare<[{ now: number; token: string; session: string }]>(
      `DELETE FROM share_links WHERE token = @token AND token IN (SELECT l.token ${LIVE} AND l.session_id = @session)`,
    );
    this.deleteDead = db.prepare<[{ now: number }]>(
      `DELETE FROM share_links WHERE token NOT IN (SELECT l.token ${LIVE})`,
    );
  }

  insert(row: ShareLinkRow & { owner_id: string; blob: string }): void {
    this.insertRow.run(row.token, row.session_id, row.owner_id, row.created_at, row.expires_at, row.blob);
  }

  /** The sealed blob of a live link; undefined for any other token. */
  blob(token: string, now: number): string | undefined {
    return this.selectBlob.get({ now, token })?.blob;
  }

  /** `length` characters of a live link's blob from `offset` (empty past its end), with its length; else undefined. */
  blobPart(token: string, now: number, offset: number, length: number): BlobPart | undefined {
    return this.selectPart.get({ now, token, offset, length });
  }

  /** The chat's live links, oldest first. */
  ofSession(sessionId: string, now: number): ShareLinkRow[] {
    return this.selectOfSession.all({ now, session: sessionId });
  }

  /** The newest `limit` live links of every chat (what the bridge is told it may serve). */
  live(now: number, limit: number): ShareLinkRow[] {
    return this.selectAllLive.all({ now, limit });
  }

  /** Deletes a live link of the chat; false when the chat has no live link with this token. */
  revoke(sessionId: string, token: string, now: number): boolean {
    return this.deleteRow.run({ now, token, session: sessionId }).changes > 0;
  }

  /** Drops every row that is no longer live (expired, chat deleted or transferred, owner removed). */
  purge(now: number): number {
    return this.deleteDead.run({ now }).changes;
  }
}
