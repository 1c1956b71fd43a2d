// Regenerate, edit-and-resend and the version switch (docs/sessions.md "Versions"):
// POST /sessions/{id}/regenerate and POST /sessions/{id}/messages/{index}/resend → 202 {request_id} (409 while a
// request runs); POST /sessions/{id}/messages/{index}/version → 200 {session}, publishing session_updated.
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { clientRequestIdSchema } from "../../../client/wire/index.ts";
import type { ResolvedAgent } from "../../config/agents.ts";
import type { ServerContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { checkRequestOptions } from "../../runner/send-input.ts";
import { regenerated, resent } from "../../sessions/turns.ts";
import { messageParams, sessionParams } from "../session-params.ts";
import { parseInput } from "../validate.ts";

const regenerateBody = z
  .object({
    client_request_id: clientRequestIdSchema.optional(),
    /** A model for this one answer; the session's model stays. */
    model: z.string().trim().min(1).max(200).optional(),
    request_options: z.record(z.string(), z.unknown()).optional(),
    stream: z.boolean().default(true),
  })
  .strict()
  .default({ stream: true });
const resendBody = z
  .object({
    content: z.string(),
    client_request_id: clientRequestIdSchema.optional(),
    stream: z.boolean().default(true),
  })
  .strict();
const versionBody = z.object({ version: z.number().int().positive() }).strict();

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

  /** A repeat of a client_request_id answers the first request_id; nothing awaits between find and remember. */
  const once = (reply: FastifyReply, sessionId: string, clientRequestId: string | undefined, start: () => string) => {
    const earlier =
      clientRequestId === undefined ? undefined : runner.clientRequestIds.find(sessionId, clientRequestId);
    const request_id = earlier ?? start();
    if (earlier === undefined && clientRequestId !== undefined)
      runner.clientRequestIds.remember(sessionId, clientRequestId, request_id);
    return reply.status(202).send({ request_id });
  };

  app.post("/sessions/:session_id/regenerate", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(regenerateBody, request.body, "body");
    return once(reply, session_id, body.client_request_id, () => {
      const agent = agentOf(session_id);
      if (body.request_options) checkRequestOptions(agent, body.request_options);
      return runner.startTurn(session_id, agent, body, (session, requestId) =>
        regenerated(session.messages, requestId),
      );
    });
  });

  app.post("/sessions/:session_id/messages/:index/resend", async (request, reply) => {
    const { session_id, index } = parseInput(messageParams, request.params, "params");
    const body = parseInput(resendBody, request.body, "body");
    return once(reply, session_id, body.client_request_id, () =>
      runner.startTurn(session_id, agentOf(session_id), body, (session, requestId) =>
        resent(session.messages, index, body.content, requestId),
      ),
    );
  });

  app.post("/sessions/:session_id/messages/:index/version", async (request) => {
    const { session_id, index } = parseInput(messageParams, request.params, "params");
    const body = parseInput(versionBody, request.body, "body");
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
