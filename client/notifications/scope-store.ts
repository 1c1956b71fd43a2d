// The records of one scope (the application, or one session), as this connection knows them. Snapshots are the
// authority (SPEC notification rule 2); events only accelerate. Neither ever moves a record to an older revision:
// a snapshot taken before an event we already applied loses to that event for that record. Terminal records are
// kept as tombstones (so a late, older copy cannot bring one back) and filtered from `active()`.
import { compareRevisions, isTerminal, revisionOf, type ClientRecord } from "./record.ts";

export class ScopeStore {
  private readonly records = new Map<string, ClientRecord>();
  /** Ids changed by events since the snapshot request in flight started (they may be newer than it). */
  private touchedSince: Set<string> | undefined;

  get(id: string): ClientRecord | undefined {
    return this.records.get(id);
  }

  /** Records that may be presented: every non-terminal one, in the order they were first seen. */
  active(): ClientRecord[] {
    return [...this.records.values()].filter((record) => !isTerminal(record));
  }

  /** Upsert by id (SPEC notification rule 1); returns false for a copy that is not newer than what we hold. */
  upsert(record: ClientRecord): boolean {
    const current = this.records.get(record.id);
    if (current && compareRevisions(revisionOf(record), revisionOf(current)) <= 0) return false;
    this.touchedSince?.add(record.id);
    this.records.set(record.id, record);
    return true;
  }

  /** Call before requesting a snapshot: events from here on may be newer than what it returns. */
  beginSnapshot(): void {
    this.touchedSince = new Set();
  }

  /** Replaces the contents with an authoritative snapshot, keeping what events made newer meanwhile. */
  applySnapshot(records: readonly ClientRecord[]): void {
    const touched = this.touchedSince ?? new Set<string>();
    this.touchedSince = undefined;
    const next = new Map<string, ClientRecord>();
    for (const record of records) {
      const local = this.records.get(record.id);
      const keepLocal = local !== undefined && touched.has(record.id) && compareRevisions(revisionOf(local), revisionOf(record)) > 0;
      next.set(record.id, keepLocal ? local : record);
    }
    // Created (or ended) by an event after the request started: the snapshot could not know yet.
    for (const id of touched) {
      const local = this.records.get(id);
      if (local && !next.has(id)) next.set(id, local);
    }
    this.records.clear();
    for (const [id, record] of next) this.records.set(id, record);
  }
}
