// The content keys events are sealed with (docs/security.md "Keys and their lifecycle"): 32 random bytes each, ids counting up
// from 1, kept in the server's database (0600). The newest seals new pushes; a revocation adds a new one, so a
// revoked device, which can no longer fetch keys, reads nothing pushed after it; a chat's deletion adds one and
// withholds every older key from later fetches, so nothing sealed before the deletion opens with a key given after.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";

export interface ContentKey {
  keyId: number;
  key: Uint8Array;
}

/** How many of the newest keys a device is given: enough for every event the bridge can still replay. */
export const KEYS_GIVEN = 100;

/** Meta key of the oldest key still given to devices: a deletion withholds every key before its own. */
const GIVEN_FROM_KEY = "content_keys_given_from";

export class ContentKeys {
  private currentKey: ContentKey | undefined;
  private readonly meta: Meta;
  private readonly insert;
  private readonly newest;
  private readonly recent;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.meta = new Meta(db);
    this.insert = db.prepare<[Buffer, number]>("INSERT INTO content_keys (key, created_at) VALUES (?, ?)");
    this.newest = db.prepare<[], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys ORDER BY key_id DESC LIMIT 1",
    );
    this.recent = db.prepare<[number, number], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys WHERE key_id >= ? ORDER BY key_id DESC LIMIT ?",
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

  /**
   * A chat was deleted: a new current key, and no key before it is given to a device again. Its events were sealed
   * under those keys, and the bridge may still hold them (or a copy of its replay may exist): a device that pairs,
   * or fetches its keys, afterwards can open none of them. The devices that hold the older keys already had the
   * chat. Other chats' events sealed under them are read over HTTP by such a device (docs/security.md).
   */
  rotateForDeletion(): ContentKey {
    const key = this.rotate();
    this.meta.set(GIVEN_FROM_KEY, String(key.keyId));
    return key;
  }

  /** The newest keys still given, newest first. */
  recentKeys(limit = KEYS_GIVEN): ContentKey[] {
    this.current();
    const from = Number(this.meta.get(GIVEN_FROM_KEY) ?? 0);
    return this.recent.all(from, limit).map((row) => ({ keyId: row.key_id, key: new Uint8Array(row.key) }));
  }
}
