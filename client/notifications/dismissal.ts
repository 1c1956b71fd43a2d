// Dismissing (UI rules 5-6, docs/client.md "The rules, numbered"). Mobile: hide the exact displayed revision first (a cache entry), then ask the
// server; on failure keep it hidden and retry that same revision on reconnect or rehydration. Desktop: the record
// stays visible until the server says yes. Either way a 409 body is the current record and is applied as such.
import { NetworkError, ResponseError, ServerOfflineError } from "../transport/errors.ts";
import type { Requester } from "../transport/http.ts";
import type { Timers } from "../util/timers.ts";
import { dismissInScope } from "./routes.ts";
import type { DismissalCache, DismissalEntry } from "./dismissal-cache.ts";
import {
  compareRevisions,
  isTerminal,
  parseRecord,
  revisionOf,
  type ClientRecord,
  type RevisionToken,
  type ScopeRef,
} from "./record.ts";

export type DismissMode = "mobile" | "desktop";

export type DismissResult =
  | { status: "dismissed"; record: ClientRecord | undefined }
  /** 409: the server holds another revision (or the move is not allowed); `record` is its current state. */
  | { status: "conflict"; record: ClientRecord | undefined }
  /** Mobile only: the server could not be reached; hidden now, retried on reconnect. */
  | { status: "queued"; entry: DismissalEntry };

export interface DismissHost {
  http: Requester;
  cache: DismissalCache;
  timers: Timers;
  connectionId: string;
  /** Applies an authoritative record the server sent back (dismiss answer or 409 body). */
  apply(scope: ScopeRef, record: ClientRecord): void;
  /** The cache changed: hidden records must be re-evaluated. */
  changed(): void;
}

/** The dismiss answer's shape is not fixed: accept the record itself or `{notification: record}`. */
function recordFrom(body: unknown): ClientRecord | undefined {
  const wrapped =
    typeof body === "object" && body !== null && "notification" in body
      ? (body as { notification: unknown }).notification
      : body;
  return parseRecord(wrapped);
}

type SendOutcome =
  { kind: "dismissed" | "conflict"; record: ClientRecord | undefined } | { kind: "unreachable"; error: unknown };

export async function sendDismiss(
  host: DismissHost,
  scope: ScopeRef,
  id: string,
  revision: RevisionToken,
  reason?: string,
): Promise<SendOutcome> {
  try {
    const body = await dismissInScope(host.http, scope, id, {
      expected_revision: revision,
      ...(reason !== undefined ? { reason } : {}),
    });
    return { kind: "dismissed", record: recordFrom(body) };
  } catch (error) {
    if (error instanceof ResponseError && error.status === 409)
      return { kind: "conflict", record: recordFrom(error.body) };
    if (
      error instanceof NetworkError ||
      error instanceof ServerOfflineError ||
      (error instanceof ResponseError && error.status >= 500)
    )
      return { kind: "unreachable", error };
    throw error;
  }
}

export async function dismissMobile(
  host: DismissHost,
  scope: ScopeRef,
  record: ClientRecord,
  reason?: string,
): Promise<DismissResult> {
  const { entry, persisted } = host.cache.add({
    connection_id: host.connectionId,
    scope: scope.scope,
    ...(scope.scope === "session" ? { session_id: scope.session_id } : {}),
    notification_id: record.id,
    revision: revisionOf(record),
    dismissed_at: host.timers.now(),
  });
  // Hidden first, stored second, sent third: a crash after the tap still retries the dismissal on restart.
  host.changed();
  await persisted;
  return settle(host, scope, entry, reason);
}

/** Sends (or re-sends) the cached revision and settles the entry by the answer. */
export async function settle(
  host: DismissHost,
  scope: ScopeRef,
  entry: DismissalEntry,
  reason?: string,
): Promise<DismissResult> {
  const outcome = await sendDismiss(host, scope, entry.notification_id, entry.revision, reason);
  if (outcome.kind === "unreachable") return { status: "queued", entry };
  if (outcome.record) host.apply(scope, outcome.record);
  await host.cache.drop(entry);
  host.changed();
  return { status: outcome.kind, record: outcome.record };
}

export async function dismissDesktop(
  host: DismissHost,
  scope: ScopeRef,
  record: ClientRecord,
  reason?: string,
): Promise<DismissResult> {
  const outcome = await sendDismiss(host, scope, record.id, revisionOf(record), reason);
  if (outcome.kind === "unreachable") throw outcome.error;
  if (outcome.record) host.apply(scope, outcome.record);
  return { status: outcome.kind, record: outcome.record };
}

/**
 * What authoritative state means for a cache entry (rule 5): a missing or terminal record, or a newer pending
 * revision, ends the entry; the same revision means the dismiss is still owed and is retried.
 */
export function verdictFor(entry: DismissalEntry, current: ClientRecord | undefined): "drop" | "retry" {
  if (!current || isTerminal(current)) return "drop";
  return compareRevisions(revisionOf(current), entry.revision) > 0 ? "drop" : "retry";
}
