// Notification events (docs/notifications.md "Events"). They are published inside the mutation's
// transaction, so the event store makes them visible only once the mutation commits, and each one runs in
// its own savepoint: a failed publication rolls back just itself, is logged, and never fails the mutation.
import type { FastifyBaseLogger } from "fastify";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { Transactor } from "../db/transactor.ts";
import type { PublishInput } from "../events/event-store.ts";
import type { NotificationScope } from "./records.ts";

export type Happening = "created" | "updated" | "resolved" | "dismissed" | "expired";

/** Application scope has no `resolved` event: a resolved application record is announced as updated. */
const APPLICATION_TYPES: Record<Happening, string> = {
  created: "application_notification_created",
  updated: "application_notification_updated",
  resolved: "application_notification_updated",
  dismissed: "application_notification_dismissed",
  expired: "application_notification_expired",
};

export function notificationEvent(
  scope: NotificationScope,
  happening: Happening,
  record: NotificationRecord,
): PublishInput {
  // request_id stays inside the record: on the event it would follow request_completed, which must be the
  // request's final event.
  const payload = { notification_id: record.id, revision: record.revision ?? 1, notification: record };
  if (scope.kind === "application") return { type: APPLICATION_TYPES[happening], ...payload };
  return { type: `session_notification_${happening}`, session_id: scope.sessionId, ...payload };
}

export interface EventPublisher {
  publish(event: PublishInput, ref?: undefined, audience?: readonly string[]): unknown;
}

/**
 * The people an event is for when it is not everyone's: an application notification's audience (docs/people.md
 * "Notifications"), carried by its record.
 */
function audienceOf(event: PublishInput): readonly string[] | undefined {
  const record = event["notification"] as { audience?: unknown } | undefined;
  if (Array.isArray(record?.audience)) return record.audience as string[];
  return undefined;
}

export type Emit = (event: PublishInput) => void;

/** A publisher that never throws: each event in its own savepoint when a transactor is given. */
export function bestEffort(
  events: EventPublisher,
  transactor: Transactor | undefined,
  log: Pick<FastifyBaseLogger, "warn">,
): Emit {
  return (event) => {
    try {
      const audience = audienceOf(event);
      if (transactor) transactor.run(() => events.publish(event, undefined, audience));
      else events.publish(event, undefined, audience);
    } catch (error) {
      log.warn({ err: error, type: event.type }, "notification event not published (best effort)");
    }
  };
}
