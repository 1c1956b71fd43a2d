// One place that opens transactions, so a mutation and the events it publishes commit together, and so work
// that must wait for the commit (waking pollers and the forwarder) runs only once the outermost one commits.
import type { Db } from "./database.ts";

export class Transactor {
  private depth = 0;
  private afterCommitQueue: Array<() => void> = [];

  constructor(readonly db: Db) {}

  /** Runs `work` in a write transaction; nested calls join the outer one (as savepoints). */
  run<T>(work: () => T): T {
    if (this.depth > 0) return this.nested(work);
    this.depth++;
    let result: T;
    try {
      result = this.db.transaction(work).immediate();
    } catch (error) {
      this.afterCommitQueue = [];
      throw error;
    } finally {
      this.depth--;
    }
    this.flushAfterCommit();
    return result;
  }

  /** Runs `work` in a read transaction: every read inside sees one snapshot. */
  read<T>(work: () => T): T {
    if (this.depth > 0) return work();
    return this.db.transaction(work).deferred();
  }

  /** Queues `callback` for after the current transaction commits; outside a transaction it runs at once. */
  afterCommit(callback: () => void): void {
    if (this.depth === 0) callback();
    else this.afterCommitQueue.push(callback);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
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

  private flushAfterCommit(): void {
    const queue = this.afterCommitQueue;
    this.afterCommitQueue = [];
    for (const callback of queue) callback();
  }
}
