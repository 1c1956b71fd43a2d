// Notifications from outside (docs/notifications.md "Producers"; contracts in
// client/wire/routes/producer-notifications.ts): a producer token (or the admin token) publishes a notification by
// key, creating it or updating its active occurrence, and resolves one by key, at application or session scope. Only
// kind "notification": interactions belong to the runner and its approvals. The record's source.plugin names who
// published it: "producer:<name>" for a producer token, "admin" for the admin token. The notification service's
// refusals are DomainErrors with their registered codes (server/notifications/errors.ts): nothing is mapped here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import {
  publishApplicationNotificationRoute,
  publishSessionNotificationRoute,
  resolveApplicationNotificationRoute,
  resolveSessionNotificationRoute,
} from "../../../client/wire/routes/producer-notifications.ts";
import type { ServerContext } from "../../context.ts";
import { conflict, forbidden, invalid } from "../../errors.ts";
import type { ParsedProducerInput } from "../../notifications/input.ts";
import type { ScopeService } from "../../notifications/scope-service.ts";
import { serveRoute } from "../serve-route.ts";

type ResolveInput = z.output<typeof resolveApplicationNotificationRoute.body>;

export function registerProducerNotificationRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const publisher = { before: sourceOf };
  serveRoute(
    app,
    publishApplicationNotificationRoute,
    ({ body, request, reply }) => publish(request, reply, ctx.notifications.application, body),
    publisher,
  );
  serveRoute(
    app,
    resolveApplicationNotificationRoute,
    ({ body, request }) => resolve(request, ctx.notifications.application, body),
    publisher,
  );
  serveRoute(
    app,
    publishSessionNotificationRoute,
    ({ params, body, request, reply }) => publish(request, reply, ctx.notifications.session(params.session_id), body),
    publisher,
  );
  serveRoute(
    app,
    resolveSessionNotificationRoute,
    ({ params, body, request }) => resolve(request, ctx.notifications.session(params.session_id), body),
    publisher,
  );
}

/** 201 with the record when it is a new occurrence, 200 when the key's active one was updated. */
function publish(
  request: FastifyRequest,
  reply: FastifyReply,
  scope: ScopeService,
  input: ParsedProducerInput,
): FastifyReply {
  if (input.kind === "interaction") {
    throw invalid("invalid_input", 'body.kind: producers publish kind "notification" only', [
      { path: "body.kind", message: 'must be "notification"' },
    ]);
  }
  refuseInteraction(scope, input.key);
  const record = scope.publish({ ...input, kind: "notification" }, sourceOf(request));
  return reply.status(record.revision === 1 ? 201 : 200).send(record);
}

function resolve(request: FastifyRequest, scope: ScopeService, input: ResolveInput) {
  refuseInteraction(scope, input.key);
  return scope.move(input, "resolve", sourceOf(request));
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
