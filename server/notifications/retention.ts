// Retention boundaries that end pending records (docs/notifications.md "Retention"):
// - until_request_complete: expireForCompletedRequest, called by the request runner just before it publishes
//   `request_completed`. Idempotent: expiry only moves records still awaiting, inside one atomic mutation.
// - until_server_restart: expireFromEarlierOwners, run once by createRuntime when it starts with its owner epoch.
// - ttl: nothing here. It is a frontend presentation rule: no server mutation, no event.
import { randomUUID } from "node:crypto";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import { DomainError } from "../errors.ts";
import type { EventStore } from "../events/event-store.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { NotificationService } from "./notification-service.ts";

/**
 * The owner epoch of this process. createRuntime uses it unless told otherwise, so replacing the application
 * generation inside one process keeps it, and every real process start gets a new one.
 */
export const PROCESS_OWNER_EPOCH = randomUUID();

const requestScoped = (requestId: string) => (record: NotificationRecord) =>
  record.request_id === requestId && record.retention.policy === "until_request_complete";

/** Expires the pending until_request_complete records of a finished request, in both scopes. Idempotent. */
export function expireForCompletedRequest(
  ctx: { notifications: NotificationService; events: Pick<EventStore, "firstOfRequest"> },
  requestId: string,
  sessionId?: string,
): NotificationRecord[] {
  const notifications = ctx.notifications;
  const expired = notifications.application.expireWhere(
    (c) => c.activeForRequest(requestId).filter(requestScoped(requestId)),
    "request_completed",
  );
  const owner = sessionId ?? ctx.events.firstOfRequest(requestId)?.session_id;
  if (owner === undefined) return expired;
  try {
    expired.push(
      ...notifications
        .session(owner)
        .expireWhere((c) => c.activeForRequest(requestId).filter(requestScoped(requestId)), "request_completed"),
    );
  } catch (error) {
    // A session deleted meanwhile has nothing left to expire.
    if (!(error instanceof DomainError && error.kind === "not_found")) throw error;
  }
  return expired;
}

/** Expires until_server_restart records stamped by another owner epoch and still awaiting. */
export function expireFromEarlierOwners(
  sessions: Pick<SessionService, "mentioning" | "get">,
  notifications: NotificationService,
): number {
  const stale = (record: NotificationRecord) =>
    record.retention.policy === "until_server_restart" && record.retention.owner_epoch !== notifications.ownerEpoch;
  let count = notifications.application.expireWhere(
    (c) => c.activeRestartScoped().filter(stale),
    "server_restart",
  ).length;
  // One pass over the sessions' own fields at start, never their messages (reading every chat whole held 90 MB more
  // RSS with 200,000 messages stored: docs/benchmarks.md "History, read in SQL"); only sessions whose metadata
  // mentions the policy are read and mutated.
  for (const id of sessions.mentioning("until_server_restart")) {
    const session = sessions.get(id);
    if (!JSON.stringify(session.metadata["notifications"] ?? null).includes("until_server_restart")) continue;
    count += notifications
      .session(session.id)
      .expireWhere((c) => c.activeRestartScoped().filter(stale), "server_restart").length;
  }
  return count;
}
