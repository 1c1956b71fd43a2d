// Notification routes (docs/notifications.md "Routes"; contracts in client/wire/routes/notifications.ts): list and
// dismiss, for the application and for one session. Lists answer a JSON array of records (active ones;
// include_terminal=true adds terminal ones). A dismiss answers 200 with the dismissed record, 409 with the current
// record itself as the body when the expected revision is stale or the record cannot be dismissed (the contract's
// conflictRecord, answered by serveRoute), 404 for an unknown id or session.
import type { FastifyInstance, FastifyReply } from "fastify";
import {
  applicationNotificationsRoute,
  dismissApplicationNotificationRoute,
  dismissSessionNotificationRoute,
  sessionNotificationsRoute,
} from "../../../client/wire/routes/notifications.ts";
import type { ServerContext } from "../../context.ts";
import type { ScopeService } from "../../notifications/scope-service.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";
import { forbidden, notFound } from "../../errors.ts";
import { newDeviceKey } from "../../people/new-device-notice.ts";
import type { NotificationRecord } from "../../../client/wire/notification.ts";

export function registerNotificationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const notifications = ctx.notifications;

  // With more than one person, each sees the records meant for them that they have not dismissed (docs/people.md
  // "Notifications"); a single-person server answers from the maintained list as before.
  serveRoute(app, applicationNotificationsRoute, ({ query, reply, request }) => {
    const includeTerminal = query.include_terminal ?? false;
    if (!ctx.notificationAudience.shared()) return sendList(reply, notifications.application, includeTerminal);
    const person = callerOfRoute(request).person_id;
    return ctx.notificationAudience.visible(person, notifications.application.list(includeTerminal));
  });

  serveRoute(app, dismissApplicationNotificationRoute, ({ params, body, request }) => {
    const caller = callerOfRoute(request);
    const record = notifications.application.get(params.notification_id);
    const audience = ctx.notificationAudience;
    if (record && !audience.isFor(caller.person_id, record))
      throw notFound("notification_not_found", `no notification "${params.notification_id}"`);
    if (record && caller.kind === "device" && record.key === newDeviceKey(caller.device_id))
      throw forbidden("notice_not_dismissable", "another of your devices must dismiss the notice about this one");
    if (record && record.status !== "dismissed" && audience.dismissesForOne(record))
      return dismissForOne(ctx, record, caller.person_id);
    return notifications.application.dismiss(params.notification_id, body);
  });

  serveRoute(app, sessionNotificationsRoute, ({ params, query, reply }) =>
    sendList(reply, notifications.session(params.session_id), query.include_terminal ?? false),
  );

  serveRoute(app, dismissSessionNotificationRoute, ({ params, body }) =>
    notifications.session(params.session_id).dismiss(params.notification_id, body),
  );
}

/** A record meant for everyone, dismissed by one person: gone for that person's devices, active for the others. */
function dismissForOne(ctx: ServerContext, record: NotificationRecord, person: string): NotificationRecord {
  const dismissed = { ...record, status: "dismissed" } as NotificationRecord;
  ctx.transactor.run(() => {
    ctx.notificationAudience.dismissFor(record.id, person);
    const payload = { notification_id: record.id, revision: record.revision ?? 1, notification: dismissed };
    ctx.events.publish({ type: "application_notification_dismissed", ...payload }, undefined, [person]);
  });
  return dismissed;
}

/** The array of records built from the stored JSON (10,000 records cost no parse/stringify round trip). */
function sendList(reply: FastifyReply, service: ScopeService, includeTerminal: boolean): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(service.listJson(includeTerminal));
}
