// The records of one scope (the application, or one session), as this connection knows them. Snapshots are the
// authority (notification rule 2, docs/client.md "The rules, numbered"); events only accelerate. Neither ever moves a record to an older revision:
// a snapshot taken before an event we already applied loses to that event for that record. Terminal records are
// kept as tombstones (so a late, older copy cannot bring one back) and filtered from `active()`.
import { compareRevisions, isTerminal, revisionOf, type ClientRecord } from "./record.ts";

/** One snapshot request in flight: the ids events changed since it started (they may be newer than it). */
export interface SnapshotRequest {
  readonly touched: Set<string>;
}

export class ScopeStore {
  private readonly records = new Map<string, ClientRecord>();
  /** Every snapshot request in flight; each has its own touched set (reloads may overlap). */
  private readonly inFlight = new Set<SnapshotRequest>();

  get(id: string): ClientRecord | undefined {
    return this.records.get(id);
  }

  /** Records that may be presented: every non-terminal one, in the order they were first seen. */
  active(): ClientRecord[] {
    return [...this.records.values()].filter((record) => !isTerminal(record));
  }

  /** Upsert by id (notification rule 1); returns false for a copy that is not newer than what we hold. */
  upsert(record: ClientRecord): boolean {
    const current = this.records.get(record.id);
    if (current && compareRevisions(revisionOf(record), revisionOf(current)) <= 0) return false;
    for (const request of this.inFlight) request.touched.add(record.id);
    this.records.set(record.id, record);
    return true;
  }

  /** Call before requesting a snapshot; hand the result to `applySnapshot` or `abandonSnapshot`. */
  beginSnapshot(): SnapshotRequest {
    const request: SnapshotRequest = { touched: new Set() };
    this.inFlight.add(request);
    return request;
  }

  /** The request failed: stop tracking it. */
  abandonSnapshot(request: SnapshotRequest): void {
    this.inFlight.delete(request);
  }

  /**
   * Replaces the contents with an authoritative snapshot, keeping what events made newer meanwhile. A record is
   * never moved to a lower revision, whoever changed it: an older snapshot landing after a newer one (or after a
   * newer event) loses for that record.
   */
  applySnapshot(records: readonly ClientRecord[], request: SnapshotRequest): void {
    this.inFlight.delete(request);
    const next = new Map<string, ClientRecord>();
    for (const record of records) {
      const local = this.records.get(record.id);
      const keepLocal = local !== undefined && compareRevisions(revisionOf(local), revisionOf(record)) > 0;
      next.set(record.id, keepLocal ? local : record);
      // What this snapshot changed may be newer than what an older request in flight will bring back.
      const changed = local === undefined || compareRevisions(revisionOf(record), revisionOf(local)) > 0;
      if (changed) for (const other of this.inFlight) other.touched.add(record.id);
    }
    // Created (or ended) by an event after the request started: the snapshot could not know yet.
    for (const id of request.touched) {
      const local = this.records.get(id);
      if (local && !next.has(id)) next.set(id, local);
    }
    this.records.clear();
    for (const [id, record] of next) this.records.set(id, record);
  }
}
