// The audit log (docs/people.md "Audit"): what gave someone access to another person's things: a read of their chat
// with the admin token, a pairing for them, a transfer of their chats, an export of everything, a change of providers,
// MCP servers or plugins. Kept 90 days and at most 10,000 entries; GET /audit (admin role) reads it newest first.
import type { AuditEntry } from "../../client/wire/routes/people.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";

export const AUDIT_MAX_ENTRIES = 10_000;
export const AUDIT_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;

export type AuditAction =
  | "admin_token_read"
  | "pairing_for_person"
  | "chats_transferred"
  | "chats_deleted"
  | "person_removed"
  | "export_everything"
  | "settings_changed";

export interface AuditInput {
  /** "admin_token", or the acting person's id. */
  actor: string;
  action: AuditAction;
  person_id: string | null;
  session_id?: string | undefined;
}

type Row = { at: number; actor: string; action: string; person_id: string | null; session_id: string | null };

export class AuditLog {
  private readonly insert;
  private readonly select;
  private readonly pruneOld;
  private readonly pruneMany;
  private readonly listeners: ((entry: AuditInput) => void)[] = [];

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare<[number, string, string, string | null, string | null]>(
      "INSERT INTO audit_log (at, actor, action, person_id, session_id) VALUES (?, ?, ?, ?, ?)",
    );
    this.select = db.prepare<[number], Row>(
      "SELECT at, actor, action, person_id, session_id FROM audit_log ORDER BY id DESC LIMIT ?",
    );
    this.pruneOld = db.prepare<[number]>("DELETE FROM audit_log WHERE at < ?");
    this.pruneMany = db.prepare<[number]>(
      "DELETE FROM audit_log WHERE id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET ?)",
    );
  }

  /** Writes an entry, keeps the log within its bounds, and tells the listeners (the affected person's devices). */
  record(entry: AuditInput): void {
    const now = this.clock.now();
    this.insert.run(now, entry.actor, entry.action, entry.person_id, entry.session_id ?? null);
    this.pruneOld.run(now - AUDIT_MAX_AGE_MS);
    this.pruneMany.run(AUDIT_MAX_ENTRIES);
    for (const listener of this.listeners) listener(entry);
  }

  /** Newest first. */
  list(limit = AUDIT_MAX_ENTRIES): AuditEntry[] {
    return this.select.all(limit).map((row) => ({
      at: new Date(row.at).toISOString(),
      actor: row.actor,
      action: row.action,
      person_id: row.person_id,
      ...(row.session_id !== null ? { session_id: row.session_id } : {}),
    }));
  }

  onRecord(listener: (entry: AuditInput) => void): void {
    this.listeners.push(listener);
  }
}
