// Notification routes (docs/notifications.md "Routes"): list and dismiss, for the application and for one session.
// Lists answer a JSON array of records, as docs/notifications.md "Routes" says (active ones; include_terminal=true adds terminal ones). A dismiss
// answers 200 with the dismissed record, 409 with the current record itself as the body when the expected
// revision is stale or the record cannot be dismissed, 404 for an unknown id or session.
import { sessionParams } from "../session-params.ts";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { NotificationRecord } from "../../../client/wire/notification.ts";
import type { ServerContext } from "../../context.ts";
import { forbidden, notFound } from "../../errors.ts";
import { newDeviceKey } from "../../people/new-device-notice.ts";
import { parseInput } from "../validate.ts";
import { callerOfRoute } from "../auth.ts";
import { NotificationConflictError, NotificationNotFoundError } from "../../notifications/errors.ts";
import type { ScopeService } from "../../notifications/scope-service.ts";

const listQuery = z
  .object({
    include_terminal: z
      .enum(["true", "false"], "include_terminal must be true or false")
      .transform((v) => v === "true")
      .optional(),
  })
  .strict();
const applicationDismissParams = z.object({ notification_id: z.string().min(1) }).strict();
const sessionDismissParams = sessionParams.extend({ notification_id: z.string().min(1) }).strict();
const dismissBody = z
  .object({
    /** A revision number, or the updated_at of a legacy record without revision. */
    expected_revision: z.union([z.number().int().positive(), z.string().min(1)]).optional(),
    reason: z.string().max(1000).optional(),
  })
  .strict()
  .default({});

export function registerNotificationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const notifications = ctx.notifications;

  // With more than one person, each sees the records meant for them that they have not dismissed (docs/people.md
  // "Notifications"); a single-person server answers from the maintained list as before.
  app.get("/application/notifications", async (request, reply) => {
    const query = parseInput(listQuery, request.query, "query");
    const includeTerminal = query.include_terminal ?? false;
    if (!ctx.notificationAudience.shared()) return sendList(reply, notifications.application, includeTerminal);
    const person = callerOfRoute(request).person_id;
    return ctx.notificationAudience.visible(person, notifications.application.list(includeTerminal));
  });

  app.post("/application/notifications/:notification_id/dismiss", async (request, reply) => {
    const { notification_id } = parseInput(applicationDismissParams, request.params, "params");
    const body = parseInput(dismissBody, request.body, "body");
    const caller = callerOfRoute(request);
    const person = caller.person_id;
    const record = notifications.application.get(notification_id);
    const audience = ctx.notificationAudience;
    if (record && !audience.isFor(person, record))
      throw notFound("notification_not_found", `no notification "${notification_id}"`);
    if (record && caller.kind === "device" && record.key === newDeviceKey(caller.device_id))
      throw forbidden("notice_not_dismissable", "another of your devices must dismiss the notice about this one");
    if (record && record.status !== "dismissed" && audience.dismissesForOne(record))
      return dismissForOne(ctx, record, person);
    return dismiss(reply, notifications.application, notification_id, body);
  });

  app.get("/sessions/:session_id/notifications", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const query = parseInput(listQuery, request.query, "query");
    return sendList(reply, notifications.session(session_id), query.include_terminal ?? false);
  });

  app.post("/sessions/:session_id/notifications/:notification_id/dismiss", async (request, reply) => {
    const { session_id, notification_id } = parseInput(sessionDismissParams, request.params, "params");
    const body = parseInput(dismissBody, request.body, "body");
    return dismiss(reply, notifications.session(session_id), notification_id, body);
  });
}

/** The array of records built from the stored JSON (10,000 records cost no parse/stringify round trip). */
function sendList(reply: FastifyReply, service: ScopeService, includeTerminal: boolean): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(service.listJson(includeTerminal));
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

function dismiss(
  reply: FastifyReply,
  service: ScopeService,
  id: string,
  body: z.output<typeof dismissBody>,
): NotificationRecord | FastifyReply {
  try {
    return service.dismiss(id, body);
  } catch (error) {
    // docs/notifications.md "Routes": the 409 body is the current record, so the client can re-present or drop it at once.
    if (error instanceof NotificationConflictError) return reply.status(409).send(error.current);
    if (error instanceof NotificationNotFoundError) throw notFound("notification_not_found", error.message);
    throw error;
  }
}
