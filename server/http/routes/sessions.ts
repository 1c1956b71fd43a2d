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
import { callerOfRoute } from "../auth.ts";
import { deleteChat } from "../../sessions/delete-chat.ts";
import { startSession } from "../../personal/new-session.ts";

/** The opaque cursor, decoded where it comes in (a cursor the server did not give is 400 at query.before). */
const pageCursor = z.object({ before: sessionCursorSchema.optional() });

export function registerSessionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { sessions } = ctx;

  // Summaries, not sessions: a list of long sessions must not carry every message (docs/client.md "Sessions").
  // The chats the caller's person owns or was shared (docs/people.md "Visibility").
  serveRoute(app, listSessionsRoute, ({ query, request }) => {
    const archived = query.archived === undefined ? "exclude" : query.archived;
    const person = callerOfRoute(request).person_id;
    // Without limit or before: the whole list as before. With either: a page (docs/sessions.md "History in pages").
    if (query.limit === undefined && query.before === undefined)
      return { sessions: sessions.listSummaries(archived, person) };
    const { before } = parseInput(pageCursor, { before: query.before }, "query");
    return sessions.listPage(archived, query.limit ?? MAX_PAGE, before, person);
  });

  // A new chat is the caller's person's, with their default agent and model unless the call names an agent; the agent
  // must be one that person may use (403 agent_not_allowed).
  // A repeat of a client_session_id answers the chat the first call made (server/runner/client-request-ids.ts).
  serveRoute(app, createSessionRoute, ({ body, request }) => {
    const person = callerOfRoute(request).person_id;
    const ids = ctx.runner.clientRequestIds;
    const clientId = body.client_session_id;
    return {
      session: ctx.transactor.run(() => {
        const earlier = clientId === undefined ? undefined : ids.findSession(person, clientId);
        if (earlier !== undefined) return sessions.get(earlier);
        const session = startSession(ctx, person, body.agent_id);
        if (clientId !== undefined) ids.rememberSession(person, clientId, session.id);
        return session;
      }),
    };
  });

  serveRoute(app, getSessionRoute, ({ params, query: { messages_limit, messages_before } }) => {
    // Without the paging parameters: the whole session as before (docs/sessions.md "History in pages").
    if (messages_limit === undefined && messages_before === undefined)
      return { session: sessions.get(params.session_id) };
    return { session: sessions.getPage(params.session_id, messages_limit, messages_before) };
  });

  serveRoute(app, updateSessionRoute, ({ params, body, request }) => {
    // Someone the chat is shared with pins or archives it for themselves only (the guard let only those fields by).
    const person = callerOfRoute(request).person_id;
    if (ctx.audiences.accessOf(person, params.session_id) !== "owner" && request.caller?.kind !== "admin") {
      ctx.audiences.setFlags(params.session_id, person, { pinned: body.pinned, archived: body.archived });
      return { session: sessions.get(params.session_id) };
    }
    if (body.request_options) {
      const agent = ctx.agents.get(sessions.get(params.session_id).agent_id);
      if (agent) checkRequestOptions(agent, body.request_options);
    }
    return { session: sessions.update(params.session_id, body) };
  });

  // docs/sessions.md "Delete": the running request ends first (request_cancelled, request_completed), then the
  // content goes in one transaction with session_deleted, then the attachments no live fork can still use.
  serveRoute(app, deleteSessionRoute, async ({ params: { session_id }, request }) => {
    // The WAL still holds the pages as they were before the erasure: checkpointed and truncated before the answer.
    if (!(await deleteChat(ctx, session_id))) request.log.warn({ session_id }, "WAL not truncated after a deletion");
    request.log.info({ session_id }, "session deleted");
  });

  // A copy is the forking person's own chat (a shared chat's reader may "Copy to my chats").
  serveRoute(app, forkSessionRoute, ({ params, request }) => ({
    session: sessions.fork(params.session_id, callerOfRoute(request).person_id),
  }));

  serveRoute(app, loadMessagesRoute, ({ params, query }) => sessions.loadMessages(params.session_id, query.limit));

  serveRoute(app, appendMessageRoute, ({ params, body }) => sessions.append(params.session_id, body));

  serveRoute(app, modifyMessageRoute, ({ params, body }) => ({
    session: sessions.modify(params.session_id, params.index, body.content),
  }));

  serveRoute(app, deleteMessagesRoute, ({ params, body }) => ({
    session: sessions.deleteMessages(params.session_id, body.indices),
  }));
}
