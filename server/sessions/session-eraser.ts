// Deleting a session's stored content (docs/sessions.md "Delete"): its versions, its message rows, and the message
// bodies no other session refers to (a fork shares its source's bodies, so those stay while the fork lives). The
// sessions row stays, marked deleted_at, with its source_session_id: a fork still finds the sessions it came from,
// whose attachments it may use, and the asset store can tell when nothing live descends from a deleted session.
import type { Db } from "../db/database.ts";
import { overwritingFreedSpace } from "../db/secure-delete.ts";
import type { MessageLog } from "./message-log.ts";

export class SessionEraser {
  private readonly bodiesOf;
  private readonly deleteRows;
  private readonly deleteOrphanBody;
  private readonly deleteVersions;
  private readonly markDeleted;
  private readonly sourceOf;
  private readonly liveDescendant;
  private readonly deletedAt;
  private readonly deleteClientIds;

  constructor(
    private readonly db: Db,
    private readonly messages: MessageLog,
  ) {
    this.bodiesOf = db.prepare<[string], { message_id: number }>(
      "SELECT DISTINCT message_id FROM session_messages WHERE session_id = ?",
    );
    this.deleteRows = db.prepare<[string]>("DELETE FROM session_messages WHERE session_id = ?");
    this.deleteOrphanBody = db.prepare<[number, number]>(
      "DELETE FROM message_bodies WHERE id = ? AND NOT EXISTS (SELECT 1 FROM session_messages WHERE message_id = ?)",
    );
    this.deleteVersions = db.prepare<[string]>("DELETE FROM session_versions WHERE session_id = ?");
    this.markDeleted = db.prepare<[number, string]>(
      "UPDATE sessions SET deleted_at = coalesce(deleted_at, ?), head_version = 0, summary = NULL WHERE id = ?",
    );
    this.sourceOf = db.prepare<[string], { source_session_id: string | null }>(
      "SELECT source_session_id FROM sessions WHERE id = ?",
    );
    this.liveDescendant = db.prepare<[string], { found: number }>(
      `WITH RECURSIVE descendants(id) AS (
         SELECT id FROM sessions WHERE source_session_id = ?
         UNION SELECT s.id FROM sessions s JOIN descendants d ON s.source_session_id = d.id
       ) SELECT 1 AS found FROM descendants d JOIN sessions s ON s.id = d.id WHERE s.deleted_at IS NULL LIMIT 1`,
    );
    this.deletedAt = db.prepare<[string], { deleted_at: number | null }>(
      "SELECT deleted_at FROM sessions WHERE id = ?",
    );
    // The client ids live as long as the chat (server/runner/client-request-ids.ts).
    const [requests, sessions] = ["client_requests", "client_sessions"].map((table) =>
      db.prepare<[string]>(`DELETE FROM ${table} WHERE session_id = ?`),
    );
    this.deleteClientIds = (sessionId: string) => {
      requests!.run(sessionId);
      sessions!.run(sessionId);
    };
  }

  /**
   * Call inside a transaction: a crash leaves the session whole or gone, never half erased. The caller's other
   * deletions of the session's content (its events' bodies) go inside `alsoOverwrite`, so they are zeroed too.
   */
  erase(sessionId: string, now: number, alsoOverwrite: () => void = () => {}): void {
    overwritingFreedSpace(this.db, () => {
      const bodies = this.bodiesOf.all(sessionId).map((row) => row.message_id);
      this.deleteRows.run(sessionId);
      for (const id of bodies) this.deleteOrphanBody.run(id, id);
      this.deleteVersions.run(sessionId);
      this.markDeleted.run(now, sessionId);
      this.deleteClientIds(sessionId);
      alsoOverwrite();
      this.messages.evict(bodies);
    });
  }

  /** The session, then each session it was forked from, nearest first; deleted ones included, cycles cut. */
  lineage(sessionId: string): string[] {
    const chain = [sessionId];
    let source = this.sourceOf.get(sessionId)?.source_session_id ?? null;
    while (source !== null && !chain.includes(source)) {
      chain.push(source);
      source = this.sourceOf.get(source)?.source_session_id ?? null;
    }
    return chain;
  }

  hasLiveDescendant(sessionId: string): boolean {
    return this.liveDescendant.get(sessionId) !== undefined;
  }

  isDeleted(sessionId: string): boolean {
    return (this.deletedAt.get(sessionId)?.deleted_at ?? null) !== null;
  }

  /** A point query, without reading the session's messages. */
  isLive(sessionId: string): boolean {
    const row = this.deletedAt.get(sessionId);
    return row !== undefined && row.deleted_at === null;
  }
}
