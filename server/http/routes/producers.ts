// Producer tokens, admin only (docs/notifications.md "Producers"): make one (its token shown once), list, revoke.
// Contracts: client/wire/routes/producers.ts.
import type { FastifyInstance } from "fastify";
import { createProducerRoute, listProducersRoute, revokeProducerRoute } from "../../../client/wire/routes/producers.ts";
import type { ServerContext } from "../../context.ts";
import { serveRoute } from "../serve-route.ts";

export function registerProducerRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // The producer belongs to the caller's person (the admin token's: the acting admin), docs/people.md.
  serveRoute(app, createProducerRoute, ({ body, request }) =>
    ctx.producers.create(body.name, request.caller?.person_id),
  );

  serveRoute(app, listProducersRoute, () => ({ producers: ctx.producers.list() }));

  serveRoute(app, revokeProducerRoute, ({ params }) => {
    ctx.producers.revoke(params.producer_id);
  });
}
