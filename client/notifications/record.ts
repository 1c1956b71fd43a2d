// How the client reads notification records. The wire schema (wire/notification.ts) is used with one relaxation:
// `display.presentation` may be any string or absent, because consumers are to report an unknown
// presentation (and default a missing one), not to lose the record. Anything else malformed is dropped.
import { z } from "zod";
import { lazySchema } from "../wire/built-on-first-use.ts";
import { notificationRecordSchema, type NotificationRecord } from "../wire/notification.ts";

export const clientRecordSchema = lazySchema(() =>
  notificationRecordSchema.unwrap().extend({
    display: z.looseObject({ presentation: z.string().optional() }).optional(),
  }),
);
export type ClientRecord = z.infer<typeof clientRecordSchema>;
export type { NotificationRecord };

export type Scope = "application" | "session";

/** Where a record lives: the application (connection-level) or one session. */
export type ScopeRef = { scope: "application" } | { scope: "session"; session_id: string };

export function scopeKey(ref: ScopeRef): string {
  return ref.scope === "application" ? "application" : `session:${ref.session_id}`;
}

export function parseRecord(raw: unknown): ClientRecord | undefined {
  const parsed = clientRecordSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const TERMINAL = new Set(["dismissed", "resolved", "expired", "cancelled"]);

export function isTerminal(record: ClientRecord): boolean {
  return TERMINAL.has(record.status);
}

/** Pending revisions are the ones that may show as new and execute ui_effects (UI rule 1, docs/client.md "The rules, numbered"). */
export function isPendingRevision(record: ClientRecord): boolean {
  return record.status === "pending" || record.status === "pending_response";
}

/** The expected-revision token: the revision, or updated_at for a legacy record that has none yet. */
export type RevisionToken = number | string;

export function revisionOf(record: ClientRecord): RevisionToken {
  return record.revision ?? record.updated_at;
}

/**
 * Orders two states of one record. A numbered revision is newer than any legacy one (records gain revision 1 on
 * their first mutation); two legacy tokens compare by updated_at.
 */
export function compareRevisions(a: RevisionToken, b: RevisionToken): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return 1;
  if (typeof b === "number") return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
