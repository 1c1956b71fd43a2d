// The list of active application notifications as JSON text, kept in memory (docs/notifications.md
// "The active list"). GET /application/notifications is the reconnect snapshot every app reads; with 10,000 active
// records, reading and joining their rows from SQLite took ~18 ms per call. This view holds the committed bodies in
// creation order and the joined text until the next change, so a list costs nothing but the send.
//
// Invariants: it reflects committed state only (changes are applied after their transaction commits, and dropped
// with it on rollback); its order is the table's rowid order (a new record is appended; an update keeps its place;
// a record leaves it when it becomes terminal, which is final); it is loaded once, lazily, from the table.
import type { Transactor } from "../db/transactor.ts";

export class ActiveListView {
  private bodies: Map<string, string> | undefined;
  private joined: Buffer | undefined;

  constructor(
    private readonly transactor: Transactor,
    private readonly loadActive: () => Array<{ id: string; body: string }>,
  ) {}

  /**
   * The active records as one JSON array in UTF-8 (encoded once per change: encoding 4 MB per call was most of what
   * was left of the route's time); undefined while a write transaction is open, when only the table is current.
   */
  json(): Buffer | undefined {
    if (this.transactor.writing) return undefined;
    if (this.joined !== undefined) return this.joined;
    this.bodies ??= new Map(this.loadActive().map((row) => [row.id, row.body]));
    this.joined = Buffer.from(`[${[...this.bodies.values()].join(",")}]`, "utf8");
    return this.joined;
  }

  /** Called for every stored record; applied when (and only if) the surrounding transaction commits. */
  recordChanged(id: string, active: boolean, body: string): void {
    this.transactor.afterCommit(() => this.apply(id, active, body));
  }

  private apply(id: string, active: boolean, body: string): void {
    if (this.bodies === undefined) return; // not loaded yet: the first read loads the committed table
    if (active) this.bodies.set(id, body);
    else this.bodies.delete(id);
    this.joined = undefined;
  }
}
