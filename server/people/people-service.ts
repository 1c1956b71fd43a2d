// People's lifecycle (docs/people.md "People"): adding, changing and removing a person, with the rules that keep a
// server usable: there is always a live admin (409 last_admin), a removed person's devices are revoked at once and
// their chats deleted or transferred (the caller's required choice), and the limits each person's requests meet
// (allowed agents, a daily request count).
import type { Person } from "../../client/wire/routes/people.ts";
import type { Caller } from "../auth/caller.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { conflict, forbidden, notFound, tooMany } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import { deleteChat, type ChatDeletionParts } from "../sessions/delete-chat.ts";
import { agentAllowed } from "./access.ts";
import type { AuditLog } from "./audit-log.ts";
import type { ChatAudiences } from "./chat-audiences.ts";
import type { NewPerson, PeopleStore, PersonPatch } from "./people-store.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PeopleServiceParts extends ChatDeletionParts {
  db: Db;
  store: PeopleStore;
  audiences: ChatAudiences;
  audit: AuditLog;
  pairing: PairingService;
  events: EventStore;
  clock: Clock;
}

export type ChatsOnRemoval = { chats: "delete" } | { chats: "transfer"; to: string };

export class PeopleService {
  constructor(private readonly parts: PeopleServiceParts) {}

  /** A live person, or 404 person_not_found. */
  require(personId: string): Person {
    const person = this.parts.store.live(personId);
    if (!person) throw notFound("person_not_found", `no person "${personId}"`);
    return person;
  }

  create(input: NewPerson): Person {
    return this.parts.store.create(input);
  }

  update(personId: string, patch: PersonPatch): Person {
    const person = this.require(personId);
    if (person.role === "admin" && patch.role === "member") this.keepAnAdmin(personId);
    return this.parts.store.update(personId, patch);
  }

  /**
   * Removes a person: their devices are revoked (here and on the bridge, at once), their chats deleted or given to
   * another live person, the shares they held and their producer tokens dropped. `to` may name the acting admin
   * person only when the admin token asks (an admin's device may not take someone's chats for itself unseen).
   */
  async remove(caller: Caller, personId: string, choice: ChatsOnRemoval): Promise<void> {
    const person = this.require(personId);
    if (person.role === "admin") this.keepAnAdmin(personId);
    if (choice.chats === "transfer") this.checkHeir(caller, personId, choice.to);
    for (const device of this.parts.pairing.listDevices(personId))
      if (device.revoked_at === null) this.parts.pairing.revoke(device.device_id);
    const chats = this.parts.audiences.ownedBy(personId);
    if (choice.chats === "transfer") this.transfer(caller, chats, personId, choice.to);
    else for (const sessionId of chats) await deleteChat(this.parts, sessionId);
    for (const sessionId of this.parts.audiences.dropSharesOf(personId))
      this.parts.events.publish({ type: "session_access_revoked", session_id: sessionId }, undefined, [personId]);
    this.parts.db.prepare("DELETE FROM producers WHERE person_id = ?").run(personId);
    this.parts.store.markRemoved(personId);
    this.parts.audit.record({ actor: actorOf(caller), action: "person_removed", person_id: personId });
  }

  /** 403 agent_not_allowed unless the person may use the agent. */
  requireAgent(personId: string, agentId: string): void {
    const person = this.require(personId);
    if (!agentAllowed(person.agents, agentId))
      throw forbidden("agent_not_allowed", `agent "${agentId}" is not among the agents this person may use`);
  }

  /**
   * Counts one request against the person's daily limit (UTC days), or refuses it with 429 daily_limit_reached and the
   * seconds until the next day in `details.retry_after`. Check and count are one statement, so racing sends cannot
   * both take the last one.
   */
  countRequest(personId: string): void {
    const person = this.require(personId);
    const limit = person.max_requests_per_day;
    if (limit === undefined) return;
    const now = this.parts.clock.now();
    const day = Math.floor(now / DAY_MS);
    const counted = this.parts.db
      .prepare<[string, number, number]>(
        `INSERT INTO daily_requests (person_id, day, count) VALUES (?, ?, 1)
         ON CONFLICT (person_id, day) DO UPDATE SET count = count + 1 WHERE count < ?`,
      )
      .run(personId, day, limit).changes;
    if (counted > 0) return;
    const retryAfter = Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000));
    throw tooMany("daily_limit_reached", `this person's ${limit} requests of today are used up`, {
      retry_after: retryAfter,
      limit,
    });
  }

  private keepAnAdmin(personId: string): void {
    if (this.parts.store.liveAdminCount() <= 1)
      throw conflict("last_admin", `${personId} is the last admin: make another person admin first`);
  }

  private checkHeir(caller: Caller, personId: string, to: string): void {
    if (to === personId) throw notFound("person_not_found", `the chats cannot go to the person being removed`);
    this.require(to);
    if (to === caller.person_id && caller.kind !== "admin")
      throw forbidden(
        "admin_required",
        "only the admin token may transfer a removed person's chats to the acting admin",
      );
  }

  private transfer(caller: Caller, chats: string[], from: string, to: string): void {
    for (const sessionId of chats) {
      this.parts.audiences.transfer(sessionId, to);
      this.parts.events.publish({ type: "session_access_revoked", session_id: sessionId }, undefined, [from]);
      const session = this.parts.sessions.get(sessionId);
      this.parts.events.publish({ type: "session_access_granted", session_id: sessionId, session }, undefined, [to]);
      this.parts.audit.record({
        actor: actorOf(caller),
        action: "chats_transferred",
        person_id: from,
        session_id: sessionId,
      });
    }
    // The links the old owner made end with the transfer (a link is live only while its maker owns the chat).
    this.parts.shareLinks.changed();
  }
}

/** How the audit log names who acted. */
export function actorOf(caller: Caller): string {
  return caller.kind === "admin" ? "admin_token" : caller.person_id;
}
