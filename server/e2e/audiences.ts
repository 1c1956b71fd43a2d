// Who each pushed event is for, as the bridge is told it (docs/security.md "Keys and their lifecycle", docs/bridge.md
// "Audiences"): people, each known to the bridge only by an opaque tag derived from their id with a key of this
// server's own, so the bridge can route by person without learning who anyone is or how tags relate across servers.
//
// An event's people: the `audience` its row names (application notifications for some people), else its session's
// (the owner and everyone it is shared with), else everyone (an event of no session). A session the store no longer
// knows is nobody's. Removed people are nobody: their devices are revoked. A chat or device whose row names no person
// (written by code that knew no people) is the sole person's while only one lives here, and nobody's once there are
// more: with one person there is nobody else it could reach.
import { createHmac, randomBytes } from "node:crypto";
import type { AnyEvent } from "../../client/wire/index.ts";
import { parseEventId } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import type { EventStore } from "../events/event-store.ts";

/** Everyone (sealed once under the server-wide key), or these people (sealed once for each). */
export type EventAudience = { everyone: true } | { everyone: false; people: string[] };

/** The tag's length: 128 bits of HMAC-SHA256 in base64url, ample against collisions among a server's people. */
const TAG_LENGTH = 22;

export class Audiences {
  private readonly tagKey: Buffer;
  private readonly tags = new Map<string, string>();
  private plainPeople: Set<string> | undefined;
  private readonly statements;

  constructor(
    db: Db,
    /** The log, whose rows say whom an event is for (the event store is the only reader of the events table). */
    private readonly events: Pick<EventStore, "audienceOf">,
  ) {
    this.tagKey = Buffer.from(
      new Meta(db).getOrCreate("audience_tag_key", () => randomBytes(32).toString("base64url")),
      "base64url",
    );
    this.statements = {
      chatPeople: db.prepare<[{ session: string }], { person_id: string | null }>(
        `SELECT owner_id AS person_id FROM sessions WHERE id = @session
         UNION SELECT person_id FROM session_shares WHERE session_id = @session`,
      ),
      livePeople: db.prepare<[], { id: string }>("SELECT id FROM people WHERE removed_at IS NULL ORDER BY id"),
      plainPeople: db.prepare<[], { person_id: string | null }>(
        "SELECT DISTINCT person_id FROM devices WHERE revoked_at IS NULL AND public_key IS NULL",
      ),
      devicePeople: db.prepare<[], { id: string; person_id: string | null }>(
        "SELECT id, person_id FROM devices WHERE revoked_at IS NULL",
      ),
      personOfDevice: db.prepare<[string], { person_id: string | null }>("SELECT person_id FROM devices WHERE id = ?"),
    };
  }

  /** A person's tag as the bridge knows it. */
  tagOf(personId: string): string {
    let tag = this.tags.get(personId);
    if (tag === undefined) {
      tag = createHmac("sha256", this.tagKey).update(personId).digest("base64url").slice(0, TAG_LENGTH);
      this.tags.set(personId, tag);
    }
    return tag;
  }

  /** Who `event` is for: everyone, or its live people. */
  of(event: AnyEvent): EventAudience {
    const live = new Set(this.livePeople());
    const named = this.rowAudience(event);
    if (named !== undefined) return { everyone: false, people: named.filter((id) => live.has(id)) };
    if (event.session_id === undefined) return { everyone: true };
    return { everyone: false, people: this.chatPeopleOf(event.session_id, live) };
  }

  /** A chat's live people: its owner and everyone it is shared with. */
  peopleOfChat(sessionId: string): string[] {
    return this.chatPeopleOf(sessionId, new Set(this.livePeople()));
  }

  private chatPeopleOf(sessionId: string, live: ReadonlySet<string>): string[] {
    const rows = this.statements.chatPeople.all({ session: sessionId });
    const people = rows.map((row) => row.person_id ?? this.sole(live));
    return people.filter((id): id is string => id !== undefined && live.has(id));
  }

  /** The one live person, while there is only one (see the head of this file). */
  private sole(live: ReadonlySet<string>): string | undefined {
    return live.size === 1 ? live.values().next().value : undefined;
  }

  /** Every live person's id. */
  livePeople(): string[] {
    return this.statements.livePeople.all().map((row) => row.id);
  }

  /** People with a live plain device: only their audiences are sent an event's plain form. */
  withPlainDevices(): ReadonlySet<string> {
    if (this.plainPeople) return this.plainPeople;
    const sole = this.sole(new Set(this.livePeople()));
    const people = this.statements.plainPeople.all().map((row) => row.person_id ?? sole);
    return (this.plainPeople = new Set(people.filter((id): id is string => id !== undefined)));
  }

  /** Each live device's person (for the grants' tags). */
  devicePeople(): Map<string, string> {
    const people = new Map<string, string>();
    const sole = this.sole(new Set(this.livePeople()));
    for (const row of this.statements.devicePeople.all()) {
      const person = row.person_id ?? sole;
      if (person !== undefined) people.set(row.id, person);
    }
    return people;
  }

  /** The person a device belongs to (a revoked one too). */
  personOfDevice(deviceId: string): string | undefined {
    const row = this.statements.personOfDevice.get(deviceId);
    if (!row) return undefined;
    return row.person_id ?? this.sole(new Set(this.livePeople()));
  }

  /** Devices changed (paired, revoked): who has a plain device is read again. */
  devicesChanged(): void {
    this.plainPeople = undefined;
  }

  /** The people an event's row names, when it names them (NULL: it follows its session, or is everyone's). */
  private rowAudience(event: AnyEvent): string[] | undefined {
    const id = parseEventId(event.event_id);
    const text = id === undefined ? null : this.events.audienceOf(id);
    if (text === null) return undefined;
    const parsed: unknown = JSON.parse(text);
    if (parsed === "all") return undefined;
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === "string") : [];
  }
}
