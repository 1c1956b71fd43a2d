// Producer tokens, admin only (docs/notifications.md "Producers"): make one (its token shown once), list, revoke.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ServerContext } from "../../context.ts";
import { requireAdmin } from "../auth.ts";
import { parseInput } from "../validate.ts";

const createBody = z.object({ name: z.string().trim().min(1, "name must not be empty").max(100) }).strict();
const producerParams = z.object({ producer_id: z.string().min(1) }).strict();

export function registerProducerRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post("/producers", async (request, reply) => {
    requireAdmin(request);
    const { name } = parseInput(createBody, request.body, "body");
    return reply.status(201).send(ctx.producers.create(name, request.caller?.person_id));
  });

  app.get("/producers", async (request) => {
    requireAdmin(request);
    return { producers: ctx.producers.list() };
  });

  app.delete("/producers/:producer_id", async (request, reply) => {
    requireAdmin(request);
    const { producer_id } = parseInput(producerParams, request.params, "params");
    ctx.producers.revoke(producer_id);
    return reply.status(204).send();
  });
}
