// Who a chat is for (docs/people.md "Access"): its owner and its shares, read from the sessions and session_shares
// tables. access.ts decides what each may do; this reads the rows it decides on. VISIBLE_SESSIONS is the same rule as
// SQL, for the queries that filter inside the database (the session list, GET /events, search, export).
import type { Db } from "../db/database.ts";
import { accessOf, type ChatAccess, type ChatAudience, type ShareAccess } from "./access.ts";

/** The ids of every session (deleted ones too) person `@person` may see: owned or shared with them. */
export const VISIBLE_SESSIONS = `SELECT id FROM sessions WHERE owner_id = @person
  UNION ALL SELECT session_id FROM session_shares WHERE person_id = @person`;

/**
 * Whether person `@person` may read an event row of the `events` table (docs/people.md "Events"): an event with an
 * audience is for exactly those people (a session_access_* event, an application notification for some); else a
 * session event follows its session's audience and an event of no session is everyone's.
 */
export const VISIBLE_EVENT = `(CASE
  WHEN audience IS NOT NULL THEN EXISTS (SELECT 1 FROM json_each(audience) WHERE value = @person)
  WHEN session_id IS NULL THEN 1
  ELSE session_id IN (${VISIBLE_SESSIONS}) END)`;

export interface ShareRow {
  person_id: string;
  access: ShareAccess;
}

export class ChatAudiences {
  private readonly selectOwner;
  private readonly selectShares;
  private readonly setOwner;

  constructor(private readonly db: Db) {
    this.selectOwner = db.prepare<[string], { owner_id: string | null }>("SELECT owner_id FROM sessions WHERE id = ?");
    this.selectShares = db.prepare<[string], ShareRow>(
      "SELECT person_id, access FROM session_shares WHERE session_id = ? ORDER BY created_at, person_id",
    );
    this.setOwner = db.prepare<[string, string]>("UPDATE sessions SET owner_id = ? WHERE id = ?");
  }

  /** The chat's owner and shares; undefined for an unknown session. */
  of(sessionId: string): ChatAudience | undefined {
    const row = this.selectOwner.get(sessionId);
    if (!row || row.owner_id === null) return undefined;
    return { owner_id: row.owner_id, shares: this.selectShares.all(sessionId) };
  }

  /** What `personId` holds on the chat ("none" for an unknown session). */
  accessOf(personId: string, sessionId: string): ChatAccess {
    const audience = this.of(sessionId);
    return audience ? accessOf(personId, audience) : "none";
  }

  /** Gives the chat to another owner (a removed person's chats, transferred); a share the new owner held goes. */
  transfer(sessionId: string, toPersonId: string): void {
    this.setOwner.run(toPersonId, sessionId);
    this.db.prepare("DELETE FROM session_shares WHERE session_id = ? AND person_id = ?").run(sessionId, toPersonId);
  }

  /** Ids of the live chats a person owns. */
  ownedBy(personId: string): string[] {
    return this.db
      .prepare<[string], { id: string }>("SELECT id FROM sessions WHERE owner_id = ? AND deleted_at IS NULL")
      .all(personId)
      .map((row) => row.id);
  }

  /** Drops every share a person holds (they were removed). */
  dropSharesOf(personId: string): string[] {
    const sessions = this.db
      .prepare<[string], { session_id: string }>("SELECT session_id FROM session_shares WHERE person_id = ?")
      .all(personId)
      .map((row) => row.session_id);
    this.db.prepare("DELETE FROM session_shares WHERE person_id = ?").run(personId);
    return sessions;
  }
}
