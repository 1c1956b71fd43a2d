// The durable event log (SPEC.md "Events", DESIGN.md "Event ids"): publish assigns monotonic fixed-width ids
// inside the caller's transaction; list reads a page after a cursor, optionally by session or request.
// Retention prunes the oldest events; a cursor that fell behind what is retained is refused, never answered
// with a silent hole.
import { randomUUID } from "node:crypto";
import type { AnyEvent } from "../../client/wire/index.ts";
import { formatEventId } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import type { Transactor } from "../db/transactor.ts";
import { CommitSignal } from "./commit-signal.ts";

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
}

export interface ListPage {
  events: AnyEvent[];
  /**
   * Where the next page starts: the last row read when the page is full, else the newest committed id (every
   * event up to it was considered, and those not returned did not match the filters).
   */
  lastId: number;
}

/** A cursor older than what the store retains, or from another store. Answered with 410 cursor_expired. */
export class CursorExpiredError extends Error {
  override name = "CursorExpiredError";
}

type Row = { id: number; created_at: number; body: string };

/** SPEC.md "Checkpoints": consumed in process by the request coordinator, never visible to /events or the bridge. */
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

  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
    private readonly retention: RetentionPolicy = { maxEvents: 1_000_000 },
    private readonly now: () => number = Date.now,
  ) {
    this.meta = new Meta(db);
    this.epoch = this.meta.getOrCreate("epoch", randomUUID);
    this.prunedThrough = Number(this.meta.get("pruned_through") ?? 0);
    this.lastId = this.readLastId();
    this.insert = db.prepare<[string, string | null, string | null, number, string]>(
      "INSERT INTO events (type, session_id, request_id, created_at, body) VALUES (?, ?, ?, ?, ?)",
    );
    const columns = "SELECT id, created_at, body FROM events";
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
  }

  /**
   * Appends one event and returns it as stored. Inside a Transactor.run it commits with the caller's mutation;
   * outside, it joins the group commit that closes at the end of this microtask. Either way it becomes
   * visible, and waiters wake, only after the commit.
   */
  publish<E extends PublishInput>(input: E): E & { event_id: string; timestamp: string } {
    if (input.type === INTERNAL_CHECKPOINT) throw new Error("session_checkpoint is internal to the request coordinator and is never stored");
    const createdAt = this.now();
    const timestamp = new Date(createdAt).toISOString();
    const body = JSON.stringify({ ...input, event_id: undefined, timestamp });
    const sessionId = input.session_id ?? null;
    const requestId = input.request_id ?? null;
    const id = this.transactor.group(() => Number(this.insert.run(input.type, sessionId, requestId, createdAt, body).lastInsertRowid));
    this.newestWritten = id;
    this.commits.written(sessionId, requestId);
    this.transactor.afterCommit(() => this.committed(this.newestWritten), "event-store-commit");
    return { ...input, event_id: formatEventId(id), timestamp };
  }

  /** One page of events after `sinceId`, in id order. Throws CursorExpiredError for a pruned-away cursor. */
  list(query: ListQuery): ListPage {
    this.assertRetained(query.sinceId);
    // One SELECT is a snapshot by itself; it only needs an open group committed first, so it sees no uncommitted row.
    this.transactor.commitGroup();
    const rows = this.selectRows(query);
    const events = rows.map(toEvent);
    const lastRead = rows.length > 0 ? rows[rows.length - 1]!.id : query.sinceId;
    return { events, lastId: rows.length === query.limit ? lastRead : Math.max(lastRead, this.lastId) };
  }

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
      const newestTooOld = this.db.prepare<[number], { id: number | null }>("SELECT max(id) AS id FROM events WHERE created_at < ?").get(cutoff);
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

  private selectRows({ sinceId, sessionId, requestId, limit }: ListQuery): Row[] {
    if (sessionId !== undefined && requestId !== undefined) return this.selectBySessionAndRequest.all(requestId, sessionId, sinceId, limit);
    if (sessionId !== undefined) return this.selectBySession.all(sessionId, sinceId, limit);
    if (requestId !== undefined) return this.selectByRequest.all(requestId, sinceId, limit);
    return this.selectAll.all(sinceId, limit);
  }

  private committed(id: number): void {
    if (id > this.lastId) this.lastId = id;
    this.commits.notify(this.lastId);
    if (++this.publishesSincePrune >= PRUNE_EVERY_PUBLISHES) {
      this.publishesSincePrune = 0;
      if (this.lastId - this.prunedThrough > this.retention.maxEvents || this.retention.maxAgeSeconds !== undefined) this.prune();
    }
  }

  private readLastId(): number {
    // sqlite_sequence remembers the highest id ever issued, even when the newest rows are gone.
    const row = this.db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get();
    return row?.seq ?? 0;
  }
}

function toEvent(row: Row): AnyEvent {
  // The body never holds the id; splicing it in front keeps event_id the first key on the wire.
  return JSON.parse(`{"event_id":"${formatEventId(row.id)}",${row.body.slice(1)}`) as AnyEvent;
}
