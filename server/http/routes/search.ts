// GET /search (docs/search.md): message text and titles of every chat, best match first.
import type { FastifyInstance } from "fastify";
import { searchRoute } from "../../../client/wire/routes/search.ts";
import type { ServerContext } from "../../context.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

export function registerSearchRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Only the chats the caller's person may see (docs/people.md "Visibility").
  serveRoute(app, searchRoute, async ({ query, request }) => ({
    results: await ctx.search.search(query.q, query.limit ?? 20, callerOfRoute(request).person_id),
  }));
}
