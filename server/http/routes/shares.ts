// POST /sessions/{id}/shares and DELETE /sessions/{id}/shares/{person_id} (docs/people.md "Sharing"; contracts in
// client/wire/routes/shares.ts). Only the chat's owner reaches the handlers: the chat guard counts both as "manage"
// (server/http/session-access.ts), so anyone else is 403 share_access_denied, or 404 when they cannot see the chat.
import type { FastifyInstance } from "fastify";
import { shareSessionRoute, unshareSessionRoute } from "../../../client/wire/routes/shares.ts";
import type { ServerContext } from "../../context.ts";
import { SessionViews } from "../../people/session-views.ts";
import { ShareService } from "../../people/share-service.ts";
import { serveRoute } from "../serve-route.ts";

export function registerShareRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const shares = new ShareService({
    db: ctx.db,
    clock: ctx.clock,
    audiences: ctx.audiences,
    people: ctx.people,
    events: ctx.events,
    sessions: ctx.sessions,
    views: new SessionViews(ctx.db),
  });

  serveRoute(app, shareSessionRoute, ({ request, params: { session_id }, body }) => {
    shares.share(session_id, body.person_id, body.access);
    request.log.info({ session_id, person_id: body.person_id, access: body.access }, "chat shared");
    return { session: ctx.sessions.get(session_id) };
  });

  serveRoute(app, unshareSessionRoute, ({ request, params: { session_id, person_id } }) => {
    shares.unshare(session_id, person_id);
    request.log.info({ session_id, person_id }, "chat unshared");
  });
}
