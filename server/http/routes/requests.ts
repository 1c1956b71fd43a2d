// POST /sessions/{id}/send → 202 {request_id}; POST /sessions/{id}/requests/{request_id}/cancel → 202.
// (docs/runner.md "Send", "Cancel and shutdown"; contracts in client/wire/routes/requests.ts.)
import type { FastifyInstance } from "fastify";
import { cancelRoute, sendRoute } from "../../../client/wire/routes/requests.ts";
import type { ServerContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { checkSend } from "../../runner/send-input.ts";
import { serveRoute } from "../serve-route.ts";

export function registerRequestRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { runner, assets } = ctx;
  // Inline images travel as data URLs in the body: room for MAX_ATTACHMENTS-worth is not needed, one
  // max-size image (base64) plus text is; the decoded size is checked per attachment.
  const bodyLimit = Math.max(1024 * 1024, Math.ceil(assets.maxBytes / 3) * 4 + 256 * 1024);

  serveRoute(
    app,
    sendRoute,
    ({ params: { session_id }, body }) => {
      // From here to remember() nothing awaits: a concurrent repeat of the id always sees the first one's entry.
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
      const request_id = runner.start(session_id, agent, body);
      if (body.client_request_id !== undefined)
        runner.clientRequestIds.remember(session_id, body.client_request_id, request_id);
      return { request_id };
    },
    { bodyLimit },
  );

  serveRoute(app, cancelRoute, ({ params: { session_id, request_id } }) => {
    runner.cancel(session_id, request_id);
    return { request_id, cancelling: true };
  });
}
