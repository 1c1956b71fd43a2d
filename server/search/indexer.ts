// Keeps the search index in step with the event log (docs/search.md "Index"). The log's follower hands it the events
// after its cursor (server/events/event-follower.ts); it notes each session an event touched (appends, edits, deletes, replies, creations and forks, renames, archive
// flags, deletion), and brings that session's rows in line with the session as stored: rows for messages that
// changed are rewritten, the others stay. A session that is gone (deleted) loses its rows. The cursor moves in
// the transaction that writes the rows, so a crash between the two redoes the work instead of losing it.
import type { Message, Session } from "../../client/wire/index.ts";
import { sessionTitle } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import type { Transactor } from "../db/transactor.ts";
import { DomainError } from "../errors.ts";
import type { EventConsumer, EventFollower, StoredEvent } from "../events/event-follower.ts";
import type { EventStore } from "../events/event-store.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { digestOf, SearchDocuments, type IndexedDoc } from "./documents.ts";

export interface SearchIndexerParts {
  db: Db;
  transactor: Transactor;
  events: Pick<EventStore, "latestId" | "oldestValidCursor"> & { follower: EventFollower };
  sessions: Pick<SessionService, "get" | "list">;
  /** Where a failure of background indexing is reported (it is retried at the next commit or search). */
  onError: (error: unknown) => void;
}

/** Event types after which a session's indexed text may differ from what is stored. */
export const INDEXED_EVENT_TYPES = [
  "session_created",
  "session_updated",
  "session_deleted",
  "message_appended",
  "message_modified",
  "messages_deleted",
  "final",
  "checkpoint",
] as const;

/** The message index a session's title is stored under. */
export const TITLE_INDEX = -1;

const CURSOR_KEY = "search_cursor";
/** Events passed over without indexing before the cursor is written anyway (keeps it within pruning's reach). */
const PERSIST_EVERY = 10_000;

/** Only what people wrote and read: tool output and system prompts would drown the conversation in noise. */
const SEARCHED_ROLES: ReadonlySet<Message["role"]> = new Set(["user", "assistant"]);

export class SearchIndexer implements EventConsumer {
  readonly types = INDEXED_EVENT_TYPES;
  private readonly meta: Meta;
  private readonly docs: SearchDocuments;
  private readonly upsertSession;
  private readonly deleteSession;
  /** Every event up to here has been looked at; `persisted` is what meta search_cursor says. */
  private at = 0;
  private persisted = 0;
  private unfollow: (() => void) | undefined;
  /** What the last catch-up failed with, for a search that asked for it. */
  private failure: unknown;

  constructor(private readonly parts: SearchIndexerParts) {
    const { db } = parts;
    this.meta = new Meta(db);
    this.docs = new SearchDocuments(db);
    this.upsertSession = db.prepare<[string, string, number]>(
      `INSERT INTO search_sessions (session_id, title, archived) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET title = excluded.title, archived = excluded.archived`,
    );
    this.deleteSession = db.prepare<[string]>("DELETE FROM search_sessions WHERE session_id = ?");
  }

  /** Indexes what is missing (all of it on a first start or past a pruned cursor), then follows commits. */
  start(): void {
    const cursor = this.cursor();
    if (cursor === undefined || cursor < this.parts.events.oldestValidCursor) this.rebuild();
    else this.at = this.persisted = cursor;
    this.unfollow ??= this.parts.events.follower.follow(this);
  }

  stop(): void {
    this.unfollow?.();
    this.unfollow = undefined;
  }

  /** Brings the index up to the newest committed event. Search calls it first, so it answers what is committed. */
  catchUp(): void {
    this.failure = undefined;
    this.parts.events.follower.catchUp();
    if (this.failure !== undefined) throw this.failure;
  }

  position(): number {
    return this.at;
  }

  behind(): void {
    this.rebuild();
  }

  failed(error: unknown): void {
    this.failure = error;
    this.parts.onError(error);
  }

  /** Brings the sessions `events` touched in line with the store, and moves the cursor with them in one transaction. */
  receive(events: StoredEvent[], through: number): void {
    const touched = events.filter((event): event is StoredEvent & { session_id: string } => event.session_id !== null);
    if (touched.length === 0) return this.skipTo(through);
    this.parts.transactor.run(() => {
      // A deleted session is dropped whatever the store still says of it (its content may be leaving in steps).
      const deleted = new Set(touched.filter((row) => row.type === "session_deleted").map((row) => row.session_id));
      for (const sessionId of new Set(touched.map((row) => row.session_id))) {
        if (deleted.has(sessionId)) this.drop(sessionId);
        else this.sync(sessionId);
      }
      this.meta.set(CURSOR_KEY, String(through));
    });
    this.at = this.persisted = through;
  }

  /** Drops the whole index and indexes every stored session again. */
  rebuild(): void {
    const latest = this.parts.events.latestId;
    this.parts.transactor.run(() => {
      this.docs.clear();
      this.parts.db.exec("DELETE FROM search_sessions");
      for (const session of this.parts.sessions.list()) this.write(session, new Map());
      this.meta.set(CURSOR_KEY, String(latest));
    });
    this.at = this.persisted = latest;
  }

  /**
   * Past events that change nothing searchable (a reply's streamed partials): the cursor moves in memory, and is
   * written only every PERSIST_EVERY events, so streaming costs no extra commit. A restart re-reads those events
   * from the written cursor, which changes nothing.
   */
  private skipTo(through: number): void {
    this.at = through;
    if (this.at - this.persisted < PERSIST_EVERY) return;
    this.parts.transactor.run(() => this.meta.set(CURSOR_KEY, String(through)));
    this.persisted = through;
  }

  private cursor(): number | undefined {
    const value = this.meta.get(CURSOR_KEY);
    return value === undefined ? undefined : Number(value);
  }

  /** Makes one session's rows match the session as stored now; a session that is gone loses them. */
  private sync(sessionId: string): void {
    const session = this.stored(sessionId);
    if (!session) return this.drop(sessionId);
    this.write(session, this.docs.of(sessionId));
  }

  private drop(sessionId: string): void {
    this.docs.removeSession(sessionId);
    this.deleteSession.run(sessionId);
  }

  private write(session: Session, existing: Map<number, IndexedDoc>): void {
    this.upsertSession.run(
      session.id,
      sessionTitle(session),
      (session as { archived?: unknown }).archived === true ? 1 : 0,
    );
    for (const [index, text] of searchableTexts(session)) {
      const row = existing.get(index);
      existing.delete(index);
      if (!row) this.docs.add(session.id, index, text);
      else if (row.digest !== digestOf(text)) this.docs.replace(row, text);
    }
    for (const row of existing.values()) this.docs.remove(row);
  }

  private stored(sessionId: string): Session | undefined {
    try {
      return this.parts.sessions.get(sessionId);
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") return undefined;
      throw error;
    }
  }
}

/** What of a session is searchable, by message index: its given title (TITLE_INDEX) and its people's messages. */
function searchableTexts(session: Session): Map<number, string> {
  const texts = new Map<number, string>();
  if (session.title !== undefined && session.title.trim() !== "") texts.set(TITLE_INDEX, session.title);
  session.messages.forEach((message, index) => {
    if (SEARCHED_ROLES.has(message.role) && message.content.trim() !== "") texts.set(index, message.content);
  });
  return texts;
}
