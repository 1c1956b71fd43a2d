// Session and message routes (docs/sessions.md "Routes", docs/events.md "Sessions"); their contracts are
// client/wire/routes/sessions.ts.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  appendMessageRoute,
  createSessionRoute,
  deleteMessagesRoute,
  deleteSessionRoute,
  forkSessionRoute,
  getSessionRoute,
  listSessionsRoute,
  loadMessagesRoute,
  modifyMessageRoute,
  updateSessionRoute,
} from "../../../client/wire/routes/sessions.ts";
import type { ServerContext } from "../../context.ts";
import { checkRequestOptions } from "../../runner/send-input.ts";
import { serveRoute } from "../serve-route.ts";
import { parseInput } from "../validate.ts";
import { MAX_PAGE, sessionCursorSchema } from "../../sessions/session-pages.ts";

/** The opaque cursor, decoded where it comes in (a cursor the server did not give is 400 at query.before). */
const pageCursor = z.object({ before: sessionCursorSchema.optional() });

export function registerSessionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { sessions } = ctx;

  // Summaries, not sessions: a list of long sessions must not carry every message (docs/client.md "Sessions").
  serveRoute(app, listSessionsRoute, ({ query }) => {
    const archived = query.archived === undefined ? "exclude" : query.archived;
    // Without limit or before: the whole list as before. With either: a page (docs/sessions.md "History in pages").
    if (query.limit === undefined && query.before === undefined) return { sessions: sessions.listSummaries(archived) };
    const { before } = parseInput(pageCursor, { before: query.before }, "query");
    return sessions.listPage(archived, query.limit ?? MAX_PAGE, before);
  });

  serveRoute(app, createSessionRoute, ({ body }) => ({ session: sessions.create(body.agent_id) }));

  serveRoute(app, getSessionRoute, ({ params, query: { messages_limit, messages_before } }) => {
    // Without the paging parameters: the whole session as before (docs/sessions.md "History in pages").
    if (messages_limit === undefined && messages_before === undefined)
      return { session: sessions.get(params.session_id) };
    return { session: sessions.getPage(params.session_id, messages_limit, messages_before) };
  });

  serveRoute(app, updateSessionRoute, ({ params, body }) => {
    if (body.request_options) {
      const agent = ctx.agents.get(sessions.get(params.session_id).agent_id);
      if (agent) checkRequestOptions(agent, body.request_options);
    }
    return { session: sessions.update(params.session_id, body) };
  });

  // docs/sessions.md "Delete": the running request ends first (request_cancelled, request_completed), then the
  // content goes in one transaction with session_deleted, then the attachments no live fork can still use.
  serveRoute(app, deleteSessionRoute, async ({ params: { session_id }, request }) => {
    sessions.requireExists(session_id);
    // Nothing awaits between the last check and the delete: a send that slipped in meanwhile is stopped too.
    do await ctx.runner.stopSession(session_id);
    while (ctx.runner.activeRequest(session_id) !== undefined);
    const lineage = sessions.lineage(session_id);
    sessions.delete(session_id);
    // Keys given from now on open nothing sealed before (the chat's events, wherever a copy of them remains).
    ctx.e2e.contentKeys.rotateForDeletion();
    ctx.assets.purgeDeleted(lineage);
    // The chat's copies of its documents go with it (docs/documents.md "Deleting").
    ctx.transactor.run(() => ctx.documents.store.forgetChat(session_id));
    // The WAL still holds the pages as they were before the erasure: checkpointed and truncated before the answer.
    if (!(await ctx.checkpoints.truncate())) request.log.warn({ session_id }, "WAL not truncated after a deletion");
    request.log.info({ session_id }, "session deleted");
  });

  serveRoute(app, forkSessionRoute, ({ params }) => ({ session: sessions.fork(params.session_id) }));

  serveRoute(app, loadMessagesRoute, ({ params }) => sessions.loadMessages(params.session_id));

  serveRoute(app, appendMessageRoute, ({ params, body }) => sessions.append(params.session_id, body));

  serveRoute(app, modifyMessageRoute, ({ params, body }) => ({
    session: sessions.modify(params.session_id, params.index, body.content),
  }));

  serveRoute(app, deleteMessagesRoute, ({ params, body }) => ({
    session: sessions.deleteMessages(params.session_id, body.indices),
  }));
}
