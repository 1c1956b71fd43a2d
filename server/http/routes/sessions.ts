// Session and message routes (docs/sessions.md "Routes", docs/events.md "Sessions").
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { metadataSchema, roleSchema, sessionUpdateSchema } from "../../../client/wire/index.ts";
import type { ServerContext } from "../../context.ts";
import { callerOfRoute } from "../auth.ts";
import { messageParams, sessionParams } from "../session-params.ts";
import { parseInput } from "../validate.ts";
import { checkRequestOptions } from "../../runner/send-input.ts";
import { deleteChat } from "../../sessions/delete-chat.ts";
import { startSession } from "../../personal/new-session.ts";

const createBody = z
  .object({ agent_id: z.string().min(1).optional() })
  .strict()
  .default({});
const listQuery = z.object({ archived: z.enum(["only", "include"]).optional() }).strict();
const deleteSessionBody = z.object({}).strict().optional();
const forkBody = z.object({}).strict().default({});
const appendBody = z.object({ role: roleSchema, content: z.string(), metadata: metadataSchema.optional() }).strict();
const modifyBody = z.object({ content: z.string() }).strict();
const deleteBody = z
  .object({ indices: z.array(z.number().int().nonnegative()).min(1) })
  .strict()
  .refine((b) => new Set(b.indices).size === b.indices.length, {
    message: "indices must not repeat",
    path: ["indices"],
  });

export function registerSessionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { sessions } = ctx;

  // Summaries, not sessions: a list of long sessions must not carry every message (docs/client.md "Sessions").
  app.get("/sessions", async (request) => {
    const query = parseInput(listQuery, request.query, "query");
    const archived = query.archived === undefined ? "exclude" : query.archived;
    return { sessions: sessions.listSummaries(archived, callerOfRoute(request).person_id) };
  });

  app.post("/sessions", async (request, reply) => {
    const body = parseInput(createBody, request.body, "body");
    return reply.status(201).send({ session: startSession(ctx, callerOfRoute(request).person_id, body.agent_id) });
  });

  app.get("/sessions/:session_id", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    return { session: sessions.get(session_id) };
  });

  app.patch("/sessions/:session_id", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(sessionUpdateSchema, request.body, "body");
    if (body.request_options) {
      const agent = ctx.agents.get(sessions.get(session_id).agent_id);
      if (agent) checkRequestOptions(agent, body.request_options);
    }
    return { session: sessions.update(session_id, body) };
  });

  // docs/sessions.md "Delete": the running request ends first (request_cancelled, request_completed), then the
  // content goes in one transaction with session_deleted, then the attachments no live fork can still use.
  app.delete("/sessions/:session_id", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    parseInput(deleteSessionBody, request.body, "body");
    await deleteChat(ctx, session_id);
    request.log.info({ session_id }, "session deleted");
    return reply.status(204).send();
  });

  app.post("/sessions/:session_id/fork", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    parseInput(forkBody, request.body, "body");
    return reply.status(201).send({ session: sessions.fork(session_id, callerOfRoute(request).person_id) });
  });

  app.get("/sessions/:session_id/messages", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    return sessions.loadMessages(session_id);
  });

  app.post("/sessions/:session_id/messages", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(appendBody, request.body, "body");
    return reply.status(201).send(sessions.append(session_id, body));
  });

  app.patch("/sessions/:session_id/messages/:index", async (request) => {
    const { session_id, index } = parseInput(messageParams, request.params, "params");
    const body = parseInput(modifyBody, request.body, "body");
    return { session: sessions.modify(session_id, index, body.content) };
  });

  app.delete("/sessions/:session_id/messages", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(deleteBody, request.body, "body");
    return { session: sessions.deleteMessages(session_id, body.indices) };
  });
}
