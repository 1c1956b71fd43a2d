// Keeps the search index in step with the event log (docs/search.md "Index"). It reads the log after its cursor,
// notes each session an event touched (appends, edits, deletes, replies, creations and forks, renames, archive
// flags, deletion), and brings that session's rows in line with the session as stored: rows for messages that
// changed are rewritten, the others stay. A session that is gone (deleted) loses its rows. The cursor moves in
// the transaction that writes the rows, so a crash between the two redoes the work instead of losing it.
import type { Message, Session } from "../../client/wire/index.ts";
import { sessionTitle } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import type { Transactor } from "../db/transactor.ts";
import { DomainError } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { digestOf, SearchDocuments, type IndexedDoc } from "./documents.ts";

export interface SearchIndexerParts {
  db: Db;
  transactor: Transactor;
  events: Pick<EventStore, "latestId" | "oldestValidCursor" | "commits">;
  sessions: Pick<SessionService, "get" | "list">;
  /** Where a failure of background indexing is reported (it is retried at the next commit or search). */
  onError: (error: unknown) => void;
  /** Where a session the indexer could not index is reported; it is passed over until it changes again. */
  onSkipped: (sessionId: string, error: unknown) => void;
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

/** Events read per catch-up step; a step is one transaction. */
const STEP = 5000;
const CURSOR_KEY = "search_cursor";
/** Events passed over without indexing before the cursor is written anyway (keeps it within pruning's reach). */
const PERSIST_EVERY = 10_000;

/** Only what people wrote and read: tool output and system prompts would drown the conversation in noise. */
const SEARCHED_ROLES: ReadonlySet<Message["role"]> = new Set(["user", "assistant"]);

export class SearchIndexer {
  private readonly meta: Meta;
  private readonly selectTouched;
  private readonly docs: SearchDocuments;
  private readonly upsertSession;
  private readonly deleteSession;
  private scheduled = false;
  /** Every event up to here has been looked at; `persisted` is what meta search_cursor says. */
  private position = 0;
  private persisted = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly parts: SearchIndexerParts) {
    const { db } = parts;
    this.meta = new Meta(db);
    const types = INDEXED_EVENT_TYPES.map((t) => `'${t}'`).join(", ");
    this.selectTouched = db.prepare<[number, number, number], { id: number; session_id: string; type: string }>(
      `SELECT id, session_id, type FROM events
       WHERE id > ? AND id <= ? AND session_id IS NOT NULL AND type IN (${types}) ORDER BY id LIMIT ?`,
    );
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
    else this.position = this.persisted = cursor;
    this.unsubscribe ??= this.parts.events.commits.subscribe(() => this.schedule());
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Brings the index up to the newest committed event. Search calls it first, so it answers what is committed. */
  catchUp(): void {
    for (;;) {
      const latest = this.parts.events.latestId;
      if (this.position >= latest) return;
      if (this.position < this.parts.events.oldestValidCursor) return this.rebuild();
      const rows = this.selectTouched.all(this.position, latest, STEP);
      const through = rows.length === STEP ? rows[rows.length - 1]!.id : latest;
      if (rows.length === 0) {
        this.skipTo(through);
        continue;
      }
      this.parts.transactor.run(() => {
        // A deleted session is dropped whatever the store still says of it (its content may be leaving in steps).
        const deleted = new Set(rows.filter((row) => row.type === "session_deleted").map((row) => row.session_id));
        for (const sessionId of new Set(rows.map((row) => row.session_id)))
          this.index(sessionId, deleted.has(sessionId));
        this.meta.set(CURSOR_KEY, String(through));
      });
      this.position = this.persisted = through;
    }
  }

  /** Drops the whole index and indexes every stored session again. */
  rebuild(): void {
    const latest = this.parts.events.latestId;
    this.parts.transactor.run(() => {
      this.docs.clear();
      this.parts.db.exec("DELETE FROM search_sessions");
      for (const session of this.parts.sessions.list()) this.guarded(session.id, () => this.write(session, new Map()));
      this.meta.set(CURSOR_KEY, String(latest));
    });
    this.position = this.persisted = latest;
  }

  /**
   * Past events that change nothing searchable (a reply's streamed partials): the cursor moves in memory, and is
   * written only every PERSIST_EVERY events, so streaming costs no extra commit. A restart re-reads those events
   * from the written cursor, which changes nothing.
   */
  private skipTo(through: number): void {
    this.position = through;
    if (this.position - this.persisted < PERSIST_EVERY) return;
    this.parts.transactor.run(() => this.meta.set(CURSOR_KEY, String(through)));
    this.persisted = through;
  }

  /** After a burst of commits, one catch-up (not one per commit, and never inside the publisher's call). */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.unsubscribe) return; // stopped: the database may be closed by now
      try {
        this.catchUp();
      } catch (error) {
        this.parts.onError(error);
      }
    });
  }

  private cursor(): number | undefined {
    const value = this.meta.get(CURSOR_KEY);
    return value === undefined ? undefined : Number(value);
  }

  /**
   * One session's rows brought in line, in a savepoint of the step's transaction. A session whose indexing throws
   * (a poisoned event: text the code cannot take) keeps the rows it had, is reported, and is passed over: the cursor
   * moves on, so one bad message can never hold every later event (and every search, which catches up first) back.
   */
  private index(sessionId: string, deleted: boolean): void {
    this.guarded(sessionId, () => (deleted ? this.drop(sessionId) : this.sync(sessionId)));
  }

  private guarded(sessionId: string, work: () => void): void {
    try {
      this.parts.transactor.run(work);
    } catch (error) {
      this.parts.onSkipped(sessionId, error);
    }
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
