// Notifications from outside (docs/notifications.md "Producers"): a producer token (or the admin token) publishes a
// notification by key, creating it or updating its active occurrence, and resolves one by key, at application or
// session scope. Only kind "notification": interactions belong to the runner and its approvals. The record's
// source.plugin names who published it: "producer:<name>" for a producer token, "admin" for the admin token.
import { sessionParams } from "../session-params.ts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { NotificationRecord } from "../../../client/wire/notification.ts";
import type { ServerContext } from "../../context.ts";
import { conflict, forbidden, invalid, notFound } from "../../errors.ts";
import {
  NotificationConflictError,
  NotificationNotFoundError,
  NotificationValidationError,
} from "../../notifications/errors.ts";
import { producerInputSchema } from "../../notifications/input.ts";
import type { ScopeService } from "../../notifications/scope-service.ts";
import { parseInput } from "../validate.ts";

const resolveBody = z
  .object({
    key: z.string().min(1),
    detail: z.record(z.string(), z.json()).optional(),
    operation_id: z.string().min(1).optional(),
  })
  .strict();

export function registerProducerNotificationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post("/application/notifications", async (request, reply) =>
    publish(request, reply, ctx.notifications.application),
  );

  app.post("/application/notifications/resolve", async (request) => resolve(request, ctx.notifications.application));

  app.post("/sessions/:session_id/notifications", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    return publish(request, reply, ctx.notifications.session(session_id));
  });

  app.post("/sessions/:session_id/notifications/resolve", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    return resolve(request, ctx.notifications.session(session_id));
  });
}

/** 201 with the record when it is a new occurrence, 200 when the key's active one was updated. */
function publish(request: FastifyRequest, reply: FastifyReply, scope: ScopeService): FastifyReply {
  const source = sourceOf(request);
  const input = parseInput(producerInputSchema, request.body, "body");
  if (input.kind === "interaction") {
    throw invalid("invalid_input", 'body.kind: producers publish kind "notification" only', [
      { path: "body.kind", message: 'must be "notification"' },
    ]);
  }
  refuseInteraction(scope, input.key);
  const record = answering(() => scope.publish({ ...input, kind: "notification" }, source));
  return reply.status(record.revision === 1 ? 201 : 200).send(record);
}

function resolve(request: FastifyRequest, scope: ScopeService): NotificationRecord {
  const source = sourceOf(request);
  const input = parseInput(resolveBody, request.body, "body");
  refuseInteraction(scope, input.key);
  return answering(() => scope.move(input, "resolve", source));
}

/** Who publishes: source.plugin of the record. Device tokens read notifications; they do not publish them. */
function sourceOf(request: FastifyRequest): string {
  const caller = request.caller;
  if (caller?.kind === "producer") return `producer:${caller.producer_name}`;
  if (caller?.kind === "admin") return "admin";
  throw forbidden("forbidden", "publishing notifications needs a producer token or the admin token");
}

/** An interaction active under the key is the runner's (an approval): a producer must not overwrite or end it. */
function refuseInteraction(scope: ScopeService, key: string): void {
  const active = scope.list(false).find((record) => record.key === key);
  if (active?.kind === "interaction") {
    throw conflict("notification_conflict", `key "${key}" names an active interaction, which producers cannot change`, {
      current: active,
    });
  }
}

/** The service's typed failures as HTTP answers. */
function answering(work: () => NotificationRecord): NotificationRecord {
  try {
    return work();
  } catch (error) {
    if (error instanceof NotificationValidationError) {
      throw invalid(
        "invalid_input",
        error.message,
        error.issues.map((i) => ({ path: `body.${i.path}`, message: i.message })),
      );
    }
    if (error instanceof NotificationConflictError)
      throw conflict("notification_conflict", error.message, { current: error.current });
    if (error instanceof NotificationNotFoundError) throw notFound("notification_not_found", error.message);
    throw error;
  }
}
