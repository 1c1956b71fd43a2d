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

export function registerNotificationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const notifications = ctx.notifications;

  serveRoute(app, applicationNotificationsRoute, ({ query, reply }) =>
    sendList(reply, notifications.application, query.include_terminal ?? false),
  );

  serveRoute(app, dismissApplicationNotificationRoute, ({ params, body }) =>
    notifications.application.dismiss(params.notification_id, body),
  );

  serveRoute(app, sessionNotificationsRoute, ({ params, query, reply }) =>
    sendList(reply, notifications.session(params.session_id), query.include_terminal ?? false),
  );

  serveRoute(app, dismissSessionNotificationRoute, ({ params, body }) =>
    notifications.session(params.session_id).dismiss(params.notification_id, body),
  );
}

/** The array of records built from the stored JSON (10,000 records cost no parse/stringify round trip). */
function sendList(reply: FastifyReply, service: ScopeService, includeTerminal: boolean): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(service.listJson(includeTerminal));
}
