// Retention boundaries that end pending records (SPEC.md terminal-state rules 2-4):
// - until_request_complete: expireForCompletedRequest, called by the request runner and also triggered by
//   the RequestCompletionWatcher when a `request_completed` event commits. Both may fire for one request:
//   expiry only moves records still awaiting, inside one atomic mutation, so the second call finds nothing.
// - until_server_restart: expireFromEarlierOwners, run once when a runtime starts with its owner epoch.
// - ttl: nothing here. It is a frontend presentation rule: no server mutation, no event.
import { randomUUID } from "node:crypto";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { ServerContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import type { EventStore } from "../events/event-store.ts";
import { HttpError } from "../http/errors.ts";
import { requireHub, type NotificationHub } from "./hub.ts";

/**
 * The owner epoch of this process. createRuntime uses it unless told otherwise, so replacing the application
 * generation inside one process keeps it, and every real process start gets a new one.
 */
export const PROCESS_OWNER_EPOCH = randomUUID();

const requestScoped = (requestId: string) => (record: NotificationRecord) =>
  record.request_id === requestId && record.retention.policy === "until_request_complete";

/** Expires the pending until_request_complete records of a finished request, in both scopes. Idempotent. */
export function expireForCompletedRequest(ctx: Pick<ServerContext, "notifications" | "events">, requestId: string, sessionId?: string): NotificationRecord[] {
  const hub = requireHub(ctx);
  const expired = hub.application.expireWhere((c) => c.activeForRequest(requestId).filter(requestScoped(requestId)), "request_completed");
  const owner = sessionId ?? sessionOfRequest(ctx.events, requestId);
  if (owner === undefined) return expired;
  try {
    expired.push(...hub.session(owner).expireWhere((c) => c.activeForRequest(requestId).filter(requestScoped(requestId)), "request_completed"));
  } catch (error) {
    // A session deleted meanwhile has nothing left to expire.
    if (!(error instanceof HttpError && error.statusCode === 404)) throw error;
  }
  return expired;
}

/** The session a request ran in, from the first retained event that names the request. */
function sessionOfRequest(events: EventStore, requestId: string): string | undefined {
  return events.list({ sinceId: events.oldestValidCursor, requestId, limit: 1 }).events[0]?.session_id;
}

/** Expires until_server_restart records stamped by another owner epoch and still awaiting. */
export function expireFromEarlierOwners(ctx: Pick<ServerContext, "sessions">, hub: NotificationHub): number {
  const stale = (record: NotificationRecord) => record.retention.policy === "until_server_restart" && record.retention.owner_epoch !== hub.ownerEpoch;
  let count = hub.application.expireWhere((c) => c.activeRestartScoped().filter(stale), "server_restart").length;
  // One pass over the sessions at start; only sessions whose metadata mentions the policy are mutated.
  for (const session of ctx.sessions.list()) {
    if (!JSON.stringify(session.metadata["notifications"] ?? null).includes("until_server_restart")) continue;
    count += hub.session(session.id).expireWhere((c) => c.activeRestartScoped().filter(stale), "server_restart").length;
  }
  return count;
}

/**
 * Watches commits for `request_completed` events so until_request_complete works without the runner's call.
 * It reads only the new committed rows of that type (by primary-key range, no body parsing), so a stream of
 * partials costs one small query per commit. A drain never re-enters itself (its own expiry events commit
 * while it runs); it loops once more instead.
 */
export class RequestCompletionWatcher {
  private cursor: number;
  private draining = false;
  private again = false;
  private readonly completed;

  constructor(
    db: Db,
    private readonly events: EventStore,
    private readonly onCompleted: (requestId: string, sessionId: string | undefined) => void,
    private readonly log: { warn(object: object, message: string): void },
  ) {
    this.cursor = events.latestId;
    this.completed = db.prepare<[number, number], { request_id: string | null; session_id: string | null }>(
      "SELECT request_id, session_id FROM events WHERE id > ? AND id <= ? AND type = 'request_completed' ORDER BY id",
    );
  }

  /** Subscribes to commits; returns the unsubscribe function. */
  start(): () => void {
    return this.events.commits.subscribe(() => this.drain());
  }

  drain(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    try {
      do {
        this.again = false;
        this.readNew();
      } while (this.again);
    } finally {
      this.draining = false;
    }
  }

  private readNew(): void {
    // Only ids up to latestId are committed; later ones are read on the next wake-up.
    const upTo = this.events.latestId;
    if (upTo <= this.cursor) return;
    const rows = this.completed.all(this.cursor, upTo);
    this.cursor = upTo;
    for (const row of rows) {
      if (row.request_id === null) continue;
      try {
        this.onCompleted(row.request_id, row.session_id ?? undefined);
      } catch (error) {
        this.log.warn({ err: error, request_id: row.request_id }, "request completion retention failed");
      }
    }
  }
}
