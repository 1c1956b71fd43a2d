// Share links (docs/people.md "Share links"; contracts in client/wire/routes/share-links.ts): the owner's
// POST/GET/DELETE under /sessions/{id}/share-links (the chat guard lets only the owner through: they are "manage" in
// server/http/session-access.ts), and GET /shared/{token}, open to anyone and limited per address, which answers the
// sealed blob as it is stored.
import type { FastifyInstance } from "fastify";
import {
  createShareLinkRoute,
  listShareLinksRoute,
  revokeShareLinkRoute,
  sharedBlobRoute,
} from "../../../client/wire/routes/share-links.ts";
import type { ServerContext } from "../../context.ts";
import { tooMany } from "../../errors.ts";
import { ReadLimiter } from "../../sharing/read-limiter.ts";
import { serveRoute } from "../serve-route.ts";

export function registerShareLinkRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const links = ctx.shareLinks;
  const reads = new ReadLimiter(ctx.clock);

  serveRoute(app, createShareLinkRoute, ({ request, reply, params: { session_id }, body }) => {
    const created = links.create(session_id, body.expires_in);
    request.log.info({ session_id, expires_at: created.expires_at }, "share link made");
    return reply.code(201).header("cache-control", "no-store").send(created);
  });

  serveRoute(app, listShareLinksRoute, ({ params: { session_id } }) => ({ links: links.list(session_id) }));

  serveRoute(app, revokeShareLinkRoute, ({ request, params: { session_id, token } }) => {
    links.revoke(session_id, token);
    request.log.info({ session_id }, "share link revoked");
  });

  serveRoute(
    app,
    sharedBlobRoute,
    ({ reply, params: { token } }) =>
      reply.type("application/json; charset=utf-8").header("cache-control", "no-store").send(links.blob(token)),
    {
      before: (request) => {
        const wait = reads.take(request.ip);
        if (wait !== undefined)
          throw tooMany("rate_limited", "too many share link reads from this address", { retry_after: wait });
      },
    },
  );
}
