// Keeps the search index in step with the event log (docs/search.md "Index"). The log's follower hands it the events
// after its cursor (server/events/event-follower.ts); it notes each session an event touched (appends, edits, deletes,
// replies, creations and forks, renames, archive flags, deletion), and brings that session's rows in line with the
// session as stored: rows for messages that changed are rewritten, the others stay. A session that is gone (deleted)
// loses its rows. A share, an unshare or a transfer changes who may see a session, and so whose words its rows are
// written as (person-words.ts): the rows of a session whose people changed are rewritten too. The cursor moves in the transaction that writes the rows, so a crash between the two redoes the
// work instead of losing it.
import type { Message, Session } from "../../client/wire/index.ts";
import { sessionTitle } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import { overwritingFreedSpace } from "../db/secure-delete.ts";
import type { Transactor } from "../db/transactor.ts";
import { DomainError } from "../errors.ts";
import { ChatAudiences } from "../people/chat-audiences.ts";
import type { EventConsumer, EventFollower, StoredEvent } from "../events/event-follower.ts";
import type { EventStore } from "../events/event-store.ts";
import type { SessionPage } from "../sessions/session-pages.ts";
import type { SessionService } from "../sessions/session-service.ts";
import { digestOf, SearchDocuments, type IndexedDoc } from "./documents.ts";
import { FtsPurge } from "./fts-purge.ts";
import { searchTag } from "./person-words.ts";

export interface SearchIndexerParts {
  db: Db;
  transactor: Transactor;
  events: Pick<EventStore, "latestId" | "oldestValidCursor"> & { follower: EventFollower };
  sessions: Pick<SessionService, "getPage" | "list">;
  /** Where a failure of background indexing is reported (it is retried at the next commit or search). */
  onError: (error: unknown) => void;
  /** Where a session the indexer could not index is reported; it is passed over until it changes again. */
  onSkipped: (sessionId: string, error: unknown) => void;
  /** Checkpoints and truncates the WAL, once a deleted chat's words are merged out of the index (fts-purge.ts). */
  truncateWal: () => Promise<boolean>;
}

/** Event types after which a session's indexed text, or the people it is indexed for, may differ from what is stored. */
export const INDEXED_EVENT_TYPES = [
  "session_created",
  "session_updated",
  "session_deleted",
  "message_appended",
  "message_modified",
  "messages_deleted",
  "final",
  "checkpoint",
  "session_access_granted",
  "session_access_revoked",
] as const;

/** The message index a session's title is stored under. */
export const TITLE_INDEX = -1;

const CURSOR_KEY = "search_cursor";
/** Events passed over without indexing before the cursor is written anyway (keeps it within pruning's reach). */
const PERSIST_EVERY = 10_000;

/** Index rows written in one pass at most (each costs 0.1 ms, 1 ms on a loaded machine): the loop gets a turn between. */
export const DOCS_PER_PASS = 100;
/** What comparing an unchanged row's digest costs of a pass's budget: 5,000 of them make one pass. */
const COMPARE_COST = 1 / 50;
/**
 * Messages read from the store at a time. A chat is read a page per step, never whole: loading an imported chat of
 * 10,000 messages at once held the event loop 55 ms on a quiet machine (docs/benchmarks.md "Export and import").
 */
const READ_PAGE = 500;

/** Passes a search waits for at most: 2,000 rows, far more than a burst of ordinary changes writes. */
export const SEARCH_WAIT_PASSES = 20;

type Budget = { left: number };

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
  /**
   * The session being indexed over several passes, read once for all of them and gone through from where the last
   * pass stopped (gone through from the start each pass, a chat imported with 10,000 messages cost 100 passes times
   * 10,000 digests).
   */
  private reading: { sessionId: string; eventId: number; work: IndexWork | undefined } | undefined;
  private readonly purge: FtsPurge;
  private readonly audiences: ChatAudiences;

  constructor(private readonly parts: SearchIndexerParts) {
    const { db } = parts;
    this.meta = new Meta(db);
    this.docs = new SearchDocuments(db);
    this.upsertSession = db.prepare<[string, string, number]>(
      `INSERT INTO search_sessions (session_id, title, archived) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET title = excluded.title, archived = excluded.archived`,
    );
    this.deleteSession = db.prepare<[string]>("DELETE FROM search_sessions WHERE session_id = ?");
    this.audiences = new ChatAudiences(db);
    this.purge = new FtsPurge({
      db,
      transactor: parts.transactor,
      truncateWal: parts.truncateWal,
      onError: parts.onError,
    });
  }

  /** Indexes what is missing (all of it on a first start or past a pruned cursor), then follows commits. */
  start(): void {
    const cursor = this.cursor();
    if (cursor === undefined || cursor < this.parts.events.oldestValidCursor) this.rebuild();
    else this.at = this.persisted = cursor;
    this.unfollow ??= this.parts.events.follower.follow(this);
  }

  /**
   * Drops a deleted chat's rows now, their freed space overwritten: the deletion's answer waits for no indexing pass,
   * and its WAL truncation then finds no page holding the chat's title (docs/sessions.md "Delete"). The words of its
   * messages stay in the index's pages until merged out, in the background (fts-purge.ts); the promise says when.
   */
  forget(sessionId: string): Promise<void> {
    overwritingFreedSpace(this.parts.db, () =>
      this.parts.transactor.run(() => {
        this.docs.removeSession(sessionId);
        this.deleteSession.run(sessionId);
      }),
    );
    if (this.reading?.sessionId === sessionId) this.reading = undefined;
    return this.purge.request();
  }

  /** Resolves once deleted chats' words are merged out of the index and the WAL truncated (fts-purge.ts). */
  purged(): Promise<void> {
    return this.purge.idle();
  }

  stop(): void {
    this.unfollow?.();
    this.unfollow = undefined;
    this.purge.stop();
  }

  /**
   * Catches up in passes, the event loop getting a turn between them, for at most `maxPasses` (SEARCH_WAIT_PASSES):
   * a search waits for any ordinary backlog, so it reads its writes; behind a chat of thousands of messages arriving
   * at once (an import) it answers from what is indexed so far, and the follower goes on with the passes in the
   * background.
   */
  async caughtUp(maxPasses = SEARCH_WAIT_PASSES): Promise<void> {
    for (let pass = 1; ; pass++) {
      this.failure = undefined;
      this.parts.events.follower.catchUp();
      if (this.failure !== undefined) throw this.failure;
      if (this.at >= this.parts.events.latestId || pass >= maxPasses) return;
      await nextTurn();
    }
  }

  /** One step's transaction; when it rolls back, the work in hand is worked out again from what is stored. */
  private inStep<T>(step: () => T): T {
    try {
      return this.parts.transactor.run(step);
    } catch (error) {
      this.reading = undefined;
      throw error;
    }
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

  /**
   * Brings the sessions `events` touched in line with the store, as far as one pass's budget of writes goes
   * (DOCS_PER_PASS), and moves the cursor with them in one transaction: true when it reached `through`. A chat
   * imported with 10,000 messages is indexed over many passes, the event loop free between them, instead of in one
   * block of a second.
   */
  receive(events: StoredEvent[], through: number): boolean {
    const touched = events.filter((event): event is StoredEvent & { session_id: string } => event.session_id !== null);
    if (touched.length === 0) {
      this.skipTo(through);
      return true;
    }
    const reached = this.inStep(() => {
      const reached = this.indexRows(touched, through);
      this.meta.set(CURSOR_KEY, String(reached));
      return reached;
    });
    this.at = this.persisted = reached;
    return reached >= through;
  }

  /** Drops the whole index and indexes every stored session again. */
  rebuild(): void {
    const latest = this.parts.events.latestId;
    this.parts.transactor.run(() => {
      this.docs.clear();
      this.parts.db.exec("DELETE FROM search_sessions");
      const unbounded = { left: Infinity };
      for (const session of this.parts.sessions.list())
        this.guarded(session.id, () => this.write(session, new Map(), unbounded));
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

  /**
   * Indexes the sessions `rows` name (in the order they first appear) within one pass's budget; answers the id up to
   * which every row is done: `through`, or just before the first row of the session the budget ran out in. Sessions
   * done before it that also have later rows are looked at again next pass, which changes nothing.
   */
  private indexRows(rows: Array<StoredEvent & { session_id: string }>, through: number): number {
    // A deleted session is dropped whatever the store still says of it (its content may be leaving in steps).
    const deleted = new Set(rows.filter((row) => row.type === "session_deleted").map((row) => row.session_id));
    const spans = new Map<string, { first: number; last: number }>();
    for (const row of rows) {
      const span = spans.get(row.session_id);
      if (span) span.last = row.id;
      else spans.set(row.session_id, { first: row.id, last: row.id });
    }
    const budget = { left: DOCS_PER_PASS };
    for (const [sessionId, span] of spans)
      if (budget.left <= 0 || !this.index(sessionId, deleted.has(sessionId), span.last, budget)) return span.first - 1;
    return through;
  }

  private cursor(): number | undefined {
    const value = this.meta.get(CURSOR_KEY);
    return value === undefined ? undefined : Number(value);
  }

  /**
   * One session's rows brought in line, in a savepoint of the step's transaction, as far as `budget` goes: true when
   * done. A session whose indexing throws (a poisoned event: text the code cannot take) keeps the rows it had, is
   * reported, and is passed over: the cursor moves on, so one bad message can never hold every later event (and
   * every search, which catches up first) back.
   */
  private index(sessionId: string, deleted: boolean, lastEventId: number, budget: Budget): boolean {
    let done = true;
    this.guarded(sessionId, () => {
      done = deleted ? this.drop(sessionId, budget) : this.sync(sessionId, lastEventId, budget);
    });
    return done;
  }

  private guarded(sessionId: string, work: () => void): void {
    try {
      this.parts.transactor.run(work);
    } catch (error) {
      this.parts.onSkipped(sessionId, error);
    }
  }

  /** Makes one session's rows match the session as stored now; a session that is gone loses them. */
  private sync(sessionId: string, lastEventId: number, budget: Budget): boolean {
    const work = this.workAt(sessionId, lastEventId);
    if (!work) return this.drop(sessionId, budget);
    const done = this.apply(work, budget);
    if (done) this.reading = undefined;
    return done;
  }

  private drop(sessionId: string, budget: Budget): boolean {
    for (const doc of this.docs.of(sessionId).values()) {
      if (budget.left-- <= 0) return false;
      this.docs.remove(doc);
    }
    this.deleteSession.run(sessionId);
    return true;
  }

  private write(session: Session, existing: Map<number, IndexedDoc>, budget: Budget): boolean {
    return this.apply(workFor(session, existing, this.tagsOf(session.id)), budget);
  }

  /** The search tags of the people who may see the session now (its owner and share holders), in a fixed order. */
  private tagsOf(sessionId: string): string[] {
    const audience = this.audiences.of(sessionId);
    if (!audience) return [];
    return [audience.owner_id, ...audience.shares.map((share) => share.person_id)].map(searchTag).sort();
  }

  /**
   * Writes what differs, one budget unit a row (a comparison of an unchanged row costs a fiftieth); false when the
   * budget ran out first (the next pass goes on from there).
   */
  private apply(work: IndexWork, budget: Budget): boolean {
    const { session, texts, existing, tags } = work;
    this.upsertSession.run(
      session.id,
      sessionTitle(session),
      (session as { archived?: unknown }).archived === true ? 1 : 0,
    );
    for (; work.next < texts.length || work.read < work.total; work.next++) {
      if (budget.left <= 0) return false;
      if (work.next === texts.length) {
        // A page read is bounded by READ_PAGE and counts against no row budget: a pass still writes its rows.
        this.readPage(work);
        work.next--;
        continue;
      }
      const [index, text] = texts[work.next]!;
      const doc = existing.get(index);
      existing.delete(index);
      if (doc && doc.digest === digestOf(text, tags)) {
        budget.left -= COMPARE_COST;
        continue;
      }
      if (doc) this.docs.replace(doc, text, tags);
      else this.docs.add(session.id, index, text, tags);
      budget.left--;
    }
    for (const [index, doc] of existing) {
      if (budget.left <= 0) return false;
      this.docs.remove(doc);
      existing.delete(index);
      budget.left--;
    }
    return true;
  }

  /**
   * What one session's rows lack after its event `lastEventId`; a session indexed over several passes is read and
   * compared once (the same event, the same session), not once a pass. Undefined: the session is gone.
   */
  private workAt(sessionId: string, lastEventId: number): IndexWork | undefined {
    const reading = this.reading;
    if (reading && reading.sessionId === sessionId && reading.eventId === lastEventId) return reading.work;
    // The first page with the head: a chat without a given title is named by its first message (sessionTitle).
    const first = this.stored(sessionId, READ_PAGE);
    const read = first ? first.messages_start + first.messages.length : 0;
    const work = first && {
      session: first,
      texts: [...searchableTexts(first)],
      existing: this.docs.of(sessionId),
      tags: this.tagsOf(sessionId),
      next: 0,
      read,
      total: Math.max(read, first.messages_total),
    };
    this.reading = { sessionId, eventId: lastEventId, work };
    return work;
  }

  /** The next page of the session's messages into `work.texts` (a session that went meanwhile ends the reading). */
  private readPage(work: IndexWork): void {
    const page = this.stored(work.session.id, Math.min(work.read + READ_PAGE, work.total));
    const end = page ? page.messages_start + page.messages.length : 0;
    // Gone, or shorter than when the reading began: what is left to compare is compared by the next event's reading.
    if (!page || end <= work.read) {
      work.read = work.total;
      return;
    }
    page.messages.forEach((message, offset) => {
      const index = page.messages_start + offset;
      if (index >= work.read && SEARCHED_ROLES.has(message.role) && message.content.trim() !== "")
        work.texts.push([index, message.content]);
    });
    work.read = end;
    work.total = Math.max(end, page.messages_total);
  }

  /** The session's head with its shown messages before index `end` (at most a page); undefined when it is gone. */
  private stored(sessionId: string, end: number): SessionPage<Session> | undefined {
    try {
      return this.parts.sessions.getPage(sessionId, READ_PAGE, end);
    } catch (error) {
      if (error instanceof DomainError && error.kind === "not_found") return undefined;
      throw error;
    }
  }
}

/**
 * One session's texts to index, its rows not yet compared with them and the tags of the people they are indexed for;
 * `next`: the texts done so far; `read` of `total` messages read from the store so far (a session already in memory is
 * read whole).
 */
interface IndexWork {
  session: Session;
  texts: Array<[number, string]>;
  existing: Map<number, IndexedDoc>;
  tags: string[];
  next: number;
  read: number;
  total: number;
}

function workFor(session: Session, existing: Map<number, IndexedDoc>, tags: string[]): IndexWork {
  const total = session.messages.length;
  return { session, texts: [...searchableTexts(session)], existing, tags, next: 0, read: total, total };
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
