// Regenerate, edit-and-resend and the version switch (docs/sessions.md "Versions"):
// POST /sessions/{id}/regenerate and POST /sessions/{id}/messages/{index}/resend → 202 {request_id} (409 while a
// request runs); POST /sessions/{id}/messages/{index}/version → 200 {session}, publishing session_updated.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { regenerateRoute, resendMessageRoute, switchVersionRoute } from "../../../client/wire/routes/turns.ts";
import type { ResolvedAgent } from "../../config/agents.ts";
import type { ServerContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { checkRequestOptions } from "../../runner/send-input.ts";
import { regenerated, resent } from "../../sessions/turns.ts";
import { serveRoute } from "../serve-route.ts";
import { callerOfRoute } from "../auth.ts";

export function registerTurnRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { runner, sessions } = ctx;

  /** The session's agent, or 409 when the config no longer defines it (as send answers). */
  const agentOf = (sessionId: string): ResolvedAgent => {
    const session = sessions.get(sessionId);
    const agent = ctx.agents.get(session.agent_id);
    if (!agent)
      throw conflict(
        "agent_not_found",
        `session ${sessionId} uses agent "${session.agent_id}", which the config no longer defines`,
      );
    return agent;
  };

  /**
   * A repeat of a client_request_id answers the first request_id; the runner remembers a new one in the transaction
   * of its first save, and nothing awaits between this lookup and that.
   */
  const once = (sessionId: string, clientRequestId: string | undefined, start: () => string) => {
    const earlier =
      clientRequestId === undefined ? undefined : runner.clientRequestIds.find(sessionId, clientRequestId);
    return { request_id: earlier ?? start() };
  };

  /** Who starts the request: a `write` share may cancel only its own (requests.ts). */
  const startedBy = (request: FastifyRequest) => callerOfRoute(request).person_id;

  serveRoute(app, regenerateRoute, ({ params: { session_id }, body, request }) =>
    once(session_id, body.client_request_id, () => {
      const agent = agentOf(session_id);
      if (body.request_options) checkRequestOptions(agent, body.request_options);
      const input = { ...body, started_by: startedBy(request) };
      return runner.startTurn(session_id, agent, input, (session, requestId) =>
        regenerated(session.messages, requestId),
      );
    }),
  );

  serveRoute(app, resendMessageRoute, ({ params: { session_id, index }, body, request }) =>
    once(session_id, body.client_request_id, () =>
      runner.startTurn(
        session_id,
        agentOf(session_id),
        { ...body, started_by: startedBy(request) },
        (session, requestId) => resent(session.messages, index, body.content, requestId),
      ),
    ),
  );

  serveRoute(app, switchVersionRoute, ({ params: { session_id, index }, body }) => {
    sessions.get(session_id);
    // A run appends to the shown path: switching under it would mix two branches.
    const busy = runner.activeRequest(session_id);
    if (busy)
      throw conflict(
        "request_in_progress",
        `session ${session_id} has request ${busy} in flight; switch versions after its request_completed`,
        { request_id: busy },
      );
    return { session: sessions.showVersion(session_id, index, body.version) };
  });
}
