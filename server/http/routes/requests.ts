// POST /sessions/{id}/send → 202 {request_id}; POST /sessions/{id}/requests/{request_id}/cancel → 202.
// (docs/runner.md "Send", "Cancel and shutdown"; contracts in client/wire/routes/requests.ts.)
import type { FastifyInstance } from "fastify";
import { cancelRoute, sendRoute } from "../../../client/wire/routes/requests.ts";
import type { ServerContext } from "../../context.ts";
import { conflict, forbidden } from "../../errors.ts";
import { type Attachment, checkSend, sendBodyLimit } from "../../runner/send-input.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";
import type { FastifyRequest } from "fastify";
import type { MessageSender } from "../../runner/runner.ts";

export function registerRequestRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { runner, assets } = ctx;
  const bodyLimit = sendBodyLimit(assets.maxBytes);

  serveRoute(
    app,
    sendRoute,
    ({ params: { session_id }, body, request }) => {
      // From here to the runner's remember() nothing awaits: a concurrent repeat of the id sees the first one's row.
      const earlier =
        body.client_request_id === undefined
          ? undefined
          : runner.clientRequestIds.find(session_id, body.client_request_id);
      if (earlier !== undefined) return { request_id: earlier };
      const session = ctx.sessions.get(session_id);
      const agent = ctx.agents.get(session.agent_id);
      if (!agent)
        throw conflict(
          "agent_not_found",
          `session ${session_id} uses agent "${session.agent_id}", which the config no longer defines`,
        );
      checkSend(body, session_id, agent, assets);
      attachDocuments(ctx, callerOfRoute(request).person_id, session_id, body.attachments);
      // The runner remembers body.client_request_id in the transaction that stores the message.
      const input = { ...body, started_by: callerOfRoute(request).person_id };
      return { request_id: runner.start(session_id, agent, input, senderOf(ctx, request)) };
    },
    { bodyLimit },
  );

  serveRoute(app, cancelRoute, ({ params: { session_id, request_id }, request }) => {
    checkOwnRequest(ctx, request, session_id, request_id);
    runner.cancel(session_id, request_id);
    return { request_id, cancelling: true };
  });
}

/**
 * A `write` share cancels only the requests its own person started (docs/people.md "Access"); the owner (and the admin
 * token) any request of the chat. A request that is not running is left to the runner's own answer (404 or 409).
 */
function checkOwnRequest(ctx: ServerContext, request: FastifyRequest, sessionId: string, requestId: string): void {
  const person = callerOfRoute(request).person_id;
  if (ctx.audiences.accessOf(person, sessionId) !== "write") return;
  if (ctx.runner.activeRequest(sessionId) !== requestId) return;
  if (ctx.runner.startedBy(requestId) !== person)
    throw forbidden(
      "share_access_denied",
      "this chat is shared with you for write; you may cancel only your own requests",
    );
}

/**
 * Who wrote a device's message (docs/people.md "Visibility"), so a chat several people write in can say so; the admin
 * token and producers are no one's device and write unnamed.
 */
function senderOf(ctx: ServerContext, request: FastifyRequest): MessageSender | undefined {
  const caller = callerOfRoute(request);
  if (caller.kind !== "device") return undefined;
  const person = ctx.personStore.live(caller.person_id);
  return person ? { person_id: person.id, name: person.name } : undefined;
}

/**
 * The documents a send attaches, from the sender's own library, are copied into the chat first (docs/documents.md
 * "Into the conversation"); from then on whoever may read the chat may read its copies.
 */
function attachDocuments(
  ctx: ServerContext,
  personId: string,
  sessionId: string,
  attachments: readonly Attachment[],
): void {
  const at = attachments.flatMap((a, index) => (a.type === "document" ? [index] : []));
  if (at.length === 0) return;
  const ids = attachments.flatMap((a) => (a.type === "document" ? [a.document_id] : []));
  ctx.documents.attach(personId, sessionId, ids, (i) => `body.attachments.${at[i]}`);
}
