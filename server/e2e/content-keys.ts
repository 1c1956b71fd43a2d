// The content keys events are sealed with (docs/security.md "Keys per person"): 32 random bytes each, ids counting up
// from 1 across every scope, kept in the server's database (0600). A scope is one person's (their id: their chats'
// events) or everyone's (EVERYONE: events for every person, such as application notifications for all). The newest
// key of a scope seals its new pushes; revoking a device adds a new key to its person's scope and to everyone's, so a
// revoked device, which can no longer fetch keys, reads nothing pushed after it, and nobody else's keys change.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.ts";

export interface ContentKey {
  keyId: number;
  key: Uint8Array;
}

/** The scope of the server-wide key every device gets (no person id is `*`: they are `per_…`). */
export const EVERYONE = "*";

/** How many of a scope's newest keys a device is given: enough for every event the bridge can still replay. */
export const KEYS_GIVEN = 100;

export class ContentKeys {
  private readonly currentKeys = new Map<string, ContentKey>();
  private readonly insert;
  private readonly recent;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare<[Buffer, number, string]>(
      "INSERT INTO content_keys (key, created_at, scope) VALUES (?, ?, ?)",
    );
    this.recent = db.prepare<[string, number], { key_id: number; key: Buffer }>(
      "SELECT key_id, key FROM content_keys WHERE scope = ? ORDER BY key_id DESC LIMIT ?",
    );
  }

  /** The key new pushes of `scope` are sealed with; a scope's first is made on first use. */
  current(scope: string): ContentKey {
    const known = this.currentKeys.get(scope);
    if (known) return known;
    const row = this.recent.get(scope, 1);
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

  /** The newest keys of `scope`, newest first. */
  recentKeys(scope: string, limit = KEYS_GIVEN): ContentKey[] {
    this.current(scope);
    return this.recent.all(scope, limit).map((row) => ({ keyId: row.key_id, key: new Uint8Array(row.key) }));
  }
}
