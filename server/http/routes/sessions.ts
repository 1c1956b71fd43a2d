// Session and message routes (SPEC.md "HTTP routes", DESIGN.md "Routes beyond SPEC.md's table").
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { metadataSchema, roleSchema, sessionUpdateSchema } from "../../../client/wire/index.ts";
import type { ServerContext } from "../../context.ts";
import { parseInput } from "../validate.ts";

const sessionParams = z.object({ session_id: z.string().min(1) }).strict();
const messageParams = z
  .object({ session_id: z.string().min(1), index: z.string().regex(/^\d+$/, "index must be a non-negative integer").transform(Number) })
  .strict();

const createBody = z.object({ agent_id: z.string().min(1).optional() }).strict().default({});
const forkBody = z.object({}).strict().default({});
const appendBody = z.object({ role: roleSchema, content: z.string(), metadata: metadataSchema.optional() }).strict();
const modifyBody = z.object({ content: z.string() }).strict();
const deleteBody = z
  .object({ indices: z.array(z.number().int().nonnegative()).min(1) })
  .strict()
  .refine((b) => new Set(b.indices).size === b.indices.length, { message: "indices must not repeat", path: ["indices"] });

export function registerSessionRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { sessions } = ctx;

  // Summaries, not sessions: a list of long sessions must not carry every message (docs/client.md "Sessions").
  app.get("/sessions", async () => ({ sessions: sessions.listSummaries() }));

  app.post("/sessions", async (request, reply) => {
    const body = parseInput(createBody, request.body, "body");
    return reply.status(201).send({ session: sessions.create(body.agent_id) });
  });

  app.get("/sessions/:session_id", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    return { session: sessions.get(session_id) };
  });

  app.patch("/sessions/:session_id", async (request) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    const body = parseInput(sessionUpdateSchema, request.body, "body");
    return { session: sessions.update(session_id, body) };
  });

  app.post("/sessions/:session_id/fork", async (request, reply) => {
    const { session_id } = parseInput(sessionParams, request.params, "params");
    parseInput(forkBody, request.body, "body");
    return reply.status(201).send({ session: sessions.fork(session_id) });
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
