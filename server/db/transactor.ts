// One place that opens transactions, so a mutation and the events it publishes commit together, and so work
// that must wait for the commit (waking pollers and the forwarder) runs only once the outermost one commits.
//
// Two kinds of write transaction:
//  - run(): explicit, synchronous. It commits before it returns; a mutation and its events use it.
//  - group(): group commit for writes that stand alone (a streamed `partial`). The first one opens a transaction
//    that commits at the end of the current microtask, so a burst of publishes costs one commit. (Waiting for
//    the end of the event-loop turn batches more, but made a chunk wait for every other stream's I/O of that
//    turn: p99 chunk-to-readable 12-18 ms instead of 0.3 ms in scripts/bench/runner.ts.) Nothing in a
//    group is visible to readers (or wakes a waiter) before that commit; run() and read() commit an open group
//    first, so ordering is kept and no reader sees uncommitted rows.
import type { Db } from "./database.ts";

export class Transactor {
  private depth = 0;
  private groupOpen = false;
  private afterCommitQueue: Array<() => void> = [];
  /** Keyed callbacks survive a savepoint rollback: they read the state at commit time, so running them is safe. */
  private keyedAfterCommit = new Map<string, () => void>();

  constructor(
    readonly db: Db,
    private readonly onGroupCommitFailure: (error: unknown) => void = (error) => {
      throw error;
    },
  ) {}

  /** Whether a write transaction or group is open: state read now may not be committed yet. */
  get writing(): boolean {
    return this.depth > 0 || this.groupOpen;
  }

  /** Runs `work` in a write transaction; nested calls join the outer one (as savepoints). */
  run<T>(work: () => T): T {
    if (this.depth > 0) return this.nested(work);
    this.commitGroup();
    this.depth++;
    let result: T;
    try {
      result = this.db.transaction(work).immediate();
    } catch (error) {
      this.dropAfterCommit();
      throw error;
    } finally {
      this.depth--;
    }
    this.flushAfterCommit();
    return result;
  }

  /** Runs one standalone write inside the current group commit (or the explicit transaction around it). */
  group<T>(work: () => T): T {
    if (this.depth > 0) return work();
    if (!this.groupOpen) {
      this.db.exec("BEGIN IMMEDIATE");
      this.groupOpen = true;
      queueMicrotask(() => this.commitGroup());
    }
    return work();
  }

  /** Runs `work` in a read transaction: every read inside sees one snapshot of committed data. */
  read<T>(work: () => T): T {
    if (this.depth > 0) return work();
    this.commitGroup();
    return this.db.transaction(work).deferred();
  }

  /**
   * Queues `callback` for after the current transaction or group commits; with neither open it runs at once.
   * With a `key`, a second callback of that key in the same transaction is dropped (one wake-up per commit).
   */
  afterCommit(callback: () => void, key?: string): void {
    if (this.depth === 0 && !this.groupOpen) return callback();
    if (key === undefined) this.afterCommitQueue.push(callback);
    else if (!this.keyedAfterCommit.has(key)) this.keyedAfterCommit.set(key, callback);
  }

  /** Commits the open group, if any. Called before explicit transactions, reads, and at shutdown. */
  commitGroup(): void {
    if (!this.groupOpen) return;
    this.groupOpen = false;
    // Closed under us (a test tearing down): SQLite rolled the open transaction back; nothing was ever visible.
    if (!this.db.open) return this.dropAfterCommit();
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      // The group's writes are gone together; nobody has seen them, so no waiter may be woken for them.
      this.dropAfterCommit();
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      this.onGroupCommitFailure(error);
      return;
    }
    this.flushAfterCommit();
  }

  private nested<T>(work: () => T): T {
    const queued = this.afterCommitQueue.length;
    try {
      return this.db.transaction(work)();
    } catch (error) {
      // The savepoint rolled back: so must what it queued.
      this.afterCommitQueue.length = queued;
      throw error;
    }
  }

  private dropAfterCommit(): void {
    this.afterCommitQueue = [];
    this.keyedAfterCommit = new Map();
  }

  private flushAfterCommit(): void {
    const queue = [...this.afterCommitQueue, ...this.keyedAfterCommit.values()];
    this.dropAfterCommit();
    for (const callback of queue) callback();
  }
}
