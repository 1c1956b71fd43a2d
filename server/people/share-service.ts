// Sharing a chat with a person (docs/people.md "Sharing"): the owner gives a live person `read` or `write` access, at
// most MAX_SHARES people per chat, changes it by sharing again, and takes it back. Gaining access publishes
// `session_access_granted` (with the chat as that person sees it) to that person only; losing it
// `session_access_revoked`, after which the event filter (VISIBLE_EVENT) gives their devices nothing more of the chat.
// Who may call (the owner) is the chat guard's: these routes are "manage" in server/http/session-access.ts.
import { MAX_SHARES, type ShareAccess } from "../../client/wire/routes/shares.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { ChatAudiences } from "./chat-audiences.ts";
import type { PeopleService } from "./people-service.ts";
import type { SessionViews } from "./session-views.ts";

export interface ShareServiceParts {
  db: Db;
  clock: Clock;
  audiences: ChatAudiences;
  people: PeopleService;
  events: EventStore;
  sessions: SessionService;
  views: SessionViews;
}

export class ShareService {
  private readonly upsert;
  private readonly remove;

  constructor(private readonly parts: ShareServiceParts) {
    this.upsert = parts.db.prepare<[string, string, ShareAccess, number]>(
      `INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id, person_id) DO UPDATE SET access = excluded.access`,
    );
    this.remove = parts.db.prepare<[string, string]>(
      "DELETE FROM session_shares WHERE session_id = ? AND person_id = ?",
    );
  }

  /** Shares the chat with a live person (or changes their access); the person hears of it once, when it starts. */
  share(sessionId: string, personId: string, access: ShareAccess): void {
    const audience = this.parts.audiences.of(sessionId);
    if (!audience) throw notFound("session_not_found", `no session "${sessionId}"`);
    if (personId === audience.owner_id)
      throw invalid("cannot_share_with_owner", "the chat already belongs to this person");
    this.parts.people.require(personId);
    const known = audience.shares.some((share) => share.person_id === personId);
    if (!known && audience.shares.length >= MAX_SHARES)
      throw conflict("too_many_shares", `a chat is shared with at most ${MAX_SHARES} people`);
    this.upsert.run(sessionId, personId, access, this.parts.clock.now());
    if (known) return;
    const session = this.parts.views.view(this.parts.sessions.get(sessionId), personId);
    this.parts.events.publish({ type: "session_access_granted", session_id: sessionId, session }, undefined, [
      personId,
    ]);
  }

  /** Takes the chat back from a person: their devices get `session_access_revoked` and nothing of it after. */
  unshare(sessionId: string, personId: string): void {
    if (this.remove.run(sessionId, personId).changes === 0)
      throw notFound("person_not_found", `the chat is not shared with "${personId}"`);
    this.parts.events.publish({ type: "session_access_revoked", session_id: sessionId }, undefined, [personId]);
  }
}
