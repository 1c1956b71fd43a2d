// The one reader that follows the event log in process (docs/events.md "The follower"). Woken by the store's commit
// signal, it reads the committed events once, in id order, and hands each consumer (search indexing, push
// triggers) the ones of the types it asked for; the forwarder, which resumes from the bridge's cursor rather than
// its own, is woken by it and reads its pages through EventStore.list. No other code reads the events table.
//
// Invariants: a consumer receives events strictly after its position, in id order, each at most once per position
// (a consumer that throws keeps its position and is handed the same events at the next wake; one that stops for a
// turn, its budget of work spent, is handed the rest on the next turn); one consumer's failure never stops another; the read happens after the committing code's turn, so a commit is never slowed by
// what its events cause.
import { ListenerSet } from "../listeners.ts";
import type { CommitSignal } from "./commit-signal.ts";

/** An event as the log stores it: no event_id (its `id` is the number), a referred session is its version number. */
export interface StoredEvent {
  id: number;
  type: string;
  session_id: string | null;
  body: string;
  /** The people the event is for, as stored (a JSON array; docs/people.md "Events"), or null: the chat's. */
  audience: string | null;
}

export interface EventConsumer {
  /** The event types it reads; the follower reads no other (streamed partials are most of the log). */
  readonly types: readonly string[];
  /** Every event up to here has been handed to it. */
  position(): number;
  /** Its position is older than what the log retains: it moves on (push) or starts again from the store (search). */
  behind(oldestValid: number): void;
  /**
   * Its events after position() through `through`, in id order (possibly none: nothing it reads happened). It
   * moves its position to `through` when it has taken them and answers true; false when it stopped for a turn (a
   * budget of work per turn, so the event loop is not held), having moved as far as it got. After a throw it stays
   * where it last moved to.
   */
  receive(events: StoredEvent[], through: number): boolean;
  /** A read or a receive failed; it is retried at the next commit (or catchUp). */
  failed(error: unknown): void;
}

/** Events read per step. */
const PAGE = 5000;

/** The event store as the follower reads it (event-store.ts). */
export interface FollowedLog {
  readonly latestId: number;
  readonly oldestValidCursor: number;
  readonly commits: Pick<CommitSignal, "subscribe">;
  readStored(afterId: number, throughId: number, types: readonly string[], limit: number): StoredEvent[];
}

export class EventFollower {
  private readonly consumers = new Set<EventConsumer>();
  /** Readers that only need to know that something committed (the forwarder): they read through list(). */
  private readonly wakers = new ListenerSet<number>();
  private unsubscribe: (() => void) | undefined;
  private scheduled = false;

  constructor(
    private readonly log: FollowedLog,
    private readonly page = PAGE,
  ) {}

  /** Starts handing `consumer` its events (from its position); the returned function stops it. */
  follow(consumer: EventConsumer): () => void {
    this.consumers.add(consumer);
    this.listen();
    return () => {
      this.consumers.delete(consumer);
      this.quietIfIdle();
    };
  }

  /**
   * Calls `wake` with the newest committed id at each commit, at once (the forwarder pushes in the commit's turn,
   * as it always has); the returned function stops it.
   */
  onCommitted(wake: (latestId: number) => void): () => void {
    const stop = this.wakers.subscribe(wake);
    this.listen();
    return () => {
      stop();
      this.quietIfIdle();
    };
  }

  /**
   * Hands every consumer what has committed so far, now (search calls it so it answers what is committed). A
   * consumer that stopped for a turn gets the rest on the next one.
   */
  catchUp(): void {
    // Consumers done with this call: failed (retried at the next commit) or stopped for a turn (resumed at the next).
    const failed = new Set<EventConsumer>();
    const paused = new Set<EventConsumer>();
    for (;;) {
      const latest = this.log.latestId;
      const behind = [...this.consumers].filter(
        (consumer) => !failed.has(consumer) && !paused.has(consumer) && this.due(consumer, latest, failed),
      );
      if (behind.length === 0) break;
      const from = Math.min(...behind.map((consumer) => consumer.position()));
      let rows: StoredEvent[];
      try {
        rows = this.log.readStored(from, latest, typesOf(behind), this.page);
      } catch (error) {
        return behind.forEach((consumer) => consumer.failed(error));
      }
      const through = rows.length === this.page ? rows[rows.length - 1]!.id : latest;
      for (const consumer of behind) if (this.hand(consumer, rows, through, failed) === "paused") paused.add(consumer);
    }
    if (paused.size > 0) this.schedule();
  }

  /** Whether `consumer` has events to take; one fallen behind retention is told first. */
  private due(consumer: EventConsumer, latest: number, failed: Set<EventConsumer>): boolean {
    const oldest = this.log.oldestValidCursor;
    if (consumer.position() < oldest) {
      try {
        consumer.behind(oldest);
      } catch (error) {
        failed.add(consumer);
        consumer.failed(error);
        return false;
      }
    }
    return consumer.position() < latest;
  }

  /** Hands `consumer` its part of a page: "paused" when it stopped for a turn short of `through`. */
  private hand(
    consumer: EventConsumer,
    rows: StoredEvent[],
    through: number,
    failed: Set<EventConsumer>,
  ): "paused" | undefined {
    const after = consumer.position();
    if (after >= through) return undefined; // ahead of this page: it waits for the others to reach it
    const types = new Set(consumer.types);
    try {
      const done = consumer.receive(
        rows.filter((row) => row.id > after && types.has(row.type)),
        through,
      );
      if (!done) return "paused";
      // A consumer that does not move would be handed the same page forever.
      if (consumer.position() < through) throw new Error(`a log consumer stayed at ${consumer.position()}`);
    } catch (error) {
      failed.add(consumer);
      consumer.failed(error);
    }
    return undefined;
  }

  private listen(): void {
    this.unsubscribe ??= this.log.commits.subscribe((latestId) => {
      this.wakers.notify(latestId, () => undefined);
      if (this.consumers.size > 0) this.schedule();
    });
  }

  private quietIfIdle(): void {
    if (this.consumers.size > 0 || this.wakers.size > 0) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** After a burst of commits, one read (not one per commit, and never inside the publisher's call). */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.unsubscribe) return; // nobody follows any more: the database may be closed by now
      this.catchUp();
    });
  }
}

function typesOf(consumers: EventConsumer[]): string[] {
  return [...new Set(consumers.flatMap((consumer) => consumer.types))].sort();
}
