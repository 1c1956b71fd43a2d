// Producer tokens, admin only (docs/notifications.md "Producers"): make one (its token shown once), list, revoke.
// Contracts: client/wire/routes/producers.ts.
import type { FastifyInstance } from "fastify";
import { createProducerRoute, listProducersRoute, revokeProducerRoute } from "../../../client/wire/routes/producers.ts";
import type { ServerContext } from "../../context.ts";
import { serveRoute } from "../serve-route.ts";

export function registerProducerRoutes(app: FastifyInstance, ctx: ServerContext): void {
  serveRoute(app, createProducerRoute, ({ body }) => ctx.producers.create(body.name));

  serveRoute(app, listProducersRoute, () => ({ producers: ctx.producers.list() }));

  serveRoute(app, revokeProducerRoute, ({ params }) => {
    ctx.producers.revoke(params.producer_id);
  });
}
