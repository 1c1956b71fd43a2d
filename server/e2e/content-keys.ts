// The content keys events are sealed with (docs/security.md "Keys and their lifecycle"): 32 random bytes each, ids counting up
// from 1 across every scope, kept in the server's database (0600). A scope is one person's (their id: their chats'
// events) or everyone's (EVERYONE: events for every person, such as application notifications for all). The newest
// key of a scope seals its new pushes; revoking a device adds a new key to its person's scope and to everyone's, so a
// revoked device, which can no longer fetch keys, reads nothing pushed after it, and nobody else's keys change. A
// chat's deletion adds a key to the scope of each of its people and withholds that scope's older keys from later
// fetches, so nothing sealed for them before the deletion opens with a key given after.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";

export interface ContentKey {
  keyId: number;
  key: Uint8Array;
}

/** The scope of the server-wide key every device gets (no person id is `*`: they are `per_…`). */
export const EVERYONE = "*";

/** How many of a scope's newest keys a device is given: enough for every event the bridge can still replay. */
export const KEYS_GIVEN = 100;

/** Meta key of a scope's oldest key still given to devices: a deletion withholds every key of the scope before it. */
const givenFromKey = (scope: string) => `content_keys_given_from:${scope}`;

export class ContentKeys {
  private readonly currentKeys = new Map<string, ContentKey>();
  private readonly meta: Meta;
  private readonly insert;
  private readonly recent;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.meta = new Meta(db);
    this.insert = db.prepare<[Buffer, number, string]>(
      "INSERT INTO content_keys (key, created_at, scope) VALUES (?, ?, ?)",
    );
    this.recent = db.prepare<[string, number, number], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys WHERE scope = ? AND key_id >= ? ORDER BY key_id DESC LIMIT ?",
    );
  }

  /** The key new pushes of `scope` are sealed with; a scope's first is made on first use. */
  current(scope: string): ContentKey {
    const known = this.currentKeys.get(scope);
    if (known) return known;
    const row = this.recent.get(scope, 0, 1);
    if (!row) return this.rotate(scope);
    const key = { keyId: row.key_id, key: new Uint8Array(row.key) };
    this.currentKeys.set(scope, key);
    return key;
  }

  /** Makes a new current key for `scope` (one of its devices was revoked, or its owner deleted a chat). */
  rotate(scope: string): ContentKey {
    const bytes = randomBytes(32);
    const keyId = Number(this.insert.run(bytes, this.now(), scope).lastInsertRowid);
    const key = { keyId, key: new Uint8Array(bytes) };
    this.currentKeys.set(scope, key);
    return key;
  }

  /**
   * A chat of this scope's person was deleted: a new current key, and no key of the scope before it is given to a
   * device again. The chat's events were sealed under those keys, and the bridge may still hold them (or a copy of
   * its replay may exist): a device that pairs, or fetches its keys, afterwards can open none of them. The devices
   * that hold the older keys already had the chat; other chats' events sealed under them are read over HTTP by such a
   * device (docs/security.md).
   */
  rotateForDeletion(scope: string): ContentKey {
    const key = this.rotate(scope);
    this.meta.set(givenFromKey(scope), String(key.keyId));
    return key;
  }

  /** The newest keys of `scope` still given, newest first. */
  recentKeys(scope: string, limit = KEYS_GIVEN): ContentKey[] {
    this.current(scope);
    const from = Number(this.meta.get(givenFromKey(scope)) ?? 0);
    return this.recent.all(scope, from, limit).map((row) => ({ keyId: row.key_id, key: new Uint8Array(row.key) }));
  }
}
