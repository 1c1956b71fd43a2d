// The durable event log (docs/events.md "The log"): publish assigns monotonic fixed-width ids
// inside the caller's transaction; list reads a page after a cursor, optionally by session or request.
// Retention prunes the oldest events; a cursor that fell behind what is retained is refused, never answered
// with a silent hole. An event that carries a stored session version keeps only its version number (and the
// index of its message) in the log; list() puts the full session back, and caps a page by bytes as well as by
// count (docs/events.md "Storage", "Page byte cap").
import { randomUUID } from "node:crypto";
import { systemClock } from "../clock.ts";
import type { Statement } from "better-sqlite3";
import type { AnyEvent } from "../../client/wire/index.ts";
import { formatEventId } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { DomainError } from "../errors.ts";
import { Meta } from "../db/meta.ts";
import type { Transactor } from "../db/transactor.ts";
import { SessionVersions } from "../sessions/session-versions.ts";
import type { MessageCache } from "../sessions/message-log.ts";
import { CommitSignal } from "./commit-signal.ts";
import { VISIBLE_EVENT } from "../people/chat-audiences.ts";

/** What a producer hands to publish: an event without the fields the store assigns (event_id, timestamp). */
export interface PublishInput {
  type: string;
  session_id?: string | undefined;
  request_id?: string | undefined;
  [field: string]: unknown;
}

export interface RetentionPolicy {
  maxEvents: number;
  maxAgeSeconds?: number | undefined;
}

export interface ListQuery {
  /** Exclusive lower bound (numeric event id); 0 reads from the start. */
  sinceId: number;
  sessionId?: string | undefined;
  requestId?: string | undefined;
  limit: number;
  /** Only the events this person may read (docs/people.md "Events"); absent: every event (the server's own readers). */
  personId?: string | undefined;
  /** Bytes of JSON a page may hold (the store's page cap unless given); a page always holds at least one event. */
  maxBytes?: number | undefined;
}

/** How publish may store an event: its `session` is that session's saved version, its `message` one of its messages. */
export interface StoredSessionRef {
  sessionVersion: number;
  messageIndex?: number | undefined;
}

export interface ListPage {
  events: AnyEvent[];
  /**
   * Where the next page starts: the last row read when the page is full, else the newest committed id (every
   * event up to it was considered, and those not returned did not match the filters).
   */
  lastId: number;
  /** The page stopped at its limit or its byte cap: more events may follow at once. */
  hasMore: boolean;
}

export interface EventStoreOptions {
  /** The default byte cap of a page (JSON of its events). */
  maxPageBytes?: number;
}

/** A page's default byte cap: a 1 MB session times hundreds of events must not become one string of gigabytes. */
export const DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * A cursor older than what the store retains, or from another store: 410 cursor_expired, whether the store finds it
 * (a pruned since_id) or the events route does (another epoch, a session cursor fallen behind retention).
 */
export class CursorExpiredError extends DomainError {
  override name = "CursorExpiredError";

  constructor(message: string) {
    super("expired", "cursor_expired", message);
  }
}

type VisibleParams = { person: string; since: number; limit: number; session: string; request: string };

type Row = {
  id: number;
  session_id: string | null;
  body: string;
  session_version: number | null;
  message_index: number | null;
};

/** `content: 0` when the event's `content` is its referred message's, so the text is stored once (list() restores it). */
function repeatedContent(input: PublishInput): { content?: 0 } {
  const message = input["message"] as { content?: unknown } | undefined;
  return typeof input["content"] === "string" && input["content"] === message?.content ? { content: 0 } : {};
}

/** docs/events.md "Event types and checkpoints": consumed in process by the request coordinator, never visible to /events or the bridge. */
export const INTERNAL_CHECKPOINT = "session_checkpoint";

const PRUNE_EVERY_PUBLISHES = 1000;
const PRUNE_BATCH = 10_000;

export class EventStore {
  readonly epoch: string;
  readonly commits = new CommitSignal();
  private lastId: number;
  /** Id of the newest row written by the open transaction; becomes lastId when it commits. */
  private newestWritten = 0;
  private prunedThrough: number;
  private publishesSincePrune = 0;
  private readonly meta: Meta;
  private readonly insert;
  private readonly selectAll;
  private readonly selectBySession;
  private readonly selectByRequest;
  private readonly selectBySessionAndRequest;
  private readonly visibleSelects;
  private readonly sessions: SessionVersions;
  private readonly maxPageBytes: number;

  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
    private readonly retention: RetentionPolicy = { maxEvents: 1_000_000 },
    private readonly now: () => number = systemClock.now,
    options: EventStoreOptions = {},
  ) {
    this.sessions = new SessionVersions(db);
    this.maxPageBytes = options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES;
    this.meta = new Meta(db);
    this.epoch = this.meta.getOrCreate("epoch", randomUUID);
    this.prunedThrough = Number(this.meta.get("pruned_through") ?? 0);
    this.lastId = this.readLastId();
    this.insert = db.prepare<
      [string, string | null, string | null, number, string, number | null, number | null, string | null]
    >(
      "INSERT INTO events (type, session_id, request_id, created_at, body, session_version, message_index, audience) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const columns = "SELECT id, session_id, body, session_version, message_index FROM events";
    this.selectAll = db.prepare<[number, number], Row>(`${columns} WHERE id > ? ORDER BY id LIMIT ?`);
    this.selectBySession = db.prepare<[string, number, number], Row>(
      `${columns} WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    this.selectByRequest = db.prepare<[string, number, number], Row>(
      `${columns} WHERE request_id = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    this.selectBySessionAndRequest = db.prepare<[string, string, number, number], Row>(
      `${columns} WHERE request_id = ? AND session_id = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    // The same four reads for one person: the visibility rule runs inside the query, so a page is filled with what
    // the person may read and next_since_id moves past the rest.
    const visible = (filter: string) =>
      db.prepare<[VisibleParams], Row>(
        `${columns} WHERE ${filter} id > @since AND ${VISIBLE_EVENT} ORDER BY id LIMIT @limit`,
      );
    this.visibleSelects = {
      all: visible(""),
      bySession: visible("session_id = @session AND"),
      byRequest: visible("request_id = @request AND"),
      bySessionAndRequest: visible("request_id = @request AND session_id = @session AND"),
    };
  }

  /**
   * Appends one event and returns it as stored. Inside a Transactor.run it commits with the caller's mutation;
   * outside, it joins the group commit that closes at the end of this microtask. Either way it becomes
   * visible, and waiters wake, only after the commit.
   */
  publish<E extends PublishInput>(
    input: E,
    ref?: StoredSessionRef,
    audience?: readonly string[],
  ): E & { event_id: string; timestamp: string } {
    if (input.type === INTERNAL_CHECKPOINT)
      throw new Error("session_checkpoint is internal to the request coordinator and is never stored");
    const createdAt = this.now();
    const timestamp = new Date(createdAt).toISOString();
    // With a ref, the session (and message) keep their place in the body as numbers; list() puts them back. So does
    // a `content` that repeats the referred message's (message_appended): stored as 0, it is stored once.
    const refs = ref
      ? {
          session: ref.sessionVersion,
          ...(ref.messageIndex !== undefined ? { message: ref.messageIndex, ...repeatedContent(input) } : {}),
        }
      : {};
    const body = JSON.stringify({ ...input, ...refs, event_id: undefined, timestamp });
    const sessionId = input.session_id ?? null;
    if (ref && sessionId === null) throw new Error("an event stored with a session ref needs its session_id");
    const requestId = input.request_id ?? null;
    const row = [
      input.type,
      sessionId,
      requestId,
      createdAt,
      body,
      ref?.sessionVersion ?? null,
      ref?.messageIndex ?? null,
      audience === undefined ? null : JSON.stringify(audience),
    ] as const;
    const id = this.transactor.group(() => Number(this.insert.run(...row).lastInsertRowid));
    this.newestWritten = id;
    this.commits.written(sessionId, requestId);
    this.transactor.afterCommit(() => this.committed(this.newestWritten), "event-store-commit");
    return { ...input, event_id: formatEventId(id), timestamp };
  }

  /**
   * One page of events after `sinceId`, in id order, at most `limit` events and (past the first) `maxBytes` of
   * JSON. Throws CursorExpiredError for a pruned-away cursor.
   */
  list(query: ListQuery): ListPage {
    this.assertRetained(query.sinceId);
    // One read transaction: the events and the session versions they refer to come from one snapshot.
    return this.transactor.read(() => this.readPage(query, query.maxBytes ?? this.maxPageBytes));
  }

  /**
   * Empties the bodies of a session's events (a deleted session, docs/sessions.md "Delete"): each keeps its id and
   * reads back as `{event_id, type: "tombstone"}`, so cursors stay valid and no page carries the session's content.
   * Call inside the transaction that deletes the session.
   */
  tombstoneSession(sessionId: string): number {
    this.tombstone ??= this.db.prepare<[string]>(
      `UPDATE events SET type = 'tombstone', request_id = NULL, body = '{"type":"tombstone"}', session_version = NULL,
       message_index = NULL WHERE session_id = ? AND type <> 'tombstone'`,
    );
    return this.tombstone.run(sessionId).changes;
  }
  private tombstone: Statement<[string]> | undefined;

  /** The oldest retained event of a request (optionally within one session), or undefined when none is left. */
  firstOfRequest(requestId: string, sessionId?: string): AnyEvent | undefined {
    return this.list({ sinceId: this.prunedThrough, requestId, sessionId, limit: 1 }).events[0];
  }

  /** Numeric id of the newest committed event (0 for an empty log). */
  get latestId(): number {
    return this.lastId;
  }

  /** The newest id ever pruned: a cursor below it would skip events, so it has expired. */
  get oldestValidCursor(): number {
    return this.prunedThrough;
  }

  assertRetained(sinceId: number): void {
    if (sinceId < this.prunedThrough) {
      throw new CursorExpiredError(
        `since_id ${formatEventId(sinceId)} is older than the retained log (events up to ${formatEventId(this.prunedThrough)} were pruned); reload snapshots`,
      );
    }
  }

  /** Waits until an event newer than `afterId` commits (true) or the wait ends (false). */
  waitBeyond(afterId: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.commits.waitBeyond(afterId, () => this.lastId, timeoutMs, signal);
  }

  /** Applies the retention policy; returns how many events it removed. */
  prune(): number {
    this.transactor.commitGroup();
    const maxEvents = this.retention.maxEvents;
    let through = Math.max(0, this.lastId - maxEvents);
    if (this.retention.maxAgeSeconds !== undefined) {
      const cutoff = this.now() - this.retention.maxAgeSeconds * 1000;
      const newestTooOld = this.db
        .prepare<[number], { id: number | null }>("SELECT max(id) AS id FROM events WHERE created_at < ?")
        .get(cutoff);
      through = Math.max(through, newestTooOld?.id ?? 0);
    }
    if (through <= this.prunedThrough) return 0;
    let removed = 0;
    // Batches keep each write transaction short, so publishers are never stalled for long.
    for (let from = this.prunedThrough; from < through; from += PRUNE_BATCH) {
      const upTo = Math.min(from + PRUNE_BATCH, through);
      removed += this.transactor.run(() => {
        const changes = this.db.prepare("DELETE FROM events WHERE id > ? AND id <= ?").run(from, upTo).changes;
        this.meta.set("pruned_through", String(upTo));
        return changes;
      });
      this.prunedThrough = upTo;
    }
    return removed;
  }

  private readPage(query: ListQuery, maxBytes: number): ListPage {
    const events: AnyEvent[] = [];
    const cache: MessageCache = new Map();
    let bytes = 0;
    let lastRead = query.sinceId;
    let hasMore = false;
    // Rows are read one at a time, so a page never holds more than its cap plus one event in memory.
    for (const row of this.selectRows(query)) {
      const event = this.toEvent(row, cache);
      // An uncapped read (recovery, the runner bench) never measures: expanding a session to count it costs its size.
      const size = !Number.isFinite(maxBytes)
        ? 0
        : row.session_version === null
          ? Buffer.byteLength(row.body)
          : Buffer.byteLength(JSON.stringify(event));
      if (events.length > 0 && bytes + size > maxBytes) {
        hasMore = true;
        break;
      }
      events.push(event);
      bytes += size;
      lastRead = row.id;
      if (events.length === query.limit) {
        hasMore = true;
        break;
      }
    }
    return { events, lastId: hasMore ? lastRead : Math.max(lastRead, this.lastId), hasMore };
  }

  private selectRows({ sinceId, sessionId, requestId, limit, personId }: ListQuery): IterableIterator<Row> {
    if (personId !== undefined) {
      const params = { person: personId, since: sinceId, limit, session: sessionId ?? "", request: requestId ?? "" };
      const selects = this.visibleSelects;
      if (sessionId !== undefined && requestId !== undefined) return selects.bySessionAndRequest.iterate(params);
      if (sessionId !== undefined) return selects.bySession.iterate(params);
      if (requestId !== undefined) return selects.byRequest.iterate(params);
      return selects.all.iterate(params);
    }
    if (sessionId !== undefined && requestId !== undefined)
      return this.selectBySessionAndRequest.iterate(requestId, sessionId, sinceId, limit);
    if (sessionId !== undefined) return this.selectBySession.iterate(sessionId, sinceId, limit);
    if (requestId !== undefined) return this.selectByRequest.iterate(requestId, sinceId, limit);
    return this.selectAll.iterate(sinceId, limit);
  }

  /** The event as published: the id spliced in front (the first key on the wire), a referred session put back. */
  private toEvent(row: Row, cache: MessageCache): AnyEvent {
    const event = JSON.parse(`{"event_id":"${formatEventId(row.id)}",${row.body.slice(1)}`) as AnyEvent;
    if (row.session_version === null) return event;
    const session = this.sessions.read(row.session_id!, row.session_version, cache);
    if (!session)
      throw new Error(
        `event ${formatEventId(row.id)} refers to version ${row.session_version} of session ${row.session_id}, which is not stored`,
      );
    // Assigning keys the body already has keeps their place, so the event serializes as it was published.
    event["session"] = session;
    if (row.message_index !== null) {
      const message = session.messages[row.message_index];
      event["message"] = message;
      if (event["content"] === 0 && message) event["content"] = message.content;
    }
    return event;
  }

  private committed(id: number): void {
    if (id > this.lastId) this.lastId = id;
    this.commits.notify(this.lastId);
    if (++this.publishesSincePrune >= PRUNE_EVERY_PUBLISHES) {
      this.publishesSincePrune = 0;
      if (this.lastId - this.prunedThrough > this.retention.maxEvents || this.retention.maxAgeSeconds !== undefined)
        this.prune();
    }
  }

  private readLastId(): number {
    // sqlite_sequence remembers the highest id ever issued, even when the newest rows are gone.
    const row = this.db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get();
    return row?.seq ?? 0;
  }
}
