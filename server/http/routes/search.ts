// GET /search (docs/search.md): message text and titles of every chat, best match first.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ServerContext } from "../../context.ts";
import { parseInput } from "../validate.ts";

/** A query is words typed into a box; a longer one is a paste, refused rather than searched. */
const MAX_QUERY_LENGTH = 1000;

const searchQuery = z
  .object({
    q: z.string().max(MAX_QUERY_LENGTH, `q must be at most ${MAX_QUERY_LENGTH} characters`),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, "limit must be an integer from 1 to 100")
      .transform(Number)
      .refine((n) => n >= 1 && n <= 100, "limit must be an integer from 1 to 100")
      .optional(),
  })
  .strict();

export function registerSearchRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get("/search", async (request) => {
    const query = parseInput(searchQuery, request.query, "query");
    return { results: await ctx.search.search(query.q, query.limit ?? 20) };
  });
}
