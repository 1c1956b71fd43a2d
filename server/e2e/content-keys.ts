// The content keys events are sealed with (docs/security.md "Keys and their lifecycle"): 32 random bytes each, ids counting up
// from 1, kept in the server's database (0600). The newest seals new pushes; a revocation adds a new one, so a
// revoked device, which can no longer fetch keys, reads nothing pushed after it.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";

export interface ContentKey {
  keyId: number;
  key: Uint8Array;
}

/** How many of the newest keys a device is given: enough for every event the bridge can still replay. */
export const KEYS_GIVEN = 100;

export class ContentKeys {
  private currentKey: ContentKey | undefined;
  private readonly insert;
  private readonly newest;
  private readonly recent;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare<[Buffer, number]>("INSERT INTO content_keys (key, created_at) VALUES (?, ?)");
    this.newest = db.prepare<[], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys ORDER BY key_id DESC LIMIT 1",
    );
    this.recent = db.prepare<[number], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys ORDER BY key_id DESC LIMIT ?",
    );
  }

  /** The key new pushes are sealed with; the first is made on first use. */
  current(): ContentKey {
    if (this.currentKey) return this.currentKey;
    const row = this.newest.get();
    if (!row) return this.rotate();
    return (this.currentKey = { keyId: row.key_id, key: new Uint8Array(row.key) });
  }

  /** Makes a new current key (a device was revoked). */
  rotate(): ContentKey {
    const key = randomBytes(32);
    const keyId = Number(this.insert.run(key, this.now()).lastInsertRowid);
    return (this.currentKey = { keyId, key: new Uint8Array(key) });
  }

  /** The newest keys, newest first. */
  recentKeys(limit = KEYS_GIVEN): ContentKey[] {
    this.current();
    return this.recent.all(limit).map((row) => ({ keyId: row.key_id, key: new Uint8Array(row.key) }));
  }
}
