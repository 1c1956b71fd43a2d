// The durable application notification store: one row per record in the server's SQLite file, so records
// survive a restart and a replacement of the application generation. Reads and writes run inside the
// caller's Transactor transaction, together with the events that describe them.
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { Db } from "../db/database.ts";
import type { Transactor } from "../db/transactor.ts";
import { ActiveListView } from "./active-list-view.ts";
import { isActive } from "./lifecycle.ts";
import type { TransactionalNotificationStore, ListOptions } from "./store.ts";

type BodyRow = { body: string };
type IdBodyRow = { id: string; body: string };
type StateRow = { active: number; terminal_seq: number | null };

export class SqliteNotificationStore implements TransactionalNotificationStore {
  private readonly byId;
  private readonly stateById;
  private readonly byActiveKey;
  private readonly listActive;
  private readonly listAll;
  private readonly byActiveRequest;
  private readonly byActivePolicy;
  private readonly maxTerminalSeq;
  private readonly upsert;
  private readonly deleteTerminalThrough;
  private readonly activeList: ActiveListView;

  constructor(
    db: Db,
    private readonly transactor: Transactor,
  ) {
    const table = "application_notifications";
    this.byId = db.prepare<[string], BodyRow>(`SELECT body FROM ${table} WHERE id = ?`);
    this.stateById = db.prepare<[string], StateRow>(`SELECT active, terminal_seq FROM ${table} WHERE id = ?`);
    this.byActiveKey = db.prepare<[string], BodyRow>(`SELECT body FROM ${table} WHERE key = ? AND active = 1`);
    this.listActive = db.prepare<[], BodyRow>(`SELECT body FROM ${table} WHERE active = 1 ORDER BY rowid`);
    this.listAll = db.prepare<[], BodyRow>(`SELECT body FROM ${table} ORDER BY rowid`);
    this.byActiveRequest = db.prepare<[string], BodyRow>(
      `SELECT body FROM ${table} WHERE request_id = ? AND active = 1 ORDER BY rowid`,
    );
    this.byActivePolicy = db.prepare<[string], BodyRow>(
      `SELECT body FROM ${table} WHERE retention_policy = ? AND active = 1 ORDER BY rowid`,
    );
    this.maxTerminalSeq = db.prepare<[], { seq: number | null }>(
      `SELECT max(terminal_seq) AS seq FROM ${table} WHERE terminal_seq IS NOT NULL`,
    );
    this.upsert = db.prepare<[string, string, number, string | null, string, number | null, string]>(
      `INSERT INTO ${table} (id, key, active, request_id, retention_policy, terminal_seq, body) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET key = excluded.key, active = excluded.active, request_id = excluded.request_id,
         retention_policy = excluded.retention_policy, terminal_seq = excluded.terminal_seq, body = excluded.body`,
    );
    this.deleteTerminalThrough = db.prepare<[number]>(
      `DELETE FROM ${table} WHERE terminal_seq IS NOT NULL AND terminal_seq <= ?`,
    );
    const activeRows = db.prepare<[], IdBodyRow>(`SELECT id, body FROM ${table} WHERE active = 1 ORDER BY rowid`);
    this.activeList = new ActiveListView(transactor, () => activeRows.all());
  }

  transaction<T>(work: () => T): T {
    return this.transactor.run(work);
  }

  get(id: string): NotificationRecord | undefined {
    return parse(this.byId.get(id));
  }

  activeByKey(key: string): NotificationRecord | undefined {
    return parse(this.byActiveKey.get(key));
  }

  put(record: NotificationRecord): void {
    const active = isActive(record);
    const previous = this.stateById.get(record.id);
    // A record is numbered once, when it first becomes terminal; terminal states are final, so it keeps it.
    const seq = active ? null : (previous?.terminal_seq ?? (this.maxTerminalSeq.get()?.seq ?? 0) + 1);
    const body = JSON.stringify(record);
    this.upsert.run(
      record.id,
      record.key,
      active ? 1 : 0,
      record.request_id ?? null,
      record.retention.policy,
      seq,
      body,
    );
    this.activeList.recordChanged(record.id, active, body);
  }

  list({ includeTerminal }: ListOptions): NotificationRecord[] {
    return (includeTerminal ? this.listAll : this.listActive).all().map(parseRow);
  }

  listJson({ includeTerminal }: ListOptions): string | Uint8Array {
    if (!includeTerminal) {
      const maintained = this.activeList.json();
      if (maintained !== undefined) return maintained;
    }
    // Bodies are stored as JSON already: splice them into one array instead of a parse/stringify round trip.
    return `[${(includeTerminal ? this.listAll : this.listActive)
      .all()
      .map((row) => row.body)
      .join(",")}]`;
  }

  activeForRequest(requestId: string): NotificationRecord[] {
    return this.byActiveRequest.all(requestId).map(parseRow);
  }

  activeRestartScoped(): NotificationRecord[] {
    return this.byActivePolicy.all("until_server_restart").map(parseRow);
  }

  pruneTerminal(keep: number): number {
    // Terminal numbers are contiguous (pruning only ever removes the oldest), so max - keep is the cut.
    const newest = this.maxTerminalSeq.get()?.seq ?? 0;
    if (newest <= keep) return 0;
    return this.deleteTerminalThrough.run(newest - keep).changes;
  }
}

function parseRow(row: BodyRow): NotificationRecord {
  return JSON.parse(row.body) as NotificationRecord;
}

function parse(row: BodyRow | undefined): NotificationRecord | undefined {
  return row ? parseRow(row) : undefined;
}
