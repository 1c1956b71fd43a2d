// Which chats were imported, and as which session (table imported_chats): a chat is imported once per source id,
// an export of an imported session keeps the source id it came with, and a fork finds its source's new session.
import type { Db } from "../db/database.ts";

export class ImportLedger {
  private readonly bySource;
  private readonly bySession;
  private readonly byOriginal;
  private readonly upsert;

  constructor(db: Db) {
    this.bySource = db.prepare<[string], { session_id: string }>(
      "SELECT session_id FROM imported_chats WHERE source_id = ?",
    );
    this.bySession = db.prepare<[string], { source_id: string }>(
      "SELECT source_id FROM imported_chats WHERE session_id = ? LIMIT 1",
    );
    this.byOriginal = db.prepare<[string], { session_id: string }>(
      "SELECT session_id FROM imported_chats WHERE original_id = ? ORDER BY imported_at DESC LIMIT 1",
    );
    this.upsert = db.prepare<[string, string, string | null, number]>(
      `INSERT INTO imported_chats (source_id, session_id, original_id, imported_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (source_id) DO UPDATE SET
         session_id = excluded.session_id, original_id = excluded.original_id, imported_at = excluded.imported_at`,
    );
  }

  /** The session a source id was imported as (it may have been deleted since). */
  sessionOf(sourceId: string): string | undefined {
    return this.bySource.get(sourceId)?.session_id;
  }

  /** The source id a session was imported from, if it was imported. */
  sourceOf(sessionId: string): string | undefined {
    return this.bySession.get(sessionId)?.source_id;
  }

  /** The session imported from the session that had `originalId` where it came from. */
  sessionFromOriginal(originalId: string): string | undefined {
    return this.byOriginal.get(originalId)?.session_id;
  }

  /** Notes an import; a source imported again after its session was deleted points at the new one. */
  record(sourceId: string, sessionId: string, originalId: string | undefined, at: number): void {
    this.upsert.run(sourceId, sessionId, originalId ?? null, at);
  }
}
