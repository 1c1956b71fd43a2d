// POST /sessions/{id}/send → 202 {request_id}; POST /sessions/{id}/requests/{request_id}/cancel → 202.
// (docs/runner.md "Send", "Cancel and shutdown".)
import { sessionParams } from "../session-params.ts";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ServerContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { parseInput } from "../validate.ts";
import { checkSend, sendBodyLimit, sendBodySchema } from "../../runner/send-input.ts";

const cancelParams = z.object({ session_id: z.string().min(1), request_id: z.string().min(1) }).strict();
const cancelBody = z.object({}).strict().optional();

export function registerRequestRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { runner, assets } = ctx;
  const bodyLimit = sendBodyLimit(assets.maxBytes);

  app.post("/sessions/:session_id/send", { bodyLimit }, async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(sendBodySchema, request.body, "body");
    // From here to remember() nothing awaits: a concurrent repeat of the id always sees the first one's entry.
    const earlier =
      body.client_request_id === undefined
        ? undefined
        : runner.clientRequestIds.find(session_id, body.client_request_id);
    if (earlier !== undefined) return reply.status(202).send({ request_id: earlier });
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
    return reply.status(202).send({ request_id });
  });

  app.post("/sessions/:session_id/requests/:request_id/cancel", async (request, reply) => {
    const { session_id, request_id } = parseInput(cancelParams, request.params, "params");
    parseInput(cancelBody, request.body, "body");
    runner.cancel(session_id, request_id);
    return reply.status(202).send({ request_id, cancelling: true });
  });
}
